import Foundation
import TestSupport
import Testing

@testable import Doppel

/// What the tests of a suite share so that a test costs little: method-and-URL matchers and
/// `HTTPURLResponse`s are built once per process, and a backend's journal starts small. None of it
/// may let one backend see another's stubs, calls or answers.
@Suite struct SharedPartsTests {
  static let url = "https://api.example.com/shared-parts/items"

  @Test func theSameMethodAndURLGiveOneMatcherWorkedOutOnce() throws {
    let first = try #require(Matcher.get(Self.url).plan)
    let second = try #require(Matcher.get(Self.url).plan)
    #expect(first === second)
    #expect(Matcher.post(Self.url).plan !== first)
    // A matcher combined further is a new one, and its stub works its plan out itself.
    #expect((Matcher.get(Self.url) && .header("Accept", "application/json")).plan == nil)
    #expect(Matcher.get(Self.url).description == "GET https://api.example.com/shared-parts/items")
  }

  /// A cached matcher's plan holds its problem, worked out once, and answers `problem` with it.
  @Test func aCachedMatcherKnowsItsProblemFromItsPlan() throws {
    // Not `Self.url`: another test compares the plans two calls for that URL return.
    let valid = Matcher.get("https://api.example.com/shared-parts/problems")
    #expect(try #require(valid.plan).problem == nil)
    #expect(valid.problem == nil)
    let invalid = Matcher.get("https://api.example.com/shared parts/{")
    let plan = try #require(invalid.plan)
    let problem = try #require(invalid.foundProblem)
    #expect(plan.problem?.message == problem.message)
    #expect(invalid.problem?.message == problem.message)
  }

  @Test func backendsSharingAMatcherKeepTheirOwnStubsAndCalls() async throws {
    let one = quietBackend()
    let two = quietBackend()
    let first = one.stub(.get(Self.url), .text("one"))
    let second = two.stub(.get(Self.url), .text("two"))
    let request = URLRequest(url: URL(string: Self.url)!)
    let (body, _) = try await one.respond(to: request)
    #expect(String(decoding: body, as: UTF8.self) == "one")
    let (again, _) = try await two.respond(to: request)
    #expect(String(decoding: again, as: UTF8.self) == "two")
    #expect(first.callCount == 1 && second.callCount == 1)
    second.remove()
    await #expect(throws: URLError.self) { try await two.respond(to: request) }
    #expect(try await one.respond(to: request).0 == Data("one".utf8))
  }

  @Test func anInvalidURLIsReportedByEveryBackendThatRegistersIt() throws {
    for _ in 0..<2 {
      let issues = IssueCollector()
      let backend = Backend(issueReporter: issues.reporter)
      backend.stub(.get("ht tp://shared"), .ok)
      let issue = try #require(issues.all.first)
      #expect(issue.message.hasPrefix("Invalid stub: Invalid URL \"ht tp://shared\" in a stub: it contains a space"))
    }
  }

  @Test func answersWithTheSamePartsShareOneHTTPURLResponse() async throws {
    let url = URL(string: Self.url + "/responses")!
    func answer(_ response: Response) async throws -> HTTPURLResponse {
      let backend = quietBackend()
      backend.stub(.get(url.absoluteString), response)
      return try await backend.respond(to: URLRequest(url: url)).1
    }
    let first = try await answer(.text("same"))
    let second = try await answer(.text("same"))
    #expect(first === second)
    #expect(first.statusCode == 200)
    #expect(first.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
    let otherStatus = try await answer(.text("same").status(201))
    #expect(otherStatus !== first && otherStatus.statusCode == 201)
    let otherHeader = try await answer(.text("same").header("X-Kind", "other"))
    #expect(otherHeader !== first && otherHeader.value(forHTTPHeaderField: "X-Kind") == "other")
  }

  @Test func aJournalStartsWithRoomForWhatItHolds() {
    var storage = JournalStorage(limit: nil)
    for n in 0..<5 { _ = storage.append(JournalEntry(request: request("https://api.example.com/\(n)"))) }
    #expect(storage.count == 5)
    #expect(storage.firstChunkCapacity < JournalStorage.chunkCapacity)
  }
}
