import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// One backend's life inside a test: it collects what the backend reports while the test runs and,
/// when the test ends, turns that and `Backend.verify()` into the test's failures.
///
/// Issues are collected rather than recorded as they happen because they happen on any thread
/// (`URLProtocol` callbacks, stub closures), where the test's task-local context is missing and a
/// test framework cannot tell which test they belong to. They are recorded when the scope ends, in
/// the test's own task, in the order they happened, followed by the unmet stub expectations.
///
/// An unmatched request is reported once: the backend reports it live (with the default
/// `UnmatchedPolicy.fail`), and the copy `Backend.verify()` returns for it is skipped. So an
/// unmatched request answered by `UnmatchedPolicy.respond(_:)` or sent on by
/// `UnmatchedPolicy.passthrough` is not a failure: the test chose to let it through.
final class BackendScope: Sendable {
  let backend: Backend
  /// Where issues without a location of their own point: the test, or the line that called
  /// `makeBackend()`.
  let location: CodeLocation
  private let collected: Locked<Collected>

  private struct Collected {
    var issues: [DoppelIssue] = []
    var isFinished = false
  }

  init(
    unmatched: UnmatchedPolicy = .fail, requireAllStubsUsed: Bool = false,
    clock: any Clock<Duration> = ContinuousClock(), location: CodeLocation,
    lateIssues: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
  ) {
    let collected = Locked(Collected())
    self.collected = collected
    self.location = location
    backend = Backend(
      unmatched: unmatched,
      issueReporter: IssueReporter { issue in
        let late = collected.withLock { state -> Bool in
          if state.isFinished { return true }
          state.issues.append(issue)
          return false
        }
        if late {
          lateIssues("Doppel: after the test ended: \(issue)\n")
        }
      }, clock: clock)
    backend.requiresAllStubsUsed = requireAllStubsUsed
  }

  /// Ends the scope and returns the test's failures, each with a location. Issues the backend
  /// reports afterwards go to standard error.
  func finish() -> [DoppelIssue] { finish(thrown: nil).issues }

  /// Ends the scope after the test threw `thrown` (or returned, when `nil`) and returns the test's
  /// failures, each with a location, and the index of the issue that `thrown` is the error of, when
  /// it is an unmatched request this scope reports (then the error need not be reported itself).
  ///
  /// An unmatched request's issue points at the closest stub's declaration, or at the scope's
  /// location when the backend had no stub.
  func finish(thrown: (any Error)?) -> (issues: [DoppelIssue], thrownErrorIssue: Int?) {
    let live = collected.withLock { state in
      state.isFinished = true
      return state.issues
    }
    // The unmatched requests verify() returns are already among `live`, reported as they happened.
    let unmet = backend.verify().filter { !$0.isUnmatchedRequest }
    let issues = (live + unmet).map { issue in issue.location == nil ? issue.with(location: location) : issue }
    // The issue may carry more than the error (a cassette adds the command that records it).
    let thrownIssue = thrown.flatMap { DoppelIssue.unmatchedReport(in: $0) }.flatMap { report in
      issues.firstIndex { $0.isUnmatchedRequest && $0.message.hasPrefix(report) }
    }
    return (issues, thrownIssue)
  }
}

extension BackendScope {
  /// Ends the scope and records its failures in the running test, except each unmatched request
  /// whose report one of `recorded` (failures the test framework already recorded, such as the
  /// error the test threw) contains: that request has been reported once already.
  ///
  /// - Returns: whether the scope had any failure, reported here or before.
  @discardableResult
  func report(testCase: AnyObject?, alreadyRecorded recorded: [String]) -> Bool {
    var recorded = recorded
    let issues = finish()
    for issue in issues {
      if issue.isUnmatchedRequest, let index = recorded.firstIndex(where: { $0.contains(issue.message) }) {
        recorded.remove(at: index)
        continue
      }
      reportIssue(issue.message, at: issue.location, testCase: testCase)
    }
    return !issues.isEmpty
  }
}
