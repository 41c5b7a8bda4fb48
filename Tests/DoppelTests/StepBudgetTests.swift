import Doppel
import Foundation
import Testing

/// A regular expression or glob that backtracks too much gives up within the step budget of one
/// request: its stub, header matcher or WebSocket rule matches nothing, the near-miss report says
/// why, and the budget is shared by every pattern one request meets.
@Suite struct StepBudgetTests {
  /// A text the nested quantifier `(a+)+` backtracks on exponentially.
  static let crafted = String(repeating: "a", count: 40) + "!"

  /// One request spends the whole budget; the next has a budget of its own and is answered.
  @Test func eachRequestHasItsOwnBudget() async throws {
    let backend = Backend(issueReporter: .ignore)
    // Five patterns that backtrack: four give up on the crafted text and spend the request's budget.
    let nested = (0..<5).map { _ in backend.stub(.path(regex: "^/z/(a+)+$"), .text("nested")) }
    let crafted = URL(string: "https://api.example.com/z/\(Self.crafted)")!
    await #expect(throws: URLError.self) { try await backend.respond(to: URLRequest(url: crafted)) }
    let plain = URL(string: "https://api.example.com/z/aaaa")!
    let (data, _) = try await backend.respond(to: URLRequest(url: plain))
    #expect(String(decoding: data, as: UTF8.self) == "nested")
    #expect(nested.map(\.callCount).reduce(0, +) == 1)
  }

  @Test func aPathRegexThatGivesUpMatchesNothingAndTheNearMissSaysWhy() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let line = #line + 1
    backend.stub(.path(regex: "^/(a+)+$"), .ok)
    let fallback = backend.stub(.path(regex: "^/a+!$"), .text("fallback"))
    let url = URL(string: "https://api.example.com/\(Self.crafted)")!
    let (data, _) = try await backend.respond(to: URLRequest(url: url))
    #expect(String(decoding: data, as: UTF8.self) == "fallback")
    #expect(fallback.callCount == 1)

    let missed = URL(string: "https://api.example.com/\(Self.crafted)?")!
    fallback.remove()
    await #expect(throws: URLError.self) { try await backend.respond(to: URLRequest(url: missed)) }
    #expect(
      issues.all.map(\.message) == [
        """
        No stub matched GET https://api.example.com/\(Self.crafted)?
        Closest stubs:
          1. StepBudgetTests.swift:\(line)  /^/(a+)+$/
               ✗ path expected matching /^/(a+)+$/, got "/\(Self.crafted)" (the regular expression /^/(a+)+$/ gave up after about 2.5 million steps on this text; it backtracks too much (nested quantifiers such as (a+)+ do): simplify it)
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://api.example.com/\(Self.crafted)?"), .status(200))
          {"request":"GET https://api.example.com/\(Self.crafted)?","response":{"status":200}}
        """
      ])
  }

  /// 100 stubs with a pattern that backtracks, and a request crafted against them: the first four
  /// searches spend the request's budget and the rest answer at once, as not matching, so the
  /// request costs four searches, not a hundred. A literal stub still answers.
  @Test func manyPatternsThatBacktrackShareOneBudgetPerRequest() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let crafted = "/z/" + Self.crafted
    let literal = backend.stub(.path(crafted), .text("literal"))
    let cheapLine = #line + 1
    let cheap = backend.stub(.path(regex: "^/z/a+!$"), .text("cheap"))
    var nested: [StubHandle] = []
    let nestedLine = #line + 1
    for _ in 0..<100 { nested.append(backend.stub(.path(regex: "^/z/(a+)+$"), .ok)) }
    let url = URL(string: "https://api.example.com\(crafted)")!
    let (data, _) = try await backend.respond(to: URLRequest(url: url))
    #expect(String(decoding: data, as: UTF8.self) == "literal")
    #expect(literal.callCount == 1)
    // The cheap pattern would match, but the budget was spent before its turn.
    #expect(cheap.callCount == 0)
    #expect(nested.allSatisfy { $0.callCount == 0 })

    // Without the literal stub, the request is unmatched and the report says why for each stub:
    // the four newest searches give up and spend the budget, the cheap pattern is not searched.
    literal.remove()
    for stub in nested.dropFirst(4) { stub.remove() }
    await #expect(throws: URLError.self) { try await backend.respond(to: URLRequest(url: url)) }
    let gaveUp =
      "the regular expression /^/z/(a+)+$/ gave up after about 2.5 million steps on this text; it backtracks too much (nested quantifiers such as (a+)+ do): simplify it"
    let outOfBudget =
      "the regular expression /^/z/a+!$/ was not searched to the end, so the stub is treated as not matching: the searches for this request spent their budget (about 10 million steps for regular expressions and globs per request); simplify the patterns that backtrack (nested quantifiers such as (a+)+, globs with many *)"
    #expect(
      issues.all.map(\.message) == [
        """
        No stub matched GET https://api.example.com\(crafted)
        Closest stubs:
          1. StepBudgetTests.swift:\(cheapLine)  /^/z/a+!$/
               ✗ path expected matching /^/z/a+!$/, got "\(crafted)" (\(outOfBudget))
          2. StepBudgetTests.swift:\(nestedLine)  /^/z/(a+)+$/
               ✗ path expected matching /^/z/(a+)+$/, got "\(crafted)" (\(gaveUp))
          3. StepBudgetTests.swift:\(nestedLine)  /^/z/(a+)+$/
               ✗ path expected matching /^/z/(a+)+$/, got "\(crafted)" (\(gaveUp))
          (2 more stubs not shown)
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://api.example.com\(crafted)"), .status(200))
          {"request":"GET https://api.example.com\(crafted)","response":{"status":200}}
        """
      ])
  }

  @Test func aHeaderRegexThatGivesUpMatchesNothing() throws {
    var request = URLRequest(url: URL(string: "https://api.example.com/")!)
    request.setValue(Self.crafted, forHTTPHeaderField: "X-Token")
    let matcher = Matcher.header("X-Token", regex: "^(a+)+$")
    #expect(!matcher.matches(Request(request)))
    request.setValue("aaaa", forHTTPHeaderField: "X-Token")
    #expect(matcher.matches(Request(request)))
  }

  @Test func aWebSocketRuleThatGivesUpFallsThroughToTheNextRule() {
    let script = WebSocketScript(on: [
      .on(.regex("^(a+)+$"), reply: .text("nested")),
      .on(.any, reply: .text("any")),
    ])
    #expect(script.actions(for: .text(Self.crafted)).map(\.description) == ["send text \"any\""])
    #expect(script.actions(for: .text("aaaa")).map(\.description) == ["send text \"nested\""])
  }
}
