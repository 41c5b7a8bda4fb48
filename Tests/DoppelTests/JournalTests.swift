import Doppel
import Foundation
import TestSupport
import Testing

@Suite struct JournalTests {
  @Test func postBodyFromHTTPBodyIsVisibleToMatchersAndTheJournal() async throws {
    let backend = quietBackend()
    let created = backend.stub(.post("/orders") && .jsonBody(["sku": "A1"]), .status(201))
    var request = URLRequest(url: URL(string: "https://api.example.com/orders")!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"sku":"A1"}"#.utf8)
    let (_, response) = try await backend.session.data(for: request)
    #expect((response as? HTTPURLResponse)?.statusCode == 201)
    let entry = try #require(backend.journal.first)
    #expect(entry.request.method == .post)
    #expect(entry.request.bodyText == #"{"sku":"A1"}"#)
    #expect(entry.request.headers["content-type"] == "application/json")
    #expect(entry.stub === created)
    #expect(entry.response?.status == 201)
    #expect(entry.response?.headers["Content-Length"] == "0")
  }

  @Test func postBodyFromAStreamIsReadWhole() async throws {
    let backend = quietBackend()
    let payload = String(repeating: "meow ", count: 10_000)
    backend.stub(.post("/upload") && .body(payload), .text("got it"))
    var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
    request.httpMethod = "POST"
    request.httpBodyStream = InputStream(data: Data(payload.utf8))
    let (data, _) = try await backend.session.data(for: request)
    #expect(String(decoding: data, as: UTF8.self) == "got it")
    #expect(backend.requests.first?.body?.count == 50_000)
  }

  @Test func everyRequestInOrderMatchedOrNot() async throws {
    let backend = quietBackend()
    let line = #line + 1
    backend.stub(.get("/a"), .text("a"))
    _ = await backend.outcome(.get, "https://x.com/a")
    _ = await backend.outcome(.get, "https://x.com/missing")
    _ = await backend.outcome(.get, "https://x.com/a?again=1")
    #expect(
      backend.requests.map(\.url.absoluteString) == [
        "https://x.com/a", "https://x.com/missing", "https://x.com/a?again=1",
      ])
    #expect(backend.journal.map(\.isMatched) == [true, false, true])
    #expect(backend.unmatchedRequests.map(\.path) == ["/missing"])
    #expect(backend.journal[1].unmatchedReport?.hasPrefix("No stub matched GET https://x.com/missing") == true)
    #expect(backend.lastRequest?.url.query == "again=1")
    #expect(backend.journal[0].description == "GET https://x.com/a → 200 (JournalTests.swift:\(line))")
    backend.clearJournal()
    #expect(backend.requests.isEmpty)
  }

  @Test func decodedJSONBodyOfARequest() async throws {
    struct Order: Codable, Equatable { let sku: String }
    let backend = quietBackend()
    backend.stub(.post("/orders"), .status(201))
    var request = URLRequest(url: URL(string: "https://a.com/orders")!)
    request.httpMethod = "POST"
    request.httpBody = try JSONEncoder().encode(Order(sku: "Z9"))
    _ = try await backend.session.data(for: request)
    #expect(try backend.lastRequest?.decodeJSON(Order.self) == Order(sku: "Z9"))
  }
}

@Suite struct VerificationTests {
  @Test func verifyListsUnmatchedRequestsAndUnmetExpectations() async {
    let backend = quietBackend()
    let line = #line + 1
    backend.stub(.post("/orders"), .status(201)).expect(times: 2)
    backend.stub(.get("/breeds"), .ok).expect(atLeast: 1)
    backend.stub(.get("/unused"), .ok)
    _ = await backend.outcome(.post, "https://a.com/orders", body: "{}")
    _ = await backend.outcome(.get, "https://a.com/nope")
    let issues = backend.verify()
    #expect(
      issues.map(\.message) == [
        backend.journal[1].unmatchedReport!,
        "The stub POST /orders was expected to answer 2 times but answered 1 time. Make the code under test send the request, or change the stub's expectation.",
        "The stub GET /breeds was expected to answer at least 1 time but answered 0 times. Make the code under test send the request, or change the stub's expectation.",
      ])
    #expect(issues.map(\.location?.line) == [nil, line, line + 1])
    backend.requiresAllStubsUsed = true
    #expect(backend.verify().count == 4)
  }

  @Test func requestsMatchingAFilter() async {
    let backend = quietBackend()
    backend.stub(.any, .ok)
    _ = await backend.outcome(.post, "https://a.com/orders", body: "{}")
    _ = await backend.outcome(.get, "https://a.com/orders")
    _ = await backend.outcome(.post, "https://a.com/orders", body: "{}")
    #expect(backend.requests(matching: .post("/orders")).count == 2)
    #expect(backend.requests(matching: .method(.get)).map(\.path) == ["/orders"])
  }
}
