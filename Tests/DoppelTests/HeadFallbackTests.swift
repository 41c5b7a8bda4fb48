import Doppel
import Foundation
import Testing

/// A `HEAD` on a path stubbed only for `GET` gets the head of the `GET`'s answer (RFC 9110
/// §9.3.2), through the URLSession door and the in-memory door, without using the `GET` stub up.
@Suite struct HeadFallbackTests {
  /// Sends `method` to `url` through `door` ("session" or "memory").
  private func send(
    _ backend: Backend, _ method: HTTPMethod, _ url: String, door: String
  ) async throws -> (body: String, response: HTTPURLResponse) {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method.rawValue
    if door == "memory" {
      let (data, response) = try await backend.respond(to: request)
      return (String(decoding: data, as: UTF8.self), response)
    }
    let (data, response) = try await backend.session.data(for: request)
    return (String(decoding: data, as: UTF8.self), try #require(response as? HTTPURLResponse))
  }

  @Test(arguments: ["session", "memory"])
  func headGetsTheHeadOfTheGetStubsAnswer(door: String) async throws {
    let backend = Backend(issueReporter: .ignore)
    let stub = backend.stub(.get("/breeds.json"), .text("Bengal", status: 203).header("X-Count", "1"))
    let (body, response) = try await send(backend, .head, "https://a.com/breeds.json", door: door)
    #expect(response.statusCode == 203)
    #expect(response.value(forHTTPHeaderField: "X-Count") == "1")
    #expect(response.value(forHTTPHeaderField: "Content-Length") == "6")
    #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
    #expect(body == "")
    // Journaled as the HEAD it was, with the stub that answered.
    let entry = try #require(backend.journal.last)
    #expect(entry.request.method == .head)
    #expect(entry.stub === stub)
    #expect(entry.response?.status == 203)
    #expect(backend.unmatchedRequests.isEmpty)
    // The GET that follows gets the whole answer.
    let (getBody, _) = try await send(backend, .get, "https://a.com/breeds.json", door: door)
    #expect(getBody == "Bengal")
  }

  @Test(arguments: [true, false])
  func aHeadStubWinsWhateverTheOrder(headFirst: Bool) async throws {
    let backend = Backend(issueReporter: .ignore)
    if headFirst { backend.stub(.head("/doc"), .status(204).header("X-From", "head")) }
    let get = backend.stub(.get("/doc"), .text("hello").header("X-From", "get"))
    if !headFirst { backend.stub(.head("/doc"), .status(204).header("X-From", "head")) }
    let (_, response) = try await backend.respond(to: head("https://a.com/doc"))
    #expect(response.statusCode == 204)
    #expect(response.value(forHTTPHeaderField: "X-From") == "head")
    #expect(backend.journal.last?.stub === backend.stubs.first { $0 !== get })
  }

  /// A stub for any method matches the `HEAD` itself, as before: it answers, and counts it.
  @Test func aStubForAnyMethodAnswersTheHeadItself() async throws {
    let backend = Backend(issueReporter: .ignore)
    let any = backend.stub(.path("/doc"), .text("any"))
    let get = backend.stub(.get("/doc"), .text("a GET"))
    let (_, response) = try await backend.respond(to: head("https://a.com/doc"))
    #expect(response.value(forHTTPHeaderField: "Content-Length") == "3")
    #expect(any.callCount == 1)
    #expect(get.callCount == 0)
  }

  /// The `GET` stub is looked at, not used: its call count, `times` limit and sequence step stay
  /// as they are, so each `GET` gets what it would have got without the `HEAD`s.
  @Test func headUsesNoneOfTheGetStubsCallsTimesOrSequenceSteps() async throws {
    let backend = Backend(issueReporter: .ignore)
    let poll = backend.stub(.get("/poll"), .sequence([.status(202), .status(200)]))
    var statuses: [String] = []
    for method in [HTTPMethod.head, .head, .get, .head, .get, .head] {
      let (_, response) = try await backend.respond(to: request(method, "https://a.com/poll"))
      statuses.append("\(method) \(response.statusCode)")
    }
    #expect(statuses == ["HEAD 202", "HEAD 202", "GET 202", "HEAD 200", "GET 200", "HEAD 200"])
    #expect(poll.callCount == 2)

    backend.stub(.get("/once"), .text("later"))
    let once = backend.stub(.get("/once"), .text("first!"), times: 1)
    var lengths: [String] = []
    for method in [HTTPMethod.head, .get, .head, .get] {
      let (body, response) = try await backend.respond(to: request(method, "https://a.com/once"))
      let length = response.value(forHTTPHeaderField: "Content-Length") ?? "-"
      lengths.append("\(method) \(length) \(String(decoding: body, as: UTF8.self))")
    }
    #expect(lengths == ["HEAD 6 ", "GET 6 first!", "HEAD 5 ", "GET 5 later"])
    #expect(once.callCount == 1)
  }

  /// A random failure rate draws for the `HEAD` without moving the stub's draws on: each `HEAD`
  /// gets the status the next `GET` gets, and the `GET`s get what they get without `HEAD`s.
  @Test func headLeavesAGetStubsRandomDrawsAsTheyWere() async throws {
    func backend() -> Backend {
      let backend = Backend(issueReporter: .ignore)
      backend.seed = 7
      backend.stub(.get("/flaky"), Response.ok.failing(rate: 0.5, with: .status(503)))
      return backend
    }
    let alone = backend()
    var expected: [String] = []
    for _ in 0..<12 {
      let (_, response) = try await alone.respond(to: request(.get, "https://a.com/flaky"))
      expected += ["HEAD \(response.statusCode)", "GET \(response.statusCode)"]
    }
    #expect(Set(expected) == ["HEAD 200", "GET 200", "HEAD 503", "GET 503"])
    let withHeads = backend()
    var statuses: [String] = []
    for _ in 0..<12 {
      for method in [HTTPMethod.head, .get] {
        let (_, response) = try await withHeads.respond(to: request(method, "https://a.com/flaky"))
        statuses.append("\(method) \(response.statusCode)")
      }
    }
    #expect(statuses == expected)
  }

  /// Verifications count what was sent: `.get(…)` does not count a `HEAD`, nor does the `GET`
  /// stub's expectation.
  @Test func verificationCountsTheHeadAsAHead() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/doc"), .text("hello")).expect(times: 1)
    _ = try await backend.respond(to: head("https://a.com/doc"))
    _ = try await backend.respond(to: request(.get, "https://a.com/doc"))
    _ = try await backend.respond(to: head("https://a.com/doc"))
    #expect(backend.verify().isEmpty)
    #expect(backend.requests(matching: .get("/doc")).count == 1)
    #expect(backend.requests(matching: .head("/doc")).count == 2)
    #expect(backend.requests.map(\.method) == [.head, .get, .head])
  }

  /// A closure stub runs for the `HEAD` and sees its method; a stateful stub answers only in its
  /// state, and the `HEAD` does not move the state.
  @Test func closuresSeeTheHeadAndStatesStayPut() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/echo")) { request in .text("method \(request.method)") }
    let (_, echoed) = try await backend.respond(to: head("https://a.com/echo"))
    #expect(echoed.value(forHTTPHeaderField: "Content-Length") == "11")

    backend.stub(.get("/login"), .ok).setsState("signedIn")
    backend.stub(.get("/me"), .text("me")).requiresState("signedIn")
    _ = try await backend.respond(to: head("https://a.com/login"))
    #expect(backend.state() == "initial")
    await #expect(throws: URLError.self) { try await backend.respond(to: head("https://a.com/me")) }
    _ = try await backend.respond(to: request(.get, "https://a.com/login"))
    let (_, me) = try await backend.respond(to: head("https://a.com/me"))
    #expect(me.value(forHTTPHeaderField: "Content-Length") == "2")
  }

  @Test func anUnmatchedHeadIsReportedAgainstTheGetStubs() async throws {
    let backend = Backend(issueReporter: .ignore)
    let line = #line + 1
    backend.stub(.get("/breeds.json") && .header("Accept", "application/json"), .text("[]"))
    backend.stub(.post("/orders"), .status(201))
    await #expect(throws: URLError.self) { try await backend.respond(to: head("https://a.com/breeds.json")) }
    #expect(
      backend.journal.last?.unmatchedReport == """
        No stub matched HEAD https://a.com/breeds.json
          HEAD falls back to the stubs for GET; none matched this request as a GET either.
        Closest stubs:
          1. HeadFallbackTests.swift:\(line)  GET /breeds.json, Accept: application/json
               ✓ method        GET
               ✓ path          "/breeds.json"
               ✗ header Accept expected "application/json", got absent
          2. HeadFallbackTests.swift:\(line + 1)  POST /orders
               ✗ method expected POST, got HEAD
               ✗ path   expected "/orders", got "/breeds.json"
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.head("https://a.com/breeds.json"), .status(200))
          {"request":"HEAD https://a.com/breeds.json","response":{"status":200}}
        """)
  }

  private func head(_ url: String) -> URLRequest { request(.head, url) }

  private func request(_ method: HTTPMethod, _ url: String) -> URLRequest {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method.rawValue
    return request
  }
}
