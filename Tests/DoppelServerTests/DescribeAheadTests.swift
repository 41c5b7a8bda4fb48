#if Server
  import TestSupport
  import Doppel
  import Foundation
  import Testing
  @_spi(DoppelInternals) import DoppelToolkit

  @testable import DoppelServer

  /// Issue 48, point 2: once the dashboard has read its list, the server describes (redacts) the
  /// rest of the journal's newest entries on a thread of its own, so that the next filter or
  /// search reads kept descriptions instead of redacting on the event loop.
  @Suite(.timeLimit(.minutes(1))) struct DescribeAheadTests {
    /// 40 requests, every fourth one no stub answers, the last carrying a token in its query.
    private func journal() async -> Backend {
      let backend = quietBackend()
      backend.stub(.get("/ok"), .status(204))
      for index in 0..<40 {
        var request = URLRequest(url: URL(string: "https://api.example.com/ok?n=\(index)")!)
        if index % 4 == 0 { request.url = URL(string: "https://api.example.com/missing?n=\(index)")! }
        if index == 39 { request.url = URL(string: "https://api.example.com/ok?access_token=s3cr3t-v4lu3")! }
        _ = try? await backend.respond(to: request)
      }
      return backend
    }

    private func waitForThePass(_ controller: AdminController, _ backend: Backend) async {
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        controller.describeAhead(backend) { done.resume() }
      }
    }

    @Test func readingTheListDescribesEveryAnsweredEntryRedacted() async throws {
      let backend = await journal()
      let controller = AdminController(settings: StubServer.AdminAPI(), scheme: "http")
      let answer = try controller.requests([URLQueryItem(name: "last", value: "3")], backend)
      #expect(answer.status == 200)
      await waitForThePass(controller, backend)
      let kept = controller.descriptions.withLock { $0.kept }
      #expect(kept.count == 40)
      #expect(kept[39]?.description["url"] == "https://api.example.com/ok?access_token=REDACTED")
      #expect(kept[0]?.description["status"] == 404)
      // A search reads them: the same answer as describing each again.
      let found = try controller.requests(
        [URLQueryItem(name: "last", value: "200"), URLQueryItem(name: "text", value: "missing")], backend)
      guard case .array(let rows)? = found.body["requests"] else {
        Issue.record("no requests in \(found.body)")
        return
      }
      #expect(rows.count == 10)
      #expect(found.body["matches"] == 10)
    }

    @Test func readingOlderRowsOrAPageDoesNotStartAPass() async throws {
      let backend = await journal()
      let controller = AdminController(settings: StubServer.AdminAPI(), scheme: "http")
      _ = try controller.requests(
        [URLQueryItem(name: "last", value: "3"), URLQueryItem(name: "before", value: "10")], backend)
      _ = try controller.requests([URLQueryItem(name: "limit", value: "2")], backend)
      // Only the rows read were described: 3 before entry 10, then entries 0 and 1.
      #expect(controller.descriptions.withLock { $0.kept.keys.sorted() } == [0, 1, 7, 8, 9])
    }
  }
#endif
