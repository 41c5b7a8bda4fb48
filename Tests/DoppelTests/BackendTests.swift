import Doppel
import Foundation
import TestSupport
import Testing

@Suite struct BackendTests {
  @Test func stubbedStatusHeadersAndBodyReachTheCaller() async throws {
    let backend = quietBackend()
    backend.stub(
      .get("https://api.example.com/breeds.json"),
      .json(
        ["name": "Abyssinian"], status: 203, headers: ["X-Request-ID": "7", "Set-Cookie": "a=1", "Set-Cookie": "b=2"]))
    let (body, response) = try await backend.send(.get, "https://api.example.com/breeds.json")
    #expect(body == #"{"name":"Abyssinian"}"#)
    #expect(response.statusCode == 203)
    #expect(response.value(forHTTPHeaderField: "x-request-id") == "7")
    #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
    #expect(response.value(forHTTPHeaderField: "Content-Length") == "21")
    #expect(response.value(forHTTPHeaderField: "Set-Cookie") == "a=1, b=2")
    #expect(response.url?.absoluteString == "https://api.example.com/breeds.json")
  }

  @Test func sameURLDifferentMethods() async {
    let backend = quietBackend()
    backend.stub(.get("/orders"), .text("list"))
    backend.stub(.post("/orders"), .text("created", status: 201))
    backend.stub(.delete("/orders"), .status(204))
    #expect(await backend.outcome(.get, "https://a.com/orders") == "200 list")
    #expect(await backend.outcome(.post, "https://a.com/orders", body: "{}") == "201 created")
    #expect(await backend.outcome(.delete, "https://a.com/orders") == "204 ")
    #expect(await backend.outcome(.put, "https://a.com/orders") == "URLError -1008")
  }

  @Test func templatesPassCapturesToTheHandler() async throws {
    struct User: Codable { let id: String }
    let backend = quietBackend()
    backend.stub(.get("/users/{id}")) { request in .json(User(id: request.pathParameters["id"]!)) }
    let (body, _) = try await backend.send(.get, "https://api.example.com/users/42")
    #expect(body == #"{"id":"42"}"#)
    #expect(backend.journal.first?.request.pathParameters == ["id": "42"])
  }

  @Test func laterStubsTakePrecedence() async {
    let backend = quietBackend()
    backend.stub(.get("/breeds.json"), .text("default"))
    backend.stub(.host("api.example.com"), .text("host-wide"))
    #expect(await backend.outcome(.get, "https://api.example.com/breeds.json") == "200 host-wide")
    backend.stub(.get("https://api.example.com/breeds.json"), .text("override"))
    #expect(await backend.outcome(.get, "https://api.example.com/breeds.json") == "200 override")
    backend.stub(.method(.get), .text("catch-all"))
    #expect(await backend.outcome(.get, "https://api.example.com/breeds.json") == "200 catch-all")
  }

  @Test func sequencesRepeatTheLastByDefault() async {
    let backend = quietBackend()
    backend.stub(.get("/flaky"), .sequence([.status(503), .text("ok")]))
    var outcomes: [String] = []
    for _ in 0..<4 { outcomes.append(await backend.outcome(.get, "https://a.com/flaky")) }
    #expect(outcomes == ["503 ", "200 ok", "200 ok", "200 ok"])
  }

  @Test func sequencesCanCycle() async {
    let backend = quietBackend()
    backend.stub(.get("/poll"), .sequence([.text("a"), .text("b")], then: .cycle))
    var outcomes: [String] = []
    for _ in 0..<5 { outcomes.append(await backend.outcome(.get, "https://a.com/poll")) }
    #expect(outcomes == ["200 a", "200 b", "200 a", "200 b", "200 a"])
  }

  @Test func sequencesCanFailAfterTheLast() async throws {
    let backend = quietBackend()
    let line = #line + 1
    backend.stub(.get("/once"), .sequence([.text("a")], then: .fail))
    #expect(await backend.outcome(.get, "https://a.com/once") == "200 a")
    do {
      _ = try await backend.send(.get, "https://a.com/once")
      Issue.record("expected a failure")
    } catch let error as URLError {
      #expect(error.code == .resourceUnavailable)
      #expect(
        error.localizedDescription
          == "The stub declared at BackendTests.swift:\(line) (GET /once) answered all 1 responses of its sequence; this was call 2. Add responses, or use .sequence(_:then: .repeatLast) or .cycle."
      )
    }
  }

  @Test func timesLimitThenEarlierStubsAnswer() async {
    let backend = quietBackend()
    backend.stub(.get("/token"), .text("fallback"))
    let limited = backend.stub(.get("/token"), .text("fresh"), times: 2)
    var outcomes: [String] = []
    for _ in 0..<3 { outcomes.append(await backend.outcome(.get, "https://a.com/token")) }
    #expect(outcomes == ["200 fresh", "200 fresh", "200 fallback"])
    #expect(limited.callCount == 2)
    #expect(limited.isExhausted)
  }

  @Test func removingAStubThroughItsHandle() async {
    let backend = quietBackend()
    backend.stub(.get("/x"), .text("base"))
    let handle = backend.stub(.get("/x"), .text("override"))
    #expect(await backend.outcome(.get, "https://a.com/x") == "200 override")
    handle.remove()
    handle.remove()
    #expect(handle.isRemoved)
    #expect(await backend.outcome(.get, "https://a.com/x") == "200 base")
    #expect(handle.callCount == 1)
    #expect(backend.stubs.count == 1)
    backend.removeAllStubs()
    #expect(await backend.outcome(.get, "https://a.com/x") == "URLError -1008")
  }

  @Test func errorsReachTheCallerAsURLErrors() async {
    let backend = quietBackend()
    backend.stub(.host("cdn.example.com"), .error(.notConnectedToInternet))
    backend.stub(.get("/slow"), .error(.timedOut))
    #expect(
      await backend.outcome(.get, "https://cdn.example.com/cat.png")
        == "URLError \(URLError.Code.notConnectedToInternet.rawValue)")
    #expect(await backend.outcome(.get, "https://a.com/slow") == "URLError \(URLError.Code.timedOut.rawValue)")
  }

  @Test func handlerErrorsReachTheCaller() async {
    let backend = quietBackend()
    backend.stub(.get("/boom")) { _ in throw URLError(.cannotParseResponse) }
    #expect(
      await backend.outcome(.get, "https://a.com/boom") == "URLError \(URLError.Code.cannotParseResponse.rawValue)")
  }

  @Test func aBackendThatIsGoneFailsItsSessionClearly() async throws {
    var backend: Backend? = quietBackend()
    let session = backend!.session
    backend = nil
    do {
      _ = try await session.data(from: URL(string: "https://a.com/x")!)
      Issue.record("expected a failure")
    } catch let error as URLError {
      #expect(error.code == .resourceUnavailable)
      #expect(
        error.localizedDescription
          == "The Doppel backend that made this session no longer exists, so GET https://a.com/x cannot be answered. Keep a reference to the Backend for as long as its sessions are used."
      )
    }
  }

  @Test func configurationKeepsTheUsersSettings() async throws {
    let backend = quietBackend()
    backend.stub(.get("/x") && .header("X-App", "catfancy"), .text("seen"))
    let base = URLSessionConfiguration.ephemeral
    base.timeoutIntervalForRequest = 12
    let configuration = backend.configuration(basedOn: base)
    #expect(configuration.timeoutIntervalForRequest == 12)
    let session = URLSession(configuration: configuration)
    var request = URLRequest(url: URL(string: "https://a.com/x")!)
    request.setValue("catfancy", forHTTPHeaderField: "X-App")
    let (data, _) = try await session.data(for: request)
    #expect(String(decoding: data, as: UTF8.self) == "seen")
  }
}
