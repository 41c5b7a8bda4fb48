import Doppel
import Foundation
import TestSupport
import Testing

/// Backends in parallel never see each other's stubs, however many requests are in flight.
@Suite struct IsolationTests {
  /// Many tests in parallel, each with its own backend stubbing the same URLs differently.
  @Test(arguments: 0..<24)
  func parallelBackendsNeverSeeEachOthersStubs(index: Int) async throws {
    let backend = quietBackend()
    backend.stub(.get("https://api.example.com/breeds.json"), .text("breeds \(index)"))
    backend.stub(.get("/users/{id}")) { request in .text("user \(request.pathParameters["id"]!) of \(index)") }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for request in 0..<16 {
        group.addTask {
          if request.isMultiple(of: 2) {
            let (body, _) = try await backend.send(.get, "https://api.example.com/breeds.json")
            #expect(body == "breeds \(index)")
          } else {
            let (body, _) = try await backend.send(.get, "https://api.example.com/users/\(request)")
            #expect(body == "user \(request) of \(index)")
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(backend.requests.count == 16)
  }

  @Test func hundredsOfConcurrentRequestsAcrossBackends() async throws {
    let backends = (0..<8).map { index in
      let backend = quietBackend()
      backend.stub(.get("https://api.example.com/same"), .text("backend \(index)"))
      return backend
    }
    try await withThrowingTaskGroup(of: (Int, String).self) { group in
      for request in 0..<400 {
        let index = request % backends.count
        group.addTask { (index, try await backends[index].send(.get, "https://api.example.com/same").body) }
      }
      for try await (index, body) in group { #expect(body == "backend \(index)") }
    }
    #expect(backends.map(\.requests.count) == Array(repeating: 50, count: 8))
  }

  /// While a backend intercepts `URLSession.shared`, the shared session reaches it alone, and each
  /// backend's own session reaches only its own stubs.
  @Test func theSharedSessionAndEachBackendsSessionReachTheirOwnBackend() async throws {
    let url = URL(string: "https://api.example.com/who")!
    let a = quietBackend()
    let b = quietBackend()
    a.stub(.get(url.absoluteString), .text("a"))
    b.stub(.get(url.absoluteString), .text("b"))
    func text(_ session: URLSession) async throws -> String {
      String(decoding: try await session.data(from: url).0, as: UTF8.self)
    }
    let texts = try await Backend.withProcessWideBackend(issueReporter: .ignore) { shared in
      shared.stub(.get(url.absoluteString), .text("shared"))
      return [try await text(URLSession.shared), try await text(a.session), try await text(b.session)]
    }
    #expect(texts == ["shared", "a", "b"])
    #expect(a.requests.count == 1)
    #expect(b.requests.count == 1)
  }
}
