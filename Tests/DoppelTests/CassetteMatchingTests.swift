import Doppel
import Foundation
import Testing

@Suite struct CassetteMatchingTests {
  static func entry(_ url: String, headers: HTTPHeaders = [:], answer: String) throws -> HAREntry {
    try entry(.get, url, headers: headers, answer: answer)
  }

  static func entry(
    _ method: HTTPMethod, _ url: String, headers: HTTPHeaders = [:], body: String? = nil, answer: String
  ) throws -> HAREntry {
    try HAREntry(
      request: Request(method: method, url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) }),
      response: .text(answer))
  }

  /// The body text a request gets, or `unmatched`.
  static func answer(_ backend: Backend, _ url: String, headers: [String: String] = [:]) async -> String {
    await answer(backend, .get, url, headers: headers)
  }

  static func answer(
    _ backend: Backend, _ method: HTTPMethod, _ url: String, headers: [String: String] = [:],
    body: String? = nil
  ) async -> String {
    guard let (text, _) = try? await backend.send(method, url, headers: headers, body: body.map { Data($0.utf8) })
    else { return "unmatched" }
    return text
  }

  static func backend(_ entries: [HAREntry], _ matching: Cassette.Matching, reporter: IssueReporter = .ignore) throws
    -> Backend
  {
    let backend = Backend(issueReporter: reporter)
    try backend.replay(Cassette(entries: entries), matching: matching, name: "api.har")
    return backend
  }

  @Test func methodAndPathIgnoresTheOriginAndTheQuery() async throws {
    let backend = try Self.backend(
      [
        Self.entry(.get, "https://api.example.com/breeds?ts=1&token=a", answer: "first"),
        Self.entry(.get, "https://api.example.com/breeds?ts=2&token=b", answer: "second"),
        Self.entry(.post, "https://api.example.com/breeds", answer: "created"),
      ], .methodAndPath)
    // Two entries match alike: they answer in recorded order, then the last repeats.
    #expect(await Self.answer(backend, "http://localhost:8080/breeds?ts=99") == "first")
    #expect(await Self.answer(backend, "https://api.example.com/breeds") == "second")
    #expect(await Self.answer(backend, "https://other.example.com/breeds?page=3") == "second")
    #expect(await Self.answer(backend, .post, "https://api.example.com/breeds?x=1") == "created")
    #expect(await Self.answer(backend, "https://api.example.com/breed") == "unmatched")
    #expect(backend.stubs.map(\.name) == ["api.har entries[0, 1]", "api.har entries[2]"])
  }

  @Test func namedQueryItemsAreIgnoredOnBothSides() async throws {
    let backend = try Self.backend(
      [Self.entry(.get, "https://api.example.com/breeds?page=2&ts=1700000000", answer: "page 2")],
      .ignoringQueryItems(["ts", "nonce"]))
    #expect(await Self.answer(backend, "https://api.example.com/breeds?ts=1800000000&page=2") == "page 2")
    #expect(await Self.answer(backend, "https://api.example.com/breeds?page=2") == "page 2")
    #expect(await Self.answer(backend, "https://api.example.com/breeds?page=2&nonce=x") == "page 2")
    #expect(await Self.answer(backend, "https://api.example.com/breeds?page=3&ts=1") == "unmatched")
    #expect(await Self.answer(backend, "https://api.example.com/breeds?page=2&extra=1") == "unmatched")
  }

  @Test func allQueryItemsCanBeIgnoredWhileTheHostStillCounts() async throws {
    let backend = try Self.backend(
      [Self.entry(.get, "https://api.example.com/breeds?page=2", answer: "breeds")], .ignoringAllQueryItems)
    #expect(await Self.answer(backend, "https://api.example.com/breeds?page=9&ts=1") == "breeds")
    #expect(await Self.answer(backend, "https://api.example.com/breeds") == "breeds")
    #expect(await Self.answer(backend, "https://cdn.example.com/breeds?page=2") == "unmatched")
  }

  @Test func comparedHeadersMustHaveTheRecordedValues() async throws {
    let backend = try Self.backend(
      [
        Self.entry("https://api.example.com/breeds", headers: ["Accept": "application/json"], answer: "json"),
        Self.entry("https://api.example.com/breeds", headers: ["Accept": "text/csv"], answer: "csv"),
      ], .comparingHeaders(["accept"]))
    #expect(await Self.answer(backend, "https://api.example.com/breeds", headers: ["Accept": "text/csv"]) == "csv")
    #expect(
      await Self.answer(backend, "https://api.example.com/breeds", headers: ["Accept": "application/json"]) == "json")
    #expect(
      await Self.answer(backend, "https://api.example.com/breeds", headers: ["Accept": "text/xml"]) == "unmatched")
  }

  @Test func ignoringHeadersComparesEveryOtherRecordedHeader() async throws {
    let recorded: HTTPHeaders = [
      "Accept": "application/json", "X-Request-ID": "r-1", "User-Agent": "Recorder/1", ":authority": "api.example.com",
    ]
    let backend = try Self.backend(
      [Self.entry("https://api.example.com/me", headers: recorded, answer: "me")], .ignoringHeaders(["x-request-id"]))
    // X-Request-ID is ignored by name, User-Agent because the HTTP stack sets it, and the request
    // may carry headers the recording does not have.
    let sent = ["Accept": "application/json", "X-Request-ID": "r-2", "User-Agent": "App/2", "X-Extra": "1"]
    #expect(await Self.answer(backend, "https://api.example.com/me", headers: sent) == "me")
    #expect(
      await Self.answer(
        backend, "https://api.example.com/me", headers: ["Accept": "text/plain", "X-Request-ID": "r-1"])
        == "unmatched")
    #expect(await Self.answer(backend, "https://api.example.com/me") == "unmatched")
    // Naming a header with comparingHeaders afterwards compares it again.
    let strict = try Self.backend(
      [Self.entry("https://api.example.com/me", headers: recorded, answer: "me")],
      .ignoringHeaders(["X-Request-ID"]).comparingHeaders(["X-Request-ID"]))
    #expect(await Self.answer(strict, "https://api.example.com/me", headers: sent) == "unmatched")
  }

  @Test func jsonBodiesCompareWithoutTheNamedFields() async throws {
    let backend = try Self.backend(
      [
        Self.entry(
          .post, "https://api.example.com/orders", body: #"{"sku":"A1","nonce":"n1","meta":{"sentAt":1,"app":"ios"}}"#,
          answer: "A1"),
        Self.entry(
          .post, "https://api.example.com/orders", body: #"{"sku":"B2","nonce":"n2","meta":{"sentAt":2,"app":"ios"}}"#,
          answer: "B2"),
      ], .ignoringJSONFields(["/meta/sentAt", "nonce"]))
    let url = "https://api.example.com/orders"
    #expect(
      await Self.answer(backend, .post, url, body: #"{"meta":{"app":"ios","sentAt":99},"sku":"B2","nonce":"z"}"#)
        == "B2")
    #expect(await Self.answer(backend, .post, url, body: #"{"sku":"A1","meta":{"app":"ios"}}"#) == "A1")
    #expect(
      await Self.answer(backend, .post, url, body: #"{"sku":"A1","meta":{"app":"android","sentAt":1}}"#) == "unmatched")
    #expect(
      await Self.answer(backend, .post, url, body: #"{"sku":"C3","nonce":"n1","meta":{"sentAt":1,"app":"ios"}}"#)
        == "unmatched")
  }

  @Test func aCustomRuleAloneDecides() async throws {
    let backend = try Self.backend(
      [
        Self.entry("https://api.example.com/v1/cats?id=1", answer: "cat v1"),
        Self.entry("https://api.example.com/v2/cats?id=1", answer: "cat v2"),
      ],
      .custom { request, entry in
        // Any version of the API, same last path component.
        request.url?.lastPathComponent == URL(string: entry.request.url)?.lastPathComponent
      })
    #expect(await Self.answer(backend, "https://elsewhere.example.com/v3/cats") == "cat v1")
    #expect(await Self.answer(backend, .post, "https://elsewhere.example.com/cats") == "cat v2")
    #expect(await Self.answer(backend, "https://elsewhere.example.com/cats") == "cat v2")
    #expect(await Self.answer(backend, "https://api.example.com/dogs") == "unmatched")
  }

  @Test func aRequiredRuleNarrowsAnotherRuleAndKeepsRecordedOrder() async throws {
    let entries = try [
      Self.entry("https://api.example.com/feed?cursor=a", headers: ["X-Tenant": "blue"], answer: "blue 1"),
      Self.entry("https://api.example.com/feed?cursor=b", headers: ["X-Tenant": "red"], answer: "red 1"),
      Self.entry("https://api.example.com/feed?cursor=c", headers: ["X-Tenant": "blue"], answer: "blue 2"),
    ]
    let backend = try Self.backend(
      entries,
      .methodAndPath.requiring { request, entry in
        request.value(forHTTPHeaderField: "X-Tenant") == entry.request.headers.first { $0.name == "X-Tenant" }?.value
      })
    let blue = ["X-Tenant": "blue"]
    #expect(await Self.answer(backend, "https://api.example.com/feed", headers: blue) == "blue 1")
    #expect(await Self.answer(backend, "https://api.example.com/feed", headers: ["X-Tenant": "red"]) == "red 1")
    #expect(await Self.answer(backend, "https://api.example.com/feed", headers: blue) == "blue 2")
    #expect(await Self.answer(backend, "https://api.example.com/feed", headers: blue) == "blue 2")
    #expect(await Self.answer(backend, "https://api.example.com/feed", headers: ["X-Tenant": "green"]) == "unmatched")
  }

  @Test func rulesDescribeThemselvesAndCompare() {
    #expect(Cassette.Matching.methodAndURL.description == "method and URL")
    #expect(Cassette.Matching.methodAndPath.description == "method and path")
    #expect(
      Cassette.Matching.ignoringQueryItems(["ts"]).ignoringHeaders(["Date"]).ignoringJSONFields(["nonce"]).description
        == "method and URL, ignoring query items ts, comparing every header but Date, comparing the body without /nonce"
    )
    #expect(
      Cassette.Matching.ignoringAllQueryItems.comparingHeaders(["Accept"]).comparingBody.description
        == "method and URL, ignoring all query items, comparing headers Accept, comparing the body")
    #expect(Cassette.Matching.custom { _, _ in true }.description == "a custom rule")
    #expect(
      Cassette.Matching.methodAndURL(headers: ["Accept"], body: true) == .comparingHeaders(["Accept"]).comparingBody)
    #expect(Cassette.Matching.methodAndPath == Cassette.Matching.ignoringAllQueryItems.methodAndPath)
    let custom = Cassette.Matching.custom { _, _ in true }
    #expect(custom == custom)
    #expect(custom != .custom { _, _ in true })
  }

  @Test func theNearMissReportSaysWhichRuleWasInForce() async throws {
    let collector = IssueCollector()
    let backend = try Self.backend(
      [Self.entry("https://api.example.com/breeds?page=2&ts=1", answer: "page 2")], .ignoringQueryItems(["ts"]),
      reporter: collector.reporter)
    _ = await Self.answer(backend, "https://api.example.com/breeds?page=3&ts=1")
    let report = try #require(collector.all.first?.message)
    #expect(report.contains("✗ query  expected exactly \"page=2\" (ignoring ts), got \"page=3&ts=1\""))
    #expect(report.contains("✓ rule   method and URL, ignoring query items ts"))
  }

  @Test func insertingACassetteNamesTheRuleInTheMissHint() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-matching-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("feed.har")
    try Cassette(entries: [Self.entry("https://api.example.com/feed?ts=1", answer: "feed")]).save(to: url)
    let collector = IssueCollector()
    let backend = Backend(issueReporter: collector.reporter)
    let inserted = try backend.insertCassette(at: url, matching: .methodAndPath, environment: [:])
    #expect(await Self.answer(backend, "https://api.example.com/feed?ts=2") == "feed")
    #expect(await Self.answer(backend, "https://api.example.com/food") == "unmatched")
    try inserted.eject()
    let report = try #require(collector.all.first?.message)
    #expect(
      report.hasSuffix(
        "The cassette feed.har (matching method and path) does not hold this request. To record it, run: DOPPEL_RECORD=newEpisodes swift test"
      ))
  }
}
