import Doppel
import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct RedirectTests {
  @Test func aRelativeRedirectIsFollowedToTheFinalResponse() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://a.com/old"), .redirect(to: "/new", status: 301))
    backend.stub(.get("https://a.com/new"), .text("moved here"))
    let (data, response) = try await backend.session.data(from: URL(string: "https://a.com/old")!)
    #expect(String(decoding: data, as: UTF8.self) == "moved here")
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(response.url?.absoluteString == "https://a.com/new")
    #expect(backend.requests.map(\.url.absoluteString) == ["https://a.com/old", "https://a.com/new"])
  }

  @Test func postBecomesGetOn302And303ButNotOn307And308() async throws {
    let backend = quietBackend()
    for status in [301, 302, 303, 307, 308] {
      backend.stub(.post("/submit/\(status)"), .redirect(to: "https://b.com/landing/\(status)", status: status))
    }
    backend.stub(.url("/landing/{status}")) { request in
      .text("\(request.method) \(request.bodyText ?? "no body")")
    }
    var results: [String] = []
    for status in [301, 302, 303, 307, 308] {
      results.append(try await backend.send(.post, "https://a.com/submit/\(status)", body: Data("form".utf8)).body)
    }
    #expect(results == ["GET no body", "GET no body", "GET no body", "POST form", "POST form"])
  }

  /// A server's header values reach the caller without the spaces around them, as HTTP parsers
  /// read them (found by the conformance suite's "header value with surrounding spaces").
  @Test func headerValuesLoseTheSpacesAroundThem() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://a.com/spaces"), .text("ok").header("X-Spaced", " \t inner  value  "))
    let url = URL(string: "https://a.com/spaces")!
    let (_, response) = try await backend.session.data(from: url)
    #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Spaced") == "inner  value")
    let (_, direct) = try await backend.respond(to: URLRequest(url: url))
    #expect(direct.value(forHTTPHeaderField: "X-Spaced") == "inner  value")
  }

  /// URLSession refuses a GET with a body before sending it; so do the URLSession and in-memory
  /// doors (found by the conformance suite's "GET with a body").
  @Test func aGetWithABodyIsRefusedAsURLSessionRefusesIt() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://a.com/search"), .text("found"))
    var request = URLRequest(url: URL(string: "https://a.com/search")!)
    request.httpBody = Data("q=cats".utf8)
    let message =
      "GET https://a.com/search has a body, and URLSession refuses a GET with a body (URLError.dataLengthExceedsMaximum) without sending it. Send the data in the query, or use POST."
    let throughSession = await #expect(throws: URLError.self) { try await backend.session.data(for: request) }
    #expect(throughSession?.code == .dataLengthExceedsMaximum)
    #expect(throughSession?.localizedDescription == message)
    let inMemory = await #expect(throws: URLError.self) { try await backend.respond(to: request) }
    #expect(inMemory?.code == .dataLengthExceedsMaximum)
    #expect(backend.requests.isEmpty)
    request.httpBody = nil
    #expect(try await backend.respond(to: request).0 == Data("found".utf8))
  }

  @Test func aRedirectLoopFailsWithTooManyRedirects() async {
    let backend = quietBackend()
    backend.stub(.get("/a"), .redirect(to: "/b"))
    backend.stub(.get("/b"), .redirect(to: "/a"))
    #expect(await backend.outcome(.get, "https://a.com/a") == "URLError \(URLError.Code.httpTooManyRedirects.rawValue)")
    // The first request and 16 redirects, as URLSession follows them against a real server.
    #expect(backend.requests.count == 17)
  }

  @Test func followingCanBeTurnedOff() async throws {
    let backend = quietBackend()
    backend.stub(.get("/old"), .redirect(to: "/new").notFollowed())
    backend.stub(.get("/other"), .redirect(to: "/new", status: 308))
    backend.stub(.get("/new"), .text("new"))
    let (_, response) = try await backend.send(.get, "https://a.com/old")
    #expect(response.statusCode == 302)
    #expect(response.value(forHTTPHeaderField: "Location") == "/new")
    backend.followsRedirects = false
    #expect(try await backend.send(.get, "https://a.com/other").response.statusCode == 308)
  }

  @Test func redirectLatencyAddsUp() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/old"), Response.redirect(to: "/new").delayed(by: .seconds(1)))
    backend.stub(.get("/new"), .text("new").delayed(by: .seconds(2)))
    let load = Task { try await backend.session.data(from: URL(string: "https://a.com/old")!) }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(2))
    #expect(clock.sleeperCount == 1)
    clock.advance(by: .seconds(1))
    #expect(String(decoding: try await load.value.0, as: UTF8.self) == "new")
  }
}

@Suite(.timeLimit(.minutes(2))) struct CookieTests {
  @Test func aStubbedSetCookieLandsInTheSessionsStorageAndIsSentBack() async throws {
    let backend = quietBackend()
    backend.stub(.post("/login"), .status(204).header("Set-Cookie", "session=abc123; Path=/"))
    backend.stub(.get("/me"), .status(401))
    backend.stub(.get("/me") && .header("Cookie", "session=abc123"), .text("signed in"))
    let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "doppel-\(UUID())")
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = storage
    let session = backend.makeSession(configuration: configuration)
    var login = URLRequest(url: URL(string: "https://api.example.com/login")!)
    login.httpMethod = "POST"
    _ = try await session.data(for: login)
    #expect(storage.cookies(for: URL(string: "https://api.example.com/")!)?.map(\.value) == ["abc123"])
    let (data, _) = try await session.data(from: URL(string: "https://api.example.com/me")!)
    #expect(String(decoding: data, as: UTF8.self) == "signed in")
  }

  @Test func cookiesAreNotStoredWhenTheSessionRefusesThem() async throws {
    let backend = quietBackend()
    backend.stub(.get("/set"), .status(204).header("Set-Cookie", "a=1"))
    let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "doppel-\(UUID())")
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = storage
    configuration.httpShouldSetCookies = false
    _ = try await backend.makeSession(configuration: configuration).data(from: URL(string: "https://a.com/set")!)
    #expect(storage.cookies?.isEmpty ?? true)
  }
}

@Suite(.timeLimit(.minutes(2))) struct AuthenticationTests {
  /// On Linux FoundationNetworking never completes a 401 carrying `WWW-Authenticate` (and crashes
  /// on one without a realm), so the challenge is delivered as `X-Doppel-WWW-Authenticate` there.
  @Test func a401WithAChallengeCompletes() async throws {
    let backend = quietBackend()
    backend.stub(.get("/private"), .text("no", status: 401).header("WWW-Authenticate", "Basic realm=\"cats\""))
    backend.stub(.get("/bearer"), .status(401).header("WWW-Authenticate", "Bearer"))
    let (body, response) = try await backend.send(.get, "https://a.com/private")
    #expect(body == "no")
    #expect(response.statusCode == 401)
    #if canImport(FoundationNetworking)
      #expect(response.value(forHTTPHeaderField: "WWW-Authenticate") == nil)
      #expect(response.value(forHTTPHeaderField: "X-Doppel-WWW-Authenticate") == "Basic realm=\"cats\"")
    #else
      #expect(response.value(forHTTPHeaderField: "WWW-Authenticate") == "Basic realm=\"cats\"")
    #endif
    #expect(try await backend.send(.get, "https://a.com/bearer").response.statusCode == 401)
    #expect(backend.journal[0].response?.headers["WWW-Authenticate"] == "Basic realm=\"cats\"")
  }
}

@Suite(.timeLimit(.minutes(2))) struct StatefulStubTests {
  @Test func meIsUnauthorizedUntilLogin() async {
    let backend = quietBackend()
    backend.stub(.get("/me"), .status(401))
    backend.stub(.post("/login"), .status(200)).setsState("loggedIn")
    backend.stub(.get("/me"), .text("me")).requiresState("loggedIn")
    backend.stub(.post("/logout"), .status(204)).requiresState("loggedIn").setsState("initial")
    #expect(await backend.outcome(.get, "https://a.com/me") == "401 ")
    #expect(await backend.outcome(.post, "https://a.com/login", body: "{}") == "200 ")
    #expect(backend.state() == "loggedIn")
    #expect(await backend.outcome(.get, "https://a.com/me") == "200 me")
    #expect(await backend.outcome(.post, "https://a.com/logout", body: "") == "204 ")
    #expect(await backend.outcome(.get, "https://a.com/me") == "401 ")
  }

  @Test func onlyOneConcurrentRequestWinsATransition() async throws {
    let backend = quietBackend()
    backend.stub(.post("/claim"), .text("lost", status: 409))
    backend.stub(.post("/claim"), .text("won")).requiresState("initial").setsState("claimed")
    let results = try await withThrowingTaskGroup(of: String.self) { group in
      for _ in 0..<50 { group.addTask { try await backend.send(.post, "https://a.com/claim", body: Data()).body } }
      return try await group.reduce(into: [String]()) { $0.append($1) }
    }
    #expect(results.filter { $0 == "won" }.count == 1)
    #expect(results.filter { $0 == "lost" }.count == 49)
  }

  @Test func theNearMissReportShowsTheStateMismatch() async {
    let backend = quietBackend()
    let line = #line + 1
    backend.stub(.get("/me"), .text("me")).requiresState("loggedIn")
    _ = await backend.outcome(.get, "https://a.com/me")
    #expect(
      backend.journal[0].unmatchedReport == """
        No stub matched GET https://a.com/me
        Closest stubs:
          1. FidelityTests.swift:\(line)  GET /me
               ✓ method GET
               ✓ path   "/me"
               ✗ state  expected loggedIn, got initial
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://a.com/me"), .status(200))
          {"request":"GET https://a.com/me","response":{"status":200}}
        """)
  }
}
