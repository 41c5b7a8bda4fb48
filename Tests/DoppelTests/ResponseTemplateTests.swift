import Doppel
import Foundation
import Testing

/// Templated responses: `"template": true` fills in `{{variables}}` from each request.
@Suite struct ResponseTemplateTests {
  private let url = URL(fileURLWithPath: "/tmp/doppel.json")

  private func backend(_ stubs: String, clock: any Clock<Duration> = ContinuousClock()) throws -> Backend {
    let manifest = try Manifest(data: Data(#"{"stubs": [\#(stubs)]}"#.utf8), url: url)
    return try Backend(manifest: manifest, scenario: .base, issueReporter: .ignore, clock: clock)
  }

  @Test func requestPartsFillTheBodyAndHeaders() async throws {
    let backend = try backend(
      #"""
      {"request": "POST https://api.example.com/users/{id}/notes", "response": {"template": true, "status": 201,
        "headers": {"Location": "/users/{{path.id}}/notes/1", "X-Echo": "{{header.X-Trace}}"},
        "json": {"user": "{{path.id}}", "page": "{{query.page}}", "title": "{{json./note/title}}", "method": "{{method}}"}}}
      """#)
    let (body, response) = try await backend.send(
      .post, "https://api.example.com/users/7/notes?page=2", headers: ["X-Trace": "abc"],
      body: Data(#"{"note": {"title": "Say \"hi\""}}"#.utf8))
    #expect(response.statusCode == 201)
    #expect(response.value(forHTTPHeaderField: "Location") == "/users/7/notes/1")
    #expect(response.value(forHTTPHeaderField: "X-Echo") == "abc")
    #expect(body == #"{"user":"7","page":"2","title":"Say \"hi\"","method":"POST"}"#)
  }

  @Test func randomValuesAndUUIDsRepeatWithTheSeed() async throws {
    let stub = #"{"request": "/r", "response": {"template": {"seed": 42}, "text": "{{random.1-6}} {{uuid}}"}}"#
    let first = try backend(stub)
    let second = try backend(stub)
    var runs: [[String]] = []
    for backend in [first, second] {
      var run: [String] = []
      for _ in 0..<3 { run.append(try await backend.send(.get, "https://a.com/r").body) }
      runs.append(run)
    }
    #expect(runs[0] == runs[1])
    #expect(Set(runs[0]).count == 3)
    for text in runs[0] {
      let parts = text.split(separator: " ")
      #expect((1...6).contains(Int(parts[0]) ?? 0))
      #expect(UUID(uuidString: String(parts[1])) != nil)
    }
  }

  @Test func theTimeIsOnTheBackendsClock() async throws {
    let clock = ManualClock()
    let backend = try backend(
      #"{"request": "/t", "response": {"template": true, "text": "{{now.yyyy-MM-dd'T'HH:mm:ss}}"}}"#, clock: clock)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
    let before = try #require(formatter.date(from: try await backend.send(.get, "https://a.com/t").body))
    clock.advance(by: .seconds(3_600))
    let after = try #require(formatter.date(from: try await backend.send(.get, "https://a.com/t").body))
    #expect(after.timeIntervalSince(before) == 3_600)
  }

  @Test func withoutTemplateBracesAreServedAsWritten() async throws {
    let backend = try backend(#"{"request": "/x", "response": {"text": "{{path.id}}"}}"#)
    #expect(try await backend.send(.get, "https://a.com/x").body == "{{path.id}}")
  }

  @Test func anUnknownVariableIsALoadTimeErrorWithPositionAndSuggestion() throws {
    #expect(
      throws: DoppelError(
        #"/tmp/doppel.json:1:75: stubs[0].response.text: unknown template variable "{{qurey.page}}". Did you mean "query"? The variables are: method, url, path, body, path.NAME, query.NAME, header.NAME, json./POINTER, now, now.FORMAT, uuid, random, random.MIN-MAX."#
      )
    ) {
      try backend(#"{"request": "/x", "response": {"template": true, "text": "page {{qurey.page}}"}}"#)
    }
    #expect(
      throws: DoppelError(
        #"/tmp/doppel.json:1:92: stubs[0].response.json.user: unknown template variable "{{path.idd}}". Did you mean "{{path.id}}"? The request's path parameters are: id."#
      )
    ) {
      try backend(#"{"request": "GET /users/{id}", "response": {"template": true, "json": {"user": "{{path.idd}}"}}}"#)
    }
    #expect(
      throws: DoppelError(
        #"/tmp/doppel.json:1:70: stubs[0].response.text: a template variable starts with {{ but has no }}. Close it, as in {{path.id}}."#
      )
    ) {
      try backend(#"{"request": "/x", "response": {"template": true, "text": "{{path"}}"#)
    }
  }

  @Test func responsesOfASequenceCanBeTemplated() async throws {
    let backend = try backend(
      #"""
      {"request": "GET /users/{id}", "response": {"then": "cycle", "sequence": [
        {"template": true, "text": "first {{path.id}}", "headers": {"X-Call": "{{query.n}}"}},
        {"status": 202, "text": "second {{path.id}}"},
        {"template": {"seed": 1}, "json": {"id": "{{path.id}}"}, "failing": {"rate": 0, "with": {"status": 500}}}]}}
      """#)
    var bodies: [String] = []
    for call in 1...4 {
      let (body, response) = try await backend.send(.get, "https://a.com/users/7?n=\(call)")
      bodies.append("\(response.statusCode) \(body) \(response.value(forHTTPHeaderField: "X-Call") ?? "-")")
    }
    #expect(bodies == ["200 first 7 1", "202 second {{path.id}} -", #"200 {"id":"7"} -"#, "200 first 7 4"])
  }

  @Test func aTemplatedSequenceThatRunsOutFails() async throws {
    let backend = try backend(
      #"{"request": "/once", "response": {"then": "fail", "sequence": [{"template": true, "text": "{{method}}"}]}}"#)
    #expect(try await backend.send(.get, "https://a.com/once").body == "GET")
    do {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/once")!))
      Issue.record("expected the sequence to run out")
    } catch let error as DoppelError {
      #expect(
        error.message
          == #"The stub answered all 1 responses of its sequence; this was call 2. Add responses, or write "then": "repeatLast" or "cycle"."#
      )
    }
  }

  @Test func aMistakeInATemplatedSequenceIsReportedWhereItIsWritten() {
    #expect(
      throws: DoppelError(
        #"/tmp/doppel.json:1:106: stubs[0].response.sequence[1].text: unknown template variable "{{pth.id}}". Did you mean "path"? The variables are: method, url, path, body, path.NAME, query.NAME, header.NAME, json./POINTER, now, now.FORMAT, uuid, random, random.MIN-MAX."#
      )
    ) {
      try backend(
        #"{"request": "/x/{id}", "response": {"sequence": [{"text": "a"}, {"template": true, "text": "b {{pth.id}}"}]}}"#
      )
    }
  }
}
