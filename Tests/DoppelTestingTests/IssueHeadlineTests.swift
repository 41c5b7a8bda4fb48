@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import Testing

@testable import DoppelTesting

// Issue-handling traits, which observe the issues here, came with Swift 6.2.
#if compiler(>=6.2)
  /// What Swift Testing receives from Doppel: an issue whose headline is the report's first line (it
  /// prints `… recorded an issue at Stub.swift:12:3: Caught error: No stub matched GET …`), with the
  /// rest of the report as its comment. The issues are observed, and dropped, by an issue-handling
  /// trait, so this passing test records none (AttachmentTests checks the printed line itself).
  @Suite struct IssueHeadlineTests {
    /// The issues Doppel records while `body` runs in a `.doppel` scope, dropped before they fail
    /// this test.
    private func recordedIssues(
      _ trait: DoppelTrait = .doppel, _ body: @escaping @Sendable () async throws -> Void
    ) async throws -> [Issue] {
      let test = try #require(Test.current)
      let seen = Locked<[Issue]>([])
      let dropper = IssueHandlingTrait.compactMapIssues { issue in
        seen.withLock { $0.append(issue) }
        return nil
      }
      try await dropper.provideScope(for: test, testCase: Test.Case.current) {
        try await DoppelTrait.$enclosing.withValue(nil) {
          try await trait.attachingNothing.withBackend(for: test, testCase: Test.Case.current, body)
        }
      }
      return seen.withLock { $0 }
    }

    @Test func anUnmatchedRequestsHeadlineIsTheReportsFirstLine() async throws {
      let stubLine = #line + 2
      let issues = try await recordedIssues(
        .doppel { $0.stub(.get("https://api.example.com/breeds.json"), .json(Breed.all)) }
      ) {
        _ = await Backend.current.session.outcome("https://api.example.com/breed.json")
      }
      let issue = try #require(issues.first)
      #expect(issues.count == 1)
      #expect(issue.isFailure)
      #expect(issue.error.map { "\($0)" } == "No stub matched GET https://api.example.com/breed.json")
      #expect(issue.description.hasPrefix("Caught error: No stub matched GET https://api.example.com/breed.json"))
      let comment = try #require(issue.comments.first?.rawValue)
      #expect(
        comment.hasPrefix(
          "Closest stubs:\n  1. IssueHeadlineTests.swift:\(stubLine)  GET https://api.example.com/breeds.json\n"))
      #expect(issue.comments.count == 1)
      #expect(issue.sourceLocation?.line == stubLine)
    }

    @Test func aOneLineReportIsAllHeadline() async throws {
      let stubLine = #line + 1
      let issues = try await recordedIssues(.doppel { $0.stub(.get("/never"), .ok).expect(times: 1) }) {}
      let issue = try #require(issues.first)
      #expect(
        issue.error.map { "\($0)" }
          == "The stub GET /never was expected to answer 1 time but answered 0 times. Make the code under test send the request, or change the stub's expectation."
      )
      #expect(issue.comments.isEmpty)
      #expect(issue.sourceLocation?.line == stubLine)
    }
  }
#endif
