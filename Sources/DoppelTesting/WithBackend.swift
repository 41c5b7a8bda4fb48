import Doppel
import Foundation

#if canImport(Testing)
  import Testing
#endif

/// Runs `body` with a new backend, then reports what went wrong as test failures.
///
/// Use it where the `.doppel` trait does not reach: an XCTest test, a helper, or a part of a test
/// that needs a backend of its own. Inside `body`, ``Doppel/Backend/current`` is the new backend.
///
/// ```swift
/// @Test func showsEmptyState() throws {
///   try withBackend { backend in
///     backend.stub(.get("/breeds.json"), .json([Breed]()))
///     …
///   }
/// }
/// ```
///
/// When `body` returns or throws, each request no stub matched and each stub whose expectation
/// (`StubHandle.expect(times:)`, `StubHandle.expect(atLeast:)`, or
/// `requireAllStubsUsed`) was not met is recorded as a failure of the running test, in Swift Testing
/// or XCTest. A stub's failure points at the line that declared it; an unmatched request's at the
/// closest stub's declaration (or the call to `withBackend` when there is no stub). When `body`
/// rethrows an unmatched request's error, it is rethrown as a `DoppelError` whose
/// description is the near-miss report, and not reported a second time.
///
/// - Parameters:
///   - unmatched: what the backend does with requests no stub matches; by default they fail.
///   - requireAllStubsUsed: whether every stub must answer at least once.
///   - clock: the clock the backend's delays, pacing and timeouts run on; pass a `ManualClock` to
///     advance time by hand. By default the continuous clock.
///   - body: the code that uses the backend.
///   - fileID: the caller's file ID; unmatched requests are reported here.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
/// - Returns: what `body` returns.
@discardableResult
public func withBackend<R>(
  unmatched: UnmatchedPolicy = .fail, requireAllStubsUsed: Bool = false,
  clock: any Clock<Duration> = ContinuousClock(), _ body: (Backend) throws -> R,
  fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) rethrows -> R {
  try BackendScope(
    unmatched: unmatched, requireAllStubsUsed: requireAllStubsUsed, clock: clock,
    location: CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  ).run(reportingTo: nil, body)
}

/// Runs `body` with a new backend, then reports what went wrong as test failures: the `async`
/// form of ``withBackend(unmatched:requireAllStubsUsed:clock:_:fileID:filePath:line:column:)``.
///
/// ```swift
/// @Test func showsEmptyState() async throws {
///   try await withBackend { backend in
///     backend.stub(.get("/breeds.json"), .json([Breed]()))
///     let model = BreedListModel(session: backend.session)
///     try await model.load()
///     #expect(model.state == .empty)
///   }
/// }
/// ```
@discardableResult
public func withBackend<R>(
  unmatched: UnmatchedPolicy = .fail, requireAllStubsUsed: Bool = false,
  clock: any Clock<Duration> = ContinuousClock(),
  isolation: isolated (any Actor)? = #isolation, _ body: (Backend) async throws -> R,
  fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) async rethrows -> R {
  try await BackendScope(
    unmatched: unmatched, requireAllStubsUsed: requireAllStubsUsed, clock: clock,
    location: CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  ).run(reportingTo: nil, isolation: isolation, body)
}

extension BackendScope {
  /// Runs `body` with the scope's backend (which is ``Doppel/Backend/current`` inside it), then
  /// ends the scope and records its failures in the running test, for `testCase` under XCTest;
  /// an error `body` throws is rethrown as ``report(rethrowing:testCase:)`` turns it.
  func run<R>(reportingTo testCase: AnyObject?, _ body: (Backend) throws -> R) rethrows -> R {
    do {
      let result = try Backend.$scoped.withValue(backend) { try body(backend) }
      report(testCase: testCase)
      return result
    } catch {
      throw report(rethrowing: error, testCase: testCase)
    }
  }

  /// The `async` form of ``run(reportingTo:_:)``, running `body` on `isolation`.
  func run<R>(
    reportingTo testCase: AnyObject?, isolation: isolated (any Actor)?, _ body: (Backend) async throws -> R
  ) async rethrows -> R {
    do {
      let result = try await Backend.$scoped.withValue(
        backend, operation: { try await body(backend) }, isolation: isolation)
      report(testCase: testCase)
      return result
    } catch {
      throw report(rethrowing: error, testCase: testCase)
    }
  }

  /// Ends the scope and records its failures in the running test.
  func report(testCase: AnyObject? = nil) {
    let failed = report(testCase: testCase, alreadyRecorded: [])
    attach(failed: failed)
  }

  /// Under Swift Testing, attaches the backend's traffic to the running test as
  /// `AttachmentPolicy.effective` says (`DOPPEL_ATTACH`, or on failure): a failure here is one
  /// this scope reported or an error the body threw.
  func attach(failed: Bool) {
    #if canImport(Testing) && compiler(>=6.2)
      guard Test.current != nil else { return }
      let policy = AttachmentPolicy.effective(nil, environment: ProcessInfo.processInfo.environment)
      if policy.attaches(failed: failed) { recordAttachments(for: backend, sourceLocation: location.testing) }
    #endif
  }

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

  /// Ends the scope after its body threw `error`, records its failures in the running test, and
  /// returns the error to rethrow. When `error` is the error of an unmatched request the scope
  /// reports, that report is left to the rethrown error, a `DoppelError` whose description
  /// is the near-miss report, so that the test shows it once and readably (not as an `NSError`
  /// dump, and not twice).
  func report(rethrowing error: any Error, testCase: AnyObject? = nil) -> any Error {
    let (issues, thrownErrorIssue) = finish(thrown: error)
    for (index, issue) in issues.enumerated() where index != thrownErrorIssue {
      reportIssue(issue.message, at: issue.location, testCase: testCase)
    }
    attach(failed: true)
    return thrownErrorIssue.map { DoppelError.unmatchedRequest(issues[$0].message) } ?? error
  }
}
