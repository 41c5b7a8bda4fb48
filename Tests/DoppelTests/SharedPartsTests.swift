import Doppel
import Foundation
import TestSupport
import Testing

/// What the tests of a suite share so that a test costs little (method-and-URL matchers and
/// `HTTPURLResponse`s are built once per process; the benchmarks measure what that saves) must not
/// let one backend see another's stubs, calls or answers, nor lose a problem or a difference.
@Suite struct SharedPartsTests {
  static let url = "https://api.example.com/shared-parts/items"

  @Test func theSameMethodAndURLMatchTheSameWayEveryTime() {
    let request = Request(URLRequest(url: URL(string: Self.url)!))
    #expect(Matcher.get(Self.url).matches(request))
    #expect(Matcher.get(Self.url).matches(request))
    #expect(!Matcher.post(Self.url).matches(request))
    // A matcher combined further tests its own parts too.
    #expect(!(Matcher.get(Self.url) && .header("Accept", "application/json")).matches(request))
    #expect(Matcher.get(Self.url).description == "GET https://api.example.com/shared-parts/items")
  }

  @Test func aMatcherMadeAgainKeepsItsProblem() throws {
    #expect(Matcher.get("https://api.example.com/shared-parts/problems").problem == nil)
    for _ in 0..<2 {
      let problem = try #require(Matcher.get("https://api.example.com/shared parts/{").problem)
      #expect(problem.message.hasPrefix("Invalid URL \"https://api.example.com/shared parts/{\" in a stub"))
    }
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

  @Test func answersWithTheSamePartsOrOthersEachGetTheirOwnHead() async throws {
    let url = URL(string: Self.url + "/responses")!
    func answer(_ response: Response) async throws -> HTTPURLResponse {
      let backend = quietBackend()
      backend.stub(.get(url.absoluteString), response)
      return try await backend.respond(to: URLRequest(url: url)).1
    }
    for _ in 0..<2 {
      let same = try await answer(.text("same"))
      #expect(same.statusCode == 200)
      #expect(same.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
      #expect(same.value(forHTTPHeaderField: "X-Kind") == nil)
    }
    let otherStatus = try await answer(.text("same").status(201))
    #expect(otherStatus.statusCode == 201)
    let otherHeader = try await answer(.text("same").header("X-Kind", "other"))
    #expect(otherHeader.statusCode == 200 && otherHeader.value(forHTTPHeaderField: "X-Kind") == "other")
  }
}
