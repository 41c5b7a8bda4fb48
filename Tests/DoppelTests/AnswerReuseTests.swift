import Doppel
import Foundation
import TestSupport
import Testing

/// A stub that always gives the same in-memory response builds its answer once and reuses it for
/// the next request to the same URL. Whatever is reused, each caller must see exactly what a fresh
/// answer would give.
@Suite struct AnswerReuseTests {
  /// `respond(to:)` for a URL string, as text.
  private func respond(
    _ backend: Backend, _ url: URL, _ method: HTTPMethod = .get
  ) async throws -> (body: String, response: HTTPURLResponse) {
    var request = URLRequest(url: url)
    request.httpMethod = method.rawValue
    let (data, response) = try await backend.respond(to: request)
    return (String(decoding: data, as: UTF8.self), response)
  }

  @Test func eachURLOfATemplateStubGetsAnAnswerWithItsOwnURL() async throws {
    let backend = quietBackend()
    let stub = backend.stub(.get("https://api.example.com/items/{id}"), .text("item"))
    for id in [1, 2, 1, 1, 2] {
      let url = URL(string: "https://api.example.com/items/\(id)")!
      let (body, response) = try await respond(backend, url)
      #expect(body == "item")
      #expect(response.url == url)
      #expect(response.statusCode == 200)
      #expect(response.value(forHTTPHeaderField: "Content-Length") == "4")
      let (sessionBody, sessionResponse) = try await backend.send(.get, url.absoluteString)
      #expect(sessionBody == "item")
      #expect(sessionResponse.url == url)
    }
    #expect(stub.callCount == 10)
    #expect(backend.requests.map { $0.pathParameters["id"] } == ["1", "1", "2", "2", "1", "1", "1", "1", "2", "2"])
  }

  @Test(arguments: ["memory", "session"])
  func headAndGetToTheSameURLEachGetTheirOwnBody(door: String) async throws {
    let backend = quietBackend()
    backend.stub(.path("/doc"), .text("hello"))
    let url = URL(string: "https://a.com/doc")!
    var bodies: [String] = []
    for method in [HTTPMethod.get, .head, .get, .get, .head, .head, .get] {
      let (body, response) =
        door == "memory" ? try await respond(backend, url, method) : try await backend.send(method, url.absoluteString)
      #expect(response.value(forHTTPHeaderField: "Content-Length") == "5")
      bodies.append(body)
    }
    #expect(bodies == ["hello", "", "hello", "hello", "", "", "hello"])
  }

  @Test func aRelativeURLIsAnsweredWithItsAbsoluteForm() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://a.com/v1/items"), .text("items"))
    let relative = URL(string: "items", relativeTo: URL(string: "https://a.com/v1/")!)!
    let absolute = URL(string: "https://a.com/v1/items")!
    for url in [absolute, relative, relative, absolute] {
      let (body, response) = try await respond(backend, url)
      #expect(body == "items")
      // `URLRequest` makes its URL absolute, as URLSession does.
      #expect(response.url == absolute)
    }
  }

  /// One stub answers several URLs and both methods: a kept answer goes only to a request for the
  /// same method and URL, so each caller sees its own URL (and HEAD no body).
  @Test func aKeptAnswerIsGivenOnlyToTheSameMethodAndURL() async throws {
    let backend = quietBackend()
    backend.stub(.path(glob: "/v1/item*"), .text("x"))
    let items = URL(string: "https://a.com/v1/items")!
    let item = URL(string: "https://a.com/v1/item")!
    let relative = URL(string: "items", relativeTo: URL(string: "https://a.com/v1/")!)!
    let sequence: [(URL, HTTPMethod)] = [
      (items, .get), (item, .get), (items, .head), (relative, .get), (items, .get), (item, .head), (item, .get),
      (relative, .get),
    ]
    for (url, method) in sequence {
      let (body, response) = try await respond(backend, url, method)
      #expect(response.url == url.absoluteURL, "\(method) \(url.absoluteString)")
      #expect(body == (method == .head ? "" : "x"), "\(method) \(url.absoluteString)")
    }
  }

  @Test func theJournalShowsTheStubsResponseWithItsFinalHeaders() async throws {
    let backend = quietBackend()
    let stub = backend.stub(.get("/breeds"), .json(["breeds": []], headers: ["X-Page": "1"]))
    let url = URL(string: "https://a.com/breeds")!
    for _ in 0..<3 { _ = try await respond(backend, url) }
    let responses = backend.journal.map(\.response)
    #expect(responses.count == 3)
    for response in responses {
      #expect(response?.status == 200)
      #expect(
        response?.headers
          == ["X-Page": "1", "Content-Type": "application/json", "Content-Length": "13"])
      #expect(try response?.bodyData() == Data(#"{"breeds":[]}"#.utf8))
    }
    #expect(backend.journal.allSatisfy { $0.stub === stub })
    #expect(
      backend.journal.map(\.description)
        == Array(repeating: "GET https://a.com/breeds → 200 (\(stub.location))", count: 3))
  }

  @Test func aRedirectIsFollowedEveryTime() async throws {
    let backend = quietBackend()
    backend.stub(.get("/old"), .status(301).header("Location", "/new"))
    backend.stub(.get("/new"), .text("new"))
    for _ in 0..<3 {
      let (body, response) = try await respond(backend, URL(string: "https://a.com/old")!)
      #expect(body == "new")
      #expect(response.url == URL(string: "https://a.com/new")!)
    }
    #expect(backend.requests.map(\.url.path) == ["/old", "/new", "/old", "/new", "/old", "/new"])
  }

  @Test func aUsedUpStubHandsOverToTheOneBefore() async throws {
    let backend = quietBackend()
    backend.stub(.get("/a"), .text("older"))
    let newer = backend.stub(.get("/a"), .text("newer"), times: 2)
    let url = URL(string: "https://a.com/a")!
    var bodies: [String] = []
    for _ in 0..<4 { bodies.append(try await respond(backend, url).body) }
    #expect(bodies == ["newer", "newer", "older", "older"])
    #expect(newer.isExhausted)
  }

  @Test func aStatefulStubAnswersOnlyInItsState() async throws {
    let backend = quietBackend()
    backend.stub(.get("/me"), .status(401))
    let me = backend.stub(.get("/me"), .text("me")).requiresState("in").expect(times: 2).setsState("seen")
    #expect(me.requiredState == "in")
    #expect(me.nextState == "seen")
    #expect(me.expectedCalls == 2...2)
    let url = URL(string: "https://a.com/me")!
    #expect(try await respond(backend, url).response.statusCode == 401)
    backend.setState("in")
    #expect(try await respond(backend, url).body == "me")
    #expect(backend.state() == "seen")
    #expect(try await respond(backend, url).response.statusCode == 401)
    backend.setState("in")
    #expect(try await respond(backend, url).body == "me")
    #expect(me.callCount == 2)
    #expect(backend.verify().isEmpty)
  }

  @Test func aRemovedStubIsNoLongerReused() async throws {
    let backend = quietBackend()
    let first = backend.stub(.get("/a"), .text("first"))
    let second = backend.stub(.get("/a"), .text("second"))
    let third = backend.stub(.get("/a"), .text("third"))
    let url = URL(string: "https://a.com/a")!
    #expect(try await respond(backend, url).body == "third")
    second.remove()
    #expect(try await respond(backend, url).body == "third")
    third.remove()
    #expect(try await respond(backend, url).body == "first")
    first.remove()
    await expectURLError(.resourceUnavailable) { _ = try await respond(backend, url) }
  }
}
