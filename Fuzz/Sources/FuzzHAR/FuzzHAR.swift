import Doppel
import Foundation

/// One input: a HAR file's bytes. Reading, replaying and linting may throw (a clear error); they
/// must not crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHAR(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let data = start.map { Data(bytes: $0, count: count) } ?? Data()
  if let cassette = try? Cassette(data: data, file: "fuzz.har") {
    let backend = Backend(issueReporter: .ignore)
    _ = try? backend.replay(cassette)
  }
  _ = try? CassetteLint.scan(data, file: "fuzz.har")
  return 0
}
