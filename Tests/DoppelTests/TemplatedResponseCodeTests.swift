import Doppel
import Foundation
import TestSupport
import Testing

/// `Response.templated(seed:)`: templates from code, in sequences, and sent by DoppelRemote.
@Suite(.timeLimit(.minutes(2))) struct TemplatedResponseCodeTests {
  @Test func aTemplateFromCodeFillsTheBodyAndHeaders() async throws {
    let backend = quietBackend()
    backend.stub(
      .get("https://api.example.com/users/{id}"),
      Response.json(raw: #"{"id": "{{path.id}}", "q": "{{query.q}}"}"#).header("Location", "/users/{{path.id}}")
        .header("Cache-Control", "no-store").templated())
    let (body, response) = try await backend.send(.get, #"https://api.example.com/users/7?q=a%22b"#)
    #expect(body == #"{"id": "7", "q": "a\"b"}"#)
    #expect(response.value(forHTTPHeaderField: "Location") == "/users/7")
    #expect(response.value(forHTTPHeaderField: "Cache-Control") == "no-store")
    #expect(response.value(forHTTPHeaderField: "Content-Length") == "\(body.utf8.count)")
  }

  @Test func templatesInASequenceKeepTheirDelaysAndFailureRates() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(
      .get("https://api.example.com/orders/{id}"),
      .sequence([
        Response.text("created {{path.id}}", status: 201).templated().delayed(by: .seconds(2)),
        Response.text("seen {{path.id}} {{random.1-6}}").templated(seed: 3).failing(rate: 0, with: .status(500)),
      ]))
    let load = Task { try await backend.send(.get, "https://api.example.com/orders/9") }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(2))
    #expect(try await load.value.body == "created 9")
    let second = try await backend.send(.get, "https://api.example.com/orders/9").body
    #expect(second.hasPrefix("seen 9 "))
  }

  /// A template that repeats the request's body a thousand times over an 8 MiB body (8 GB filled
  /// in) stops at the 16 MiB cap, as soon as it reaches it: the request fails with the stub, the
  /// cap and the fix, and the process keeps its memory.
  @Test func aTemplatedAnswerStopsAtTheSizeCap() async throws {
    let backend = quietBackend()
    let line = #line + 1
    backend.stub(
      .post("https://api.example.com/echo"), Response.text(String(repeating: "{{body}}", count: 1000)).templated())
    var request = URLRequest(url: URL(string: "https://api.example.com/echo")!)
    request.httpMethod = "POST"
    request.httpBody = Data(repeating: UInt8(ascii: "a"), count: 8 * 1024 * 1024)
    let error = await #expect(throws: DoppelError.self) { try await backend.respond(to: request) }
    #expect(
      error?.message
        == "The stub declared at TemplatedResponseCodeTests.swift:\(line) (POST https://api.example.com/echo) has a templated answer that would be larger than 16 MiB, the cap on a generated answer; rendering stopped there. Repeat large values ({{body}}, {{json./…}}) fewer times in the template, or answer with a fixed body or a file."
    )
    // Below the cap, the same template answers in full.
    request.httpBody = Data(repeating: UInt8(ascii: "a"), count: 1024)
    #expect(try await backend.respond(to: request).0.count == 1000 * 1024)
  }

  @Test func anUnknownVariableMakesTheStubInvalid() {
    let collector = IssueCollector()
    let backend = Backend(issueReporter: collector.reporter)
    backend.stub(.get("/a"), Response.text("{{pth}}").templated())
    #expect(
      collector.all.map(\.message) == [
        #"Invalid stub: The template body "{{pth}}": unknown template variable "{{pth}}". Did you mean "path"? The variables are: method, url, path, body, path.NAME, query.NAME, header.NAME, json./POINTER, now, now.FORMAT, uuid, random, random.MIN-MAX."#
      ])
  }

  @Test func doppelRemoteSendsATemplateThatServesTheSame() async throws {
    let response = Response.json(raw: #"{"id": "{{path.id}}", "n": "{{random.1-1000}}"}"#).templated(seed: 7)
    let wire = try Responder.response(response).manifestResponse()
    #expect(
      wire == ["status": 200, "json": ["id": "{{path.id}}", "n": "{{random.1-1000}}"], "template": ["seed": 7]])
    let stub: JSONValue = ["request": "GET https://api.example.com/users/{id}", "response": wire]
    let definition = try StubDefinition(
      parsing: try JSONEncoder().encode(stub), source: "request body", directory: URL(fileURLWithPath: "/tmp"))
    let remote = quietBackend()
    remote.register(definition)
    let local = quietBackend()
    local.stub(.get("https://api.example.com/users/{id}"), response)
    for _ in 0..<3 {
      let there = try await remote.send(.get, "https://api.example.com/users/5").body
      let here = try await local.send(.get, "https://api.example.com/users/5").body
      #expect(try JSONValue(parsing: Data(there.utf8)) == JSONValue(parsing: Data(here.utf8)))
    }
    #expect(
      try Responder.response(Response.text("hi {{method}}").templated()).manifestResponse()
        == ["status": 200, "text": "hi {{method}}", "contentType": "text/plain; charset=utf-8", "template": true])
  }
}
