import Doppel
import Foundation

/// The URL every input is read as; fixture files it names are looked for next to it (and not
/// found).
private let manifestURL = URL(fileURLWithPath: "/nonexistent/fuzz/doppel.json")

/// One input: a manifest's bytes. Reading may throw (a clear error); it must not crash. A
/// manifest that reads is added to a backend, base stubs and each scenario.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let data = start.map { Data(bytes: $0, count: count) } ?? Data()
  guard let manifest = try? Manifest(data: data, url: manifestURL) else { return 0 }
  let selections: [ScenarioSelection] = [.base] + manifest.scenarioNames.map { .named($0) }
  for selection in selections {
    let backend = Backend(issueReporter: .ignore)
    _ = try? backend.addStubs(from: manifest, scenario: selection)
  }
  return 0
}
