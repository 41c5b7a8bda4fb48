import Foundation
import TestHTTPServer
import Testing

@testable import DoppelCore

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An upstream's answer too large to hold is spooled to a temporary file, deleted when its last
/// holder goes away. A tool that ends first (Ctrl-C while an answer is being spooled or sent:
/// `doppel record` left a 1 GiB file behind) deletes what is left with `SpoolFiles.deleteAll()`.
/// Internal: the spool is no public API, and no test of the public API can end a process midway.
@Suite struct SpoolFilesTests {
  @Test func aToolThatEndsDeletesTheSpoolFilesStillHeld() async throws {
    let server = try TestHTTPServer.start { _ in
      TestHTTPServer.Response(
        status: 200, headers: [("Content-Type", "application/octet-stream")], body: Data(repeating: 7, count: 64 << 10))
    }
    defer { server.stop() }
    let session = UpstreamFetch.makeSession()
    defer { session.invalidateAndCancel() }
    // Beyond a memory limit of 1 KiB, the answer goes to a spool file.
    let (_, body) = try await UpstreamFetch.fetch(
      URLRequest(url: server.baseURL.appendingPathComponent("large")), through: session, memoryLimit: 1 << 10)
    let spool = try #require(body.spool)
    #expect(spool.length == 64 << 10)
    #expect(FileManager.default.fileExists(atPath: spool.url.path))
    // The answer is still held (by a journal entry, a connection still sending it): the tool ends.
    SpoolFiles.deleteAll()
    #expect(!FileManager.default.fileExists(atPath: spool.url.path))
    withExtendedLifetime(spool) {}
  }
}
