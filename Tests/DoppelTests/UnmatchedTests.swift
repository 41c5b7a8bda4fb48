import Doppel
import Foundation
import TestSupport
import Testing

@Suite struct UnmatchedTests {
  @Test func failsWithANearMissReportNamingTheDifferingField() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let first = #line + 1
    backend.stub(.get("https://api.example.com/breeds.json"), .json(["breeds": []]))
    backend.stub(.post("/breeds.json"), .status(201))
    backend.stub(.get("https://cdn.example.com/cat.png"), .status(200))
    backend.stub(.put("/orders") && .header("X-Key", "k"), .status(200))
    do {
      _ = try await backend.session.data(from: URL(string: "https://api.example.com/breed.json")!)
      Issue.record("expected a failure")
    } catch let error as URLError {
      #expect(error.code == .resourceUnavailable)
      #expect(error.failingURL?.absoluteString == "https://api.example.com/breed.json")
      #expect(
        error.localizedDescription == """
          No stub matched GET https://api.example.com/breed.json
          Closest stubs:
            1. UnmatchedTests.swift:\(first)  GET https://api.example.com/breeds.json
                 ✓ method GET
                 ✓ scheme https
                 ✓ host   api.example.com
                 ✗ path   expected "/breeds.json", got "/breed.json"
            2. UnmatchedTests.swift:\(first + 2)  GET https://cdn.example.com/cat.png
                 ✓ method GET
                 ✓ scheme https
                 ✗ host   expected cdn.example.com, got api.example.com
                 ✗ path   expected "/cat.png", got "/breed.json"
            3. UnmatchedTests.swift:\(first + 1)  POST /breeds.json
                 ✗ method expected POST, got GET
                 ✗ path   expected "/breeds.json", got "/breed.json"
            (1 more stub not shown)
          Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
            backend.stub(.get("https://api.example.com/breed.json"), .status(200))
            {"request":"GET https://api.example.com/breed.json","response":{"status":200}}
          """)
    }
    #expect(issues.all.map(\.message) == [backend.journal[0].unmatchedReport!])
  }

  @Test func reportShowsTheBodyAndInvalidStubs() async {
    let backend = quietBackend()
    let line = #line + 1
    backend.stub(.post("/orders") && .jsonBody(["sku": "A1"]), .status(201))
    backend.stub(.get("ht tp://bad"), .ok)
    _ = await backend.outcome(.post, "https://a.com/orders", body: #"{"sku":"B2"}"#)
    #expect(
      backend.journal[0].unmatchedReport == """
        No stub matched POST https://a.com/orders
          body: "{"sku":"B2"}"
        Closest stubs:
          1. UnmatchedTests.swift:\(line)  POST /orders, JSON body {"sku":"A1"}
               ✓ method POST
               ✓ path   "/orders"
               ✗ json   expected {"sku":"A1"}, got {"sku":"B2"}
        Invalid stubs (they match nothing):
          UnmatchedTests.swift:\(line + 1)  Invalid URL "ht tp://bad" in a stub: it contains a space at offset 2; percent-encode it (a space is %20). Write an absolute URL such as "https://api.example.com/breeds.json" or a path such as "/breeds.json".
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.post("https://a.com/orders") && .jsonBody(["sku": "B2"]), .status(200))
          {"request":{"json":{"sku":"B2"},"method":"POST","url":"https://a.com/orders"},"response":{"status":200}}
        """)
  }

  @Test func anExhaustedStubSaysSo() async {
    let backend = quietBackend()
    let line = #line + 1
    backend.stub(.get("/once"), .ok, times: 1)
    _ = await backend.outcome(.get, "https://a.com/once")
    _ = await backend.outcome(.get, "https://a.com/once")
    #expect(
      backend.journal[1].unmatchedReport == """
        No stub matched GET https://a.com/once
        Closest stubs:
          1. UnmatchedTests.swift:\(line)  GET /once
               ✓ method GET
               ✓ path   "/once"
               ✗ times  expected at most 1, got 1 answered already
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://a.com/once"), .status(200))
          {"request":"GET https://a.com/once","response":{"status":200}}
        """)
  }

  /// The stub to paste answers the request: a method without a builder is spelled out.
  @Test func theStubToPasteAnswersTheRequest() async throws {
    let backend = quietBackend()
    _ = await backend.outcome(HTTPMethod("PROPFIND"), "https://a.com/dav/x?depth=1")
    let report = try #require(backend.journal[0].unmatchedReport)
    #expect(
      report.hasSuffix(
        """
          backend.stub(.method("PROPFIND") && .url("https://a.com/dav/x?depth=1"), .status(200))
          {"request":"PROPFIND https://a.com/dav/x?depth=1","response":{"status":200}}
        """))
    backend.stub(.method("PROPFIND") && .url("https://a.com/dav/x?depth=1"), .status(200))
    #expect(await backend.outcome(HTTPMethod("PROPFIND"), "https://a.com/dav/x?depth=1") == "200 ")
  }

  @Test func thePastedStubRequiresAShortBodyAndAnswersItInSwiftAndInAManifest() async throws {
    let backend = quietBackend()
    _ = await backend.outcome(.post, "https://a.com/orders", body: #"{"sku":"B2","count":2,"gift":null}"#)
    _ = await backend.outcome(.put, "https://a.com/notes/1", body: "buy milk")
    _ = await backend.outcome(.post, "https://a.com/blob", body: String(repeating: "x", count: 301))
    let pasted = backend.journal.map { $0.unmatchedReport?.split(separator: "\n").suffix(2).joined(separator: "\n") }
    #expect(
      pasted == [
        """
          backend.stub(.post("https://a.com/orders") && .jsonBody(["count": 2, "gift": nil, "sku": "B2"]), .status(200))
          {"request":{"json":{"count":2,"gift":null,"sku":"B2"},"method":"POST","url":"https://a.com/orders"},"response":{"status":200}}
        """,
        """
          backend.stub(.put("https://a.com/notes/1") && .body("buy milk"), .status(200))
          {"request":{"method":"PUT","text":"buy milk","url":"https://a.com/notes/1"},"response":{"status":200}}
        """,
        """
          backend.stub(.post("https://a.com/blob"), .status(200))
          {"request":"POST https://a.com/blob","response":{"status":200}}
        """,
      ])
    // Pasted, each answers its request and not another body.
    backend.stub(.post("https://a.com/orders") && .jsonBody(["count": 2, "gift": nil, "sku": "B2"]), .status(200))
    #expect(
      await backend.outcome(.post, "https://a.com/orders", body: #"{"gift":null,"sku":"B2","count":2}"#) == "200 ")
    #expect(
      await backend.outcome(.post, "https://a.com/orders", body: #"{"sku":"B3","count":2,"gift":null}"#) != "200 ")
    let manifest = try Manifest(
      data: Data(
        #"{"stubs": [{"request":{"method":"PUT","text":"buy milk","url":"https://a.com/notes/1"},"response":{"status":200}}]}"#
          .utf8), url: URL(fileURLWithPath: "/tmp/doppel.json"))
    try backend.addStubs(from: manifest, scenario: .base)
    #expect(await backend.outcome(.put, "https://a.com/notes/1", body: "buy milk") == "200 ")
  }

  /// A backend's default reporter writes to standard error, and says once that this fails no test.
  @Test func standardErrorSaysOnceThatItFailsNoTestAndHowToFailOne() {
    let issue = DoppelIssue("No stub matched GET https://a.com/x")
    #expect(
      IssueReporter.standardErrorText(issue, first: true)
        == """
        Doppel: No stub matched GET https://a.com/x
        Doppel: (written to standard error only, so it fails no test. In a test, make the backend with DoppelTesting's .doppel trait (Swift Testing) or makeBackend() (XCTest), or pass Backend(issueReporter:), and such problems fail the test.)

        """)
    #expect(IssueReporter.standardErrorText(issue, first: false) == "Doppel: No stub matched GET https://a.com/x\n")
  }

  @Test func anEmptyBackendSaysHowToAddAStub() async {
    let backend = quietBackend()
    _ = await backend.outcome(.get, "https://a.com/x")
    #expect(
      backend.journal[0].unmatchedReport == """
        No stub matched GET https://a.com/x
        The backend has no stubs.
        Add a stub for this request; this one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://a.com/x"), .status(200))
          {"request":"GET https://a.com/x","response":{"status":200}}
        """)
  }

  @Test func respondPolicyAnswersUnmatchedRequests() async {
    let backend = Backend(unmatched: .respond(.text("fallback", status: 404)), issueReporter: .ignore)
    #expect(await backend.outcome(.get, "https://a.com/anything") == "404 fallback")
    #expect(backend.journal.first?.isMatched == false)
    #expect(backend.journal.first?.response?.status == 404)
  }

  @Test func passthroughPolicyGoesToTheRealNetwork() async {
    // Port 1 on loopback refuses connections: proof the request went out instead of failing as
    // unmatched (which would be -1008).
    let backend = Backend(unmatched: .passthrough, issueReporter: .ignore)
    #expect(
      await backend.outcome(.get, "http://127.0.0.1:1/x") == "URLError \(URLError.Code.cannotConnectToHost.rawValue)")
    #expect(backend.journal.first?.error is URLError)
  }
}
