#if canImport(XCTest)
  import Foundation
  import TestHTTPServer
  import XCTest

  import DoppelTesting

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// `URLSession.shared` answered by a stub from an XCTest case, in the same run as the Swift
  /// Testing tests that use it too (they take turns through `withProcessWideBackend`).
  final class ProcessWideXCTests: XCTestCase {
    func testURLSessionSharedIsAnsweredByTheStubInAnXCTestCase() async throws {
      let server = try TestHTTPServer.start { _ in .text("from the server") }
      defer { server.stop() }
      let url = server.baseURL.appending(path: "breeds.json")
      // Sessions exist already, as they do once other tests have run.
      _ = URLSession(configuration: .ephemeral)
      _ = URLSession.shared

      let body = try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
        backend.stub(.get(url.absoluteString), .text("from the stub"))
        let (data, _) = try await URLSession.shared.data(from: url)
        XCTAssertEqual(backend.requests.count, 1)
        return String(decoding: data, as: UTF8.self)
      }
      XCTAssertEqual(body, "from the stub")
      XCTAssertTrue(server.requests.isEmpty)
    }
  }
#endif
