import Doppel

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
/// call to `withBackend`.
///
/// - Parameters:
///   - unmatched: what the backend does with requests no stub matches; by default they fail.
///   - requireAllStubsUsed: whether every stub must answer at least once.
///   - body: the code that uses the backend.
///   - fileID: the caller's file ID; unmatched requests are reported here.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
/// - Returns: what `body` returns.
@discardableResult
public func withBackend<R>(
  unmatched: UnmatchedPolicy = .fail, requireAllStubsUsed: Bool = false, _ body: (Backend) throws -> R,
  fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) rethrows -> R {
  let scope = BackendScope(
    unmatched: unmatched, requireAllStubsUsed: requireAllStubsUsed,
    location: CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  defer { scope.report() }
  return try Backend.$scoped.withValue(scope.backend) { try body(scope.backend) }
}

/// Runs `body` with a new backend, then reports what went wrong as test failures: the `async`
/// form of ``withBackend(unmatched:requireAllStubsUsed:_:fileID:filePath:line:column:)``.
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
  isolation: isolated (any Actor)? = #isolation, _ body: (Backend) async throws -> R,
  fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) async rethrows -> R {
  let scope = BackendScope(
    unmatched: unmatched, requireAllStubsUsed: requireAllStubsUsed,
    location: CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  defer { scope.report() }
  return try await Backend.$scoped.withValue(
    scope.backend, operation: { try await body(scope.backend) }, isolation: isolation)
}

extension BackendScope {
  /// Ends the scope and records its failures in the running test.
  func report(testCase: AnyObject? = nil) {
    for issue in finish() { reportIssue(issue.message, at: issue.location, testCase: testCase) }
  }
}
