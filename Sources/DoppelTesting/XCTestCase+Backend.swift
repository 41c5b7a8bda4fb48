#if canImport(XCTest)
  import Doppel
  import XCTest

  extension XCTestCase {
    /// A new backend for this test, verified when the test tears down.
    ///
    /// ```swift
    /// final class BreedListTests: XCTestCase {
    ///   func testShowsEmptyState() async throws {
    ///     let backend = makeBackend()
    ///     backend.stub(.get("/breeds.json"), .json([Breed]()))
    ///     let model = BreedListModel(session: backend.session)
    ///     try await model.load()
    ///     XCTAssertEqual(model.state, .empty)
    ///   }
    /// }
    /// ```
    ///
    /// At tear-down, each request no stub matched fails the test at the closest stub's declaration
    /// (or the line that called `makeBackend` when there is no stub), and each stub whose
    /// expectation was not met fails it at the line that declared the stub. When the test method
    /// rethrows an unmatched request's error, XCTest records that error, which prints as the same
    /// near-miss report (naming the closest stub's file and line), and the tear-down does not
    /// report that request again. ``Doppel/Backend/current`` is not set: pass the backend (or its
    /// `session`) to the code under test, or use ``withBackend(unmatched:requireAllStubsUsed:clock:_:fileID:filePath:line:column:)``.
    ///
    /// - Parameters:
    ///   - unmatched: what the backend does with requests no stub matches; by default they fail.
    ///   - requireAllStubsUsed: whether every stub must answer at least once.
    ///   - clock: the clock the backend's delays, pacing and timeouts run on; pass a `ManualClock` to
    ///     advance time by hand. By default the continuous clock.
    ///   - fileID: the caller's file ID; unmatched requests are reported here.
    ///   - filePath: the caller's file path.
    ///   - line: the caller's line.
    ///   - column: the caller's column.
    public func makeBackend(
      unmatched: UnmatchedPolicy = .fail, requireAllStubsUsed: Bool = false,
      clock: any Clock<Duration> = ContinuousClock(),
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Backend {
      let scope = BackendScope(
        unmatched: unmatched, requireAllStubsUsed: requireAllStubsUsed, clock: clock,
        location: CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column))
      let failures = XCTestFailureLog.shared
      failures.watch(self)
      addTeardownBlock { [self] in
        scope.report(testCase: self, alreadyRecorded: failures.take(for: self))
      }
      return scope.backend
    }

    /// Runs `body` with a new backend, then fails this test for each request no stub matched and
    /// each stub expectation not met, at the exact lines: the XCTest form of the global
    /// `withBackend`, which it shadows inside test methods. Inside `body`,
    /// ``Doppel/Backend/current`` is the new backend.
    ///
    /// ```swift
    /// func testShowsEmptyState() throws {
    ///   try withBackend { backend in
    ///     backend.stub(.get("/breeds.json"), .json([Breed]()))
    ///     …
    ///   }
    /// }
    /// ```
    @discardableResult
    public func withBackend<R>(
      unmatched: UnmatchedPolicy = .fail, requireAllStubsUsed: Bool = false,
      clock: any Clock<Duration> = ContinuousClock(), _ body: (Backend) throws -> R,
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) rethrows -> R {
      try BackendScope(
        unmatched: unmatched, requireAllStubsUsed: requireAllStubsUsed, clock: clock,
        location: CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
      ).run(reportingTo: self, body)
    }

    /// The `async` form of ``withBackend(unmatched:requireAllStubsUsed:clock:_:fileID:filePath:line:column:)``.
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
      ).run(reportingTo: self, isolation: isolation, body)
    }
  }

  /// The failures XCTest records for test cases that made a backend with `makeBackend`, so that
  /// the tear-down can tell which unmatched requests the test already failed for (by throwing
  /// their error, which prints as the near-miss report).
  final class XCTestFailureLog: NSObject, XCTestObservation, Sendable {
    static let shared: XCTestFailureLog = {
      let log = XCTestFailureLog()
      #if canImport(Darwin)
        // XCTest on Apple platforms registers observers on the main thread only (it raises an
        // exception otherwise). Registered late, the log misses failures of the current test, and
        // a rethrown unmatched request is then reported twice rather than once.
        if Thread.isMainThread {
          MainActor.assumeIsolated { XCTestObservationCenter.shared.addTestObserver(log) }
        } else {
          DispatchQueue.main.async {
            MainActor.assumeIsolated { XCTestObservationCenter.shared.addTestObserver(log) }
          }
        }
      #else
        XCTestObservationCenter.shared.addTestObserver(log)
      #endif
      return log
    }()

    /// Failure descriptions by watched test case.
    private let failures = Locked<[ObjectIdentifier: [String]]>([:])

    /// Starts keeping the failures `testCase` records.
    func watch(_ testCase: XCTestCase) {
      failures.withLock { $0[ObjectIdentifier(testCase), default: []] = [] }
    }

    /// The failures `testCase` recorded so far; stops keeping them.
    func take(for testCase: XCTestCase) -> [String] {
      failures.withLock { $0.removeValue(forKey: ObjectIdentifier(testCase)) ?? [] }
    }

    func record(_ description: String, for testCase: XCTestCase) {
      failures.withLock { state in
        let key = ObjectIdentifier(testCase)
        if state[key] != nil { state[key]?.append(description) }
      }
    }

    #if canImport(Darwin)
      func testCase(_ testCase: XCTestCase, didRecord issue: XCTIssue) {
        record(issue.compactDescription, for: testCase)
      }
    #else
      func testCase(
        _ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?,
        atLine lineNumber: Int
      ) {
        record(description, for: testCase)
      }
    #endif
  }
#endif
