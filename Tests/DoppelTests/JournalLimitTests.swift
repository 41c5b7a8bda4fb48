import Doppel
import Foundation
import Testing

/// `Backend(journalLimit:)`: the oldest entries go, the count of dropped ones is kept, and no
/// failure is hidden.
@Suite(.timeLimit(.minutes(2))) struct JournalLimitTests {
  @Test func theOldestEntriesAreDroppedAndCounted() async throws {
    let backend = Backend(issueReporter: .ignore, journalLimit: 3)
    backend.stub(.get("/items/{n}"), .ok)
    for n in 1...5 {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/items/\(n)")!))
    }
    #expect(backend.requests.map(\.url.path) == ["/items/3", "/items/4", "/items/5"])
    #expect(backend.journal.count == 3)
    #expect(backend.droppedJournalEntries == 2)
    #expect(backend.journalLimit == 3)
    #expect(backend.lastRequest?.url.path == "/items/5")
    backend.clearJournal()
    #expect(backend.journal.isEmpty)
    #expect(backend.droppedJournalEntries == 0)
  }

  /// Large uploads: the journal keeps at most `journalByteLimit` bytes of bodies, dropping the
  /// oldest entries (counted), always keeping the newest; matching saw each full body.
  @Test func theOldestEntriesAreDroppedToStayWithinTheByteLimit() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.journalByteLimit = 100_000
    #expect(backend.journalByteLimit == 100_000)
    let upload = backend.stub(.post("https://api.example.com/upload") && .body(Data(repeating: 7, count: 40_000)), .ok)
    func post(_ size: Int) async throws {
      var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
      request.httpMethod = "POST"
      request.httpBody = Data(repeating: 7, count: size)
      _ = try? await backend.respond(to: request)
    }
    for _ in 1...5 { try await post(40_000) }
    #expect(upload.callCount == 5)
    #expect(backend.journal.count == 2)
    #expect(backend.droppedJournalEntries == 3)
    #expect(backend.requests.map { $0.body?.count } == [40_000, 40_000])

    // One body larger than the whole limit: it is kept, alone, as the newest entry.
    try await post(150_000)
    #expect(backend.requests.map { $0.body?.count } == [150_000])
    #expect(backend.droppedJournalEntries == 5)

    try await post(40_000)
    #expect(backend.requests.map { $0.body?.count } == [40_000])
    #expect(backend.droppedJournalEntries == 6)

    // Lowering the limit drops at once; with no limit, every entry is kept again.
    try await post(40_000)
    #expect(backend.journal.count == 2)
    backend.journalByteLimit = 50_000
    #expect(backend.requests.map { $0.body?.count } == [40_000])
    #expect(backend.droppedJournalEntries == 7)
    backend.journalByteLimit = nil
    for _ in 1...3 { try await post(40_000) }
    #expect(backend.journal.count == 4)
  }

  /// A body over `journalBodyLimit` is journaled as its length and SHA-256; the stub still matched
  /// the whole body, and smaller bodies are kept whole.
  @Test func aBodyOverTheBodyLimitIsJournaledAsItsLengthAndDigest() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.journalBodyLimit = 50
    #expect(backend.journalBodyLimit == 50)
    let upload = backend.stub(
      .post("https://api.example.com/upload") && .body(String(repeating: "x", count: 100)),
      .text(String(repeating: "answer-", count: 10)))
    backend.stub(.post("https://api.example.com/small"), .text("ok"))
    func post(_ path: String, _ body: String) async throws -> String {
      var request = URLRequest(url: URL(string: "https://api.example.com\(path)")!)
      request.httpMethod = "POST"
      request.httpBody = Data(body.utf8)
      return String(decoding: try await backend.respond(to: request).0, as: UTF8.self)
    }
    #expect(try await post("/upload", String(repeating: "x", count: 100)) == String(repeating: "answer-", count: 10))
    #expect(try await post("/small", "tiny") == "ok")
    #expect(upload.callCount == 1)

    let (large, small) = (backend.journal[0], backend.journal[1])
    #expect(large.request.body == nil)
    #expect(
      large.omittedRequestBody?.description
        == "100 bytes, SHA-256 09ecb6ebc8bcefc733f6f2ec44f791abeed6a99edf0cc31519637898aebd52d8")
    #expect(large.omittedResponseBody?.length == 70)
    #expect(try large.response?.bodyData().isEmpty == true)
    #expect(large.response?.status == 200)
    #expect(small.request.bodyText == "tiny")
    #expect(small.omittedRequestBody == nil)
    #expect(try small.response.map { String(decoding: try $0.bodyData(), as: UTF8.self) } == "ok")

    // Without a limit, bodies are kept whole again.
    backend.journalBodyLimit = nil
    _ = try await post("/upload", String(repeating: "x", count: 100))
    #expect(backend.journal[2].request.body?.count == 100)
    #expect(backend.journal[2].omittedRequestBody == nil)
  }

  @Test func withoutALimitEveryRequestIsKept() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/a"), .ok)
    for _ in 0..<1_000 { _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/a")!)) }
    #expect(backend.journal.count == 1_000)
    #expect(backend.droppedJournalEntries == 0)
    #expect(backend.journalLimit == nil)
  }

  @Test func manyRequestsKeepTheJournalAtItsLimit() async throws {
    let backend = Backend(issueReporter: .ignore, journalLimit: 100)
    backend.stub(.post("/orders"), .status(201))
    var request = URLRequest(url: URL(string: "https://api.example.com/orders")!)
    request.httpMethod = "POST"
    for n in 0..<20_000 {
      request.httpBody = Data("order \(n)".utf8)
      _ = try await backend.respond(to: request)
    }
    #expect(backend.journal.count == 100)
    #expect(backend.droppedJournalEntries == 19_900)
    #expect(backend.requests.first?.bodyText == "order 19900")
    #expect(backend.requests.last?.bodyText == "order 19999")
  }

  @Test func anUnmatchedRequestWhoseEntryWasDroppedStillFailsVerification() async throws {
    let backend = Backend(issueReporter: .ignore, journalLimit: 1)
    backend.stub(.get("/known"), .ok)
    _ = try? await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/unknown")!))
    _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/known")!))
    #expect(backend.unmatchedRequests.isEmpty)  // its entry is gone…
    let issues = backend.verify()
    #expect(issues.count == 1)  // …but not the failure
    #expect(issues.first?.message.hasPrefix("No stub matched GET https://api.example.com/unknown\n") == true)
  }

  @Test func aSlowAnswerWhoseEntryWasDroppedCompletesWithoutComingBack() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock, journalLimit: 2)
    backend.stub(.get("/slow"), Response.text("late").delayed(by: .seconds(1)))
    backend.stub(.get("/fast"), .text("now"))
    let slow = Task { try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/slow")!)) }
    await clock.waitForSleepers()
    for _ in 0..<3 { _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/fast")!)) }
    clock.advance(by: .seconds(1))
    let (data, _) = try await slow.value
    #expect(String(decoding: data, as: UTF8.self) == "late")
    #expect(backend.requests.map(\.url.path) == ["/fast", "/fast"])
    #expect(backend.droppedJournalEntries == 2)
  }

  @Test func aLimitBelowOneKeepsOneEntry() async throws {
    let backend = Backend(issueReporter: .ignore, journalLimit: 0)
    backend.stub(.get("/a"), .ok)
    for _ in 0..<3 { _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/a")!)) }
    #expect(backend.journalLimit == 1)
    #expect(backend.journal.count == 1)
  }
}
