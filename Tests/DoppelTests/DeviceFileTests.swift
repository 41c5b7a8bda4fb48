import Doppel
import Foundation
import TestSupport
import Testing

/// A file named from outside that is not a regular file (`/dev/zero` never ends) is refused with a
/// message instead of being read until memory runs out.
@Suite struct DeviceFileTests {
  static let zero = URL(fileURLWithPath: "/dev/zero")
  static let reason =
    "it is not a regular file (a directory, a device, a pipe or a socket; a device or a pipe may never end)"

  @Test func aResponseBodyFileThatIsADeviceFailsTheRequest() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://api.example.com/zero"), .file(Self.zero))
    await #expect(
      throws: DoppelError(
        "Could not read the response body file /dev/zero: \(Self.reason). Point the stub at a regular file.")
    ) {
      try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/zero")!))
    }
  }

  @Test func aManifestThatIsADeviceIsRefused() {
    #expect(throws: DoppelError("/dev/zero: could not read the manifest: \(Self.reason). Check the path.")) {
      try Manifest.load(contentsOf: Self.zero)
    }
  }

  @Test func aCassetteThatIsADeviceIsRefused() {
    #expect(throws: DoppelError("Could not read the cassette /dev/zero: \(Self.reason). Check the path.")) {
      try Cassette.load(from: Self.zero)
    }
    #expect(
      throws: DoppelError("Could not read the cassette /dev/zero to lint it: \(Self.reason). Check the path.")
    ) {
      try CassetteLint.scan(fileAt: Self.zero)
    }
  }

  /// A file body larger than `Response.fileBodySizeLimit` (sparse here: 1.5 GB that take no disk)
  /// is refused without being read, for each request, with its size and the limit.
  @Test func aResponseBodyFileOverTheSizeLimitFailsTheRequest() async throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-large-\(UUID().uuidString).bin")
    #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
    defer { try? FileManager.default.removeItem(at: url) }
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: 1_500_000_000)
    try handle.close()
    let backend = quietBackend()
    backend.stub(.get("https://api.example.com/large"), .file(url))
    let message =
      "Could not read the response body file \(url.path): it is 1500000000 bytes, more than the 64 MiB a file body may be (Response.fileBodySizeLimit), since it is read whole and kept in memory. Point the stub at a smaller file, or build the body in a handler closure."
    await #expect(throws: DoppelError(message)) {
      try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/large")!))
    }
    // At the limit, the file is served.
    let atLimit = try FileHandle(forWritingTo: url)
    try atLimit.truncate(atOffset: UInt64(Response.fileBodySizeLimit))
    try atLimit.close()
    #expect(
      try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/large")!)).0.count
        == Response.fileBodySizeLimit)
  }

  @Test func aRegularFileIsReadAsBefore() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-whole-\(UUID().uuidString).txt")
    try Data("plain".utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(try WholeFile.read(url) == Data("plain".utf8))
    #expect(try Response.file(url).bodyData() == Data("plain".utf8))
  }
}
