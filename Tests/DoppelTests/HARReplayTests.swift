import Doppel
import Foundation
import TestSupport
import Testing

@Suite struct HARReplayTests {
  func browserBackend() throws -> Backend {
    let backend = quietBackend()
    try backend.replay(Cassette(data: Data(HARFixtures.browserExport.utf8), file: "export.har"), name: "export.har")
    return backend
  }

  @Test func aBrowserExportReplays() async throws {
    let backend = try browserBackend()
    // Host case, default port and query order do not matter.
    let (body, response) = try await backend.send(.get, "https://api.example.com/breeds?page=2&sort=name")
    #expect(body == #"[{"name":"Abyssinian"}, 2]"#)
    #expect(response.statusCode == 200)
    #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
    #expect(response.value(forHTTPHeaderField: "X-Dup") == "a, b")
    // The body is the decoded text, so it must not claim gzip or the compressed length.
    #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
    #expect(response.value(forHTTPHeaderField: "Content-Length") == "26")

    let (image, imageResponse) = try await backend.session.data(from: URL(string: "https://cdn.example.com/cat.png")!)
    #expect(image == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    #expect((imageResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "image/png")

    let (created, createdResponse) = try await backend.send(
      .post, "https://api.example.com/orders", body: Data(#"{"sku":"A1"}"#.utf8))
    #expect(created.isEmpty)
    #expect(createdResponse.statusCode == 201)
    #expect(createdResponse.value(forHTTPHeaderField: "Location") == "/orders/7")
    #expect(createdResponse.value(forHTTPHeaderField: ":status") == nil)
  }

  @Test func aFailedRequestReplaysAsItsURLError() async throws {
    let backend = try browserBackend()
    await expectURLError(.cannotConnectToHost) {
      _ = try await backend.send(.get, "https://down.example.com/")
    }
  }

  @Test func identicalRequestsGetTheRecordedResponsesInOrderThenTheLast() async throws {
    let backend = try browserBackend()
    var answers: [String] = []
    for _ in 0..<4 { answers.append(await backend.outcome(.get, "https://api.example.com/status")) }
    #expect(answers == ["503 busy", "200 up", "200 up", "200 up"])
    #expect(
      backend.stubs.map(\.name) == [
        "export.har entries[0]", "export.har entries[1]", "export.har entries[2]", "export.har entries[3, 4]",
        "export.har entries[5]",
      ])
  }

  @Test func theURLMustMatchOnceNormalized() async throws {
    let backend = try browserBackend()
    #expect(await backend.outcome(.get, "https://api.example.com/breeds?sort=name&page=2&extra=1") == "URLError -1008")
    #expect(await backend.outcome(.get, "https://api.example.com/breeds?sort=name") == "URLError -1008")
    #expect(await backend.outcome(.get, "http://api.example.com/breeds?sort=name&page=2") == "URLError -1008")
    #expect(await backend.outcome(.get, "https://api.example.com:8443/breeds?sort=name&page=2") == "URLError -1008")
    #expect(await backend.outcome(.post, "https://api.example.com/breeds?sort=name&page=2") == "URLError -1008")
    #expect(await backend.outcome(.get, "https://api.example.com/%62reeds?page=%32&sort=name").hasPrefix("200 "))
  }

  @Test func theNearMissReportNamesTheCassetteEntries() async throws {
    let collector = IssueCollector()
    let backend = Backend(issueReporter: collector.reporter)
    try backend.replay(Cassette(data: Data(HARFixtures.browserExport.utf8)), name: "export.har")
    _ = await backend.outcome(.get, "https://api.example.com/breeds?sort=name&page=3")
    let report = try #require(collector.all.first?.message)
    #expect(report.contains("\"export.har entries[0]\" GET https://api.example.com/breeds?page=2&sort=name"))
    #expect(report.contains("✗ query  expected exactly \"page=2&sort=name\", got \"sort=name&page=3\""))
  }

  static func cassette(_ entries: [(Request, Response)]) throws -> Cassette {
    Cassette(entries: try entries.map { try HAREntry(request: $0.0, response: $0.1) })
  }

  @Test func matchingCanIncludeHeadersAndTheBody() async throws {
    let url = URL(string: "https://api.example.com/search")!
    let cassette = try Self.cassette([
      (
        Request(
          method: .post, url: url, headers: ["Accept": "application/json"], body: Data(#"{"q":"cat","n":1}"#.utf8)),
        .text("json cat")
      ),
      (
        Request(
          method: .post, url: url, headers: ["Accept": "application/xml"], body: Data(#"{"q":"cat","n":1}"#.utf8)),
        .text("xml cat")
      ),
      (
        Request(
          method: .post, url: url, headers: ["Accept": "application/json"], body: Data(#"{"q":"dog","n":1}"#.utf8)),
        .text("json dog")
      ),
    ])
    let backend = quietBackend()
    try backend.replay(cassette, matching: .methodAndURL(headers: ["Accept"], body: true))
    #expect(backend.stubs.count == 3)
    func send(_ accept: String, _ body: String) async -> String {
      var request = URLRequest(url: url)
      request.httpMethod = "POST"
      request.setValue(accept, forHTTPHeaderField: "Accept")
      request.httpBody = Data(body.utf8)
      guard let (data, _) = try? await backend.session.data(for: request) else { return "failed" }
      return String(decoding: data, as: UTF8.self)
    }
    #expect(await send("application/json", #"{"n":1,"q":"cat"}"#) == "json cat")  // JSON key order ignored
    #expect(await send("application/xml", #"{"q":"cat","n":1}"#) == "xml cat")
    #expect(await send("application/json", #"{"q":"dog","n":1}"#) == "json dog")
    #expect(await send("text/plain", #"{"q":"cat","n":1}"#) == "failed")
    #expect(await send("application/json", #"{"q":"cat","n":2}"#) == "failed")

    // By default, all three are one request answered in order.
    let loose = quietBackend()
    try loose.replay(cassette)
    #expect(loose.stubs.count == 1)
    #expect(await loose.outcome(.post, url.absoluteString, body: "anything") == "200 json cat")
    #expect(await loose.outcome(.post, url.absoluteString) == "200 xml cat")
  }

  @Test func redactedValuesMatchAnyValue() async throws {
    let recorded = Request(
      method: .post, url: URL(string: "https://api.example.com/login?api_key=SECRET&v=2")!,
      headers: ["Authorization": "Bearer SECRET", "Content-Type": "application/json"],
      body: Data(#"{"user":{"name":"ann","password":"SECRET"}}"#.utf8))
    let cassette = Redaction.default.adding(jsonFields: ["user.password"]).redact(
      try Self.cassette([(recorded, .text("welcome"))]))
    #expect(cassette.entries[0].request.url == "https://api.example.com/login?api_key=REDACTED&v=2")
    let backend = quietBackend()
    try backend.replay(cassette, matching: .methodAndURL(headers: ["Authorization"], body: true))
    var request = URLRequest(url: URL(string: "https://api.example.com/login?v=2&api_key=other")!)
    request.httpMethod = "POST"
    request.setValue("Bearer other", forHTTPHeaderField: "Authorization")
    request.httpBody = Data(#"{"user":{"password":"other","name":"ann"}}"#.utf8)
    let (data, _) = try await backend.session.data(for: request)
    #expect(String(decoding: data, as: UTF8.self) == "welcome")
    // The rest must still match.
    request.httpBody = Data(#"{"user":{"password":"other","name":"bob"}}"#.utf8)
    await expectURLError(.resourceUnavailable) { _ = try await backend.session.data(for: request) }
    request.httpBody = Data(#"{"user":{"password":"other","name":"ann"}}"#.utf8)
    request.setValue(nil, forHTTPHeaderField: "Authorization")
    await expectURLError(.resourceUnavailable) { _ = try await backend.session.data(for: request) }
  }

  @Test func aHeadResponseKeepsItsLength() throws {
    let entry = HAREntry(
      startedDateTime: "", request: HARRequest(method: "HEAD", url: "https://a.com/file"),
      response: HARResponse(
        status: 200,
        headers: [
          HARNameValue(name: "Content-Length", value: "1234"),
          HARNameValue(name: "Transfer-Encoding", value: "chunked"),
        ]))
    #expect(try entry.makeResponse(for: .head).headers == ["Content-Length": "1234"])
    #expect(try entry.makeResponse(for: .get).headers == [:])
  }

  @Test func invalidEntriesAreNotReplayedSilently() throws {
    var cassette = Cassette()
    cassette.entries.append(
      HAREntry(startedDateTime: "", request: HARRequest(method: "GET", url: "nope"), response: HARResponse(status: 200))
    )
    let backend = quietBackend()
    #expect(
      throws: DoppelError(
        "mine.har: log.entries[0].request.url: \"nope\" is not an absolute URL. Give the full URL, such as \"https://api.example.com/breeds\"."
      )
    ) { try backend.replay(cassette, name: "mine.har") }
    #expect(backend.stubs.isEmpty)
  }
}
