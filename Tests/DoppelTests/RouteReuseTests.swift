import Doppel
import Foundation
import Testing

/// Route numbers (and the URLProtocol classes they stand for) are reused once nothing can send
/// through them, so memory stays flat over a long suite (the benchmarks' memory check fails when
/// they are not); a session or configuration that outlives its backend never reaches a new one,
/// and a reused cookie storage starts empty.
@Suite struct RouteReuseTests {
  static let url = URL(string: "https://api.example.com/a")!

  @Test func aSessionThatOutlivesItsBackendNeverReachesANewOne() async throws {
    var backend: Backend? = Backend(issueReporter: .ignore)
    backend?.stub(.get("/a"), .text("old"))
    let kept = try #require(backend?.session)
    #expect(String(decoding: try await kept.data(from: Self.url).0, as: UTF8.self) == "old")
    backend = nil
    // Many new backends, all answering the same URL: none may answer the kept session.
    var others: [Backend] = []
    for _ in 0..<200 {
      let other = Backend(issueReporter: .ignore)
      other.stub(.get("/a"), .text("new"))
      _ = try await other.session.data(from: Self.url)
      others.append(other)
    }
    let error = await #expect(throws: URLError.self) { _ = try await kept.data(from: Self.url) }
    #expect(error?.code == .resourceUnavailable)
    #expect(
      error?.localizedDescription
        == "The Doppel backend that made this session no longer exists, so GET https://api.example.com/a cannot be answered. Keep a reference to the Backend for as long as its sessions are used."
    )
    #expect(others.allSatisfy { $0.requests.count == 1 })
  }

  @Test func aConfigurationHandedOutIsNeverReused() async throws {
    var backend: Backend? = Backend(issueReporter: .ignore)
    backend?.stub(.get("/a"), .text("old"))
    let configuration = try #require(backend?.configuration)
    backend = nil
    var others: [Backend] = []
    for _ in 0..<200 {
      let other = Backend(issueReporter: .ignore)
      other.stub(.get("/a"), .text("new"))
      _ = try await other.session.data(from: Self.url)
      others.append(other)
    }
    // A session made later from the old configuration still fails clearly.
    let late = URLSession(configuration: configuration)
    let error = await #expect(throws: URLError.self) { _ = try await late.data(from: Self.url) }
    #expect(error?.code == .resourceUnavailable)
    #expect(others.allSatisfy { $0.requests.count == 1 })
  }

  #if canImport(FoundationNetworking)
    /// `backend.session`'s cookie storage is reused once its backend and session are gone (making
    /// a new one costs more than a small test), emptied: no cookie of one test reaches the next.
    /// (Linux only: on Apple platforms each session gets a new storage, and nothing is reused.)
    @Test func cookieStoragesAreReusedEmpty() async throws {
      for index in 0..<200 {
        let backend = Backend(issueReporter: .ignore)
        backend.stub(.get("/a"), .text("ok").header("Set-Cookie", "visit=\(index); Path=/"))
        let session = backend.session
        #expect(session.configuration.urlCache == nil)
        let storage = try #require(session.configuration.httpCookieStorage)
        #expect(storage.cookies?.isEmpty ?? true)
        _ = try await session.data(from: Self.url)
        _ = try await session.data(from: Self.url)
        // The second request carries this test's cookie, and only it.
        #expect(backend.requests.first?.headers["Cookie"] == nil)
        #expect(backend.requests.last?.headers["Cookie"] == "visit=\(index)")
      }
    }

    @Test func aCookieStorageSomeoneStillHoldsIsNeverReused() async throws {
      var kept: [HTTPCookieStorage] = []
      for _ in 0..<100 {
        let backend = Backend(issueReporter: .ignore)
        backend.stub(.get("/a"), .ok)
        let storage = try #require(backend.session.configuration.httpCookieStorage)
        #expect(!kept.contains { $0 === storage })
        kept.append(storage)
        _ = try await backend.session.data(from: Self.url)
      }
    }
  #endif

  @Test func aConfigurationCopiedWhileInterceptingProcessWideNeverReachesANewBackend() async throws {
    // Copies of URLSession.shared's configuration made while it intercepted hold that backend's
    // route; once it is gone, none of the backends made later may answer through them. (Such a
    // copy then behaves as URLSession.shared does again: the URL is a closed loopback port.)
    // The session is made inside: on Linux `URLSession.shared.configuration` is the shared
    // session's live object, which lists whichever backend intercepts when it is read.
    let url = URL(string: "http://127.0.0.1:1/a")!
    let copied = try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
      backend.stub(.get(url.absoluteString), .text("old"))
      return URLSession(configuration: URLSession.shared.configuration)
    }
    var others: [Backend] = []
    for _ in 0..<300 {
      let other = Backend(issueReporter: .ignore)
      other.stub(.get(url.absoluteString), .text("new"))
      others.append(other)
    }
    let answer = try? await copied.data(from: url).0
    #expect(answer == nil)
    #expect(others.allSatisfy { $0.requests.isEmpty })
  }
}
