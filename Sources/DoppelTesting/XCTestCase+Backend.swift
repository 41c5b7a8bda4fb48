#if canImport(XCTest)
  import Doppel
  import XCTest
  @_spi(DoppelInternals) import DoppelToolkit

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
    /// `session`) to the code under test.
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
      // The tear-down block captures only Sendable values (Apple's SDK requires a `@Sendable`
      // block): the test case waits in the failure log, found again by the watch's identity.
      let failures = XCTestFailureLog.shared
      let watch = failures.watch(self)
      addTeardownBlock {
        let (testCase, recorded) = failures.take(watch)
        let failed = scope.report(testCase: testCase, alreadyRecorded: recorded) || !recorded.isEmpty
        let policy = AttachmentPolicy.effective(nil, environment: ProcessInfo.processInfo.environment)
        if let testCase, policy.attaches(failed: failed || testCase.testRun?.hasSucceeded == false) {
          // `-[BreedListTests testShowsEmptyState]` on Apple platforms, `BreedListTests.testShowsEmptyState` on Linux.
          let words = testCase.name.split { " .[]-".contains($0) }.map(String.init)
          let test = AttachedTest(nameComponents: words, location: "\(scope.location)")
          XCTestPlatform.attach(attachments(for: scope.backend, test: test), to: testCase)
        }
      }
      return scope.backend
    }
  }

  /// The failures XCTest records for test cases that made a backend with `makeBackend`, so that
  /// the tear-down can tell which unmatched requests the test already failed for (by throwing
  /// their error, which prints as the near-miss report). The two XCTests call an observer
  /// differently; Platform/XCTestPlatform.swift holds both forms.
  final class XCTestFailureLog: NSObject, XCTestObservation, Sendable {
    static let shared: XCTestFailureLog = {
      let log = XCTestFailureLog()
      XCTestPlatform.register(log)
      return log
    }()

    /// A watched test case, by identity: what a tear-down block carries instead of the test case.
    struct Watch: Sendable, Hashable {
      fileprivate let id: ObjectIdentifier
    }

    private struct Watched {
      weak var testCase: XCTestCase?
      var failures: [String] = []
    }

    /// Watched test cases and their failures so far.
    private let watched = Locked<[Watch: Watched]>([:])

    /// Starts keeping the failures `testCase` records.
    func watch(_ testCase: XCTestCase) -> Watch {
      let watch = Watch(id: ObjectIdentifier(testCase))
      watched.withLock { $0[watch] = Watched(testCase: testCase) }
      return watch
    }

    /// The watched test case (`nil` once it is gone) and the failures it recorded so far; stops
    /// keeping them.
    func take(_ watch: Watch) -> (testCase: XCTestCase?, failures: [String]) {
      let entry = watched.withLock { $0.removeValue(forKey: watch) }
      return (entry?.testCase, entry?.failures ?? [])
    }

    /// Keeps `description` when `testCase` is watched.
    func record(_ description: String, for testCase: XCTestCase) {
      watched.withLock { state in
        let key = Watch(id: ObjectIdentifier(testCase))
        if state[key] != nil { state[key]?.failures.append(description) }
      }
    }
  }
#endif
