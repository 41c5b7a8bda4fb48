#if canImport(XCTest)
  import Foundation
  import XCTest

  @testable import DoppelTesting

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  final class XCTestSupportTests: XCTestCase {
    func testMakeBackendPassesWhenEveryExpectationIsMet() async throws {
      let backend = makeBackend()
      backend.stub(.get("/breeds.json"), .json([Breed]())).expect(times: 1)
      let model = BreedListModel(session: backend.session)
      try await model.load()
      XCTAssertEqual(model.state, .empty)
      XCTAssertEqual(backend.requests.count, 1)
    }

    func testTheFailuresATearDownReports() async {
      let scope = BackendScope(location: Doppel.CodeLocation())
      let line = #line + 1
      scope.backend.stub(.get("/breeds.json"), .ok).expect(times: 2)
      _ = await scope.backend.session.outcome("https://api.example.com/breeds.json")
      _ = await scope.backend.session.outcome("https://api.example.com/cats.json")
      let issues = scope.finish()
      XCTAssertEqual(issues.count, 2)
      XCTAssertEqual(issues.first?.message.hasPrefix("No stub matched GET https://api.example.com/cats.json"), true)
      // The unmatched request points at the closest stub, like the unmet expectation.
      XCTAssertEqual(issues.first?.location?.line, line)
      XCTAssertEqual(issues.last?.location?.line, line)
      XCTAssertEqual(issues.last?.location?.filePath, #filePath)
    }
  }

  #if !canImport(Darwin)
    /// Runs real failing tests and captures the failures XCTest would record, to check their text,
    /// file and line.
    final class XCTestFailureCaptureTests: XCTestCase {
      private struct Failure: Equatable {
        let description: String
        let filePath: String
        let line: Int
      }

      private var captured: [Failure] = []
      private var expected: [Failure] = []

      override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
      ) {
        captured.append(Failure(description: description, filePath: filePath, line: lineNumber))
        // What XCTest's own recordFailure does, which this override replaces: tell the observers.
        XCTestFailureLog.shared.testCase(
          self, didFailWithDescription: description, inFile: filePath, atLine: lineNumber)
      }

      override func tearDown() {
        // Teardown blocks (where makeBackend verifies) have run by now.
        let captured = captured
        self.captured = []
        if captured != expected {
          super.recordFailure(
            withDescription: "captured \(captured), expected \(expected)", inFile: #filePath, atLine: #line,
            expected: true)
        }
        super.tearDown()
      }

      func testMakeBackendFailsAtTearDownAtTheRightLines() async {
        let backend = makeBackend(clock: ManualClock())
        XCTAssertTrue(backend.clock is ManualClock)
        let stubLine = #line + 1
        backend.stub(.get("/breeds.json"), .ok).expect(times: 1)
        _ = await backend.session.outcome("https://api.example.com/cats.json")
        expected = [
          Failure(
            description: backend.journal[0].unmatchedReport ?? "", filePath: #filePath, line: stubLine),
          Failure(
            description: "The stub GET /breeds.json was expected to answer 1 time but answered 0 times. "
              + "Make the code under test send the request, or change the stub's expectation.",
            filePath: #filePath, line: stubLine),
        ]
        XCTAssertTrue(captured.isEmpty, "nothing is recorded before tear-down")
      }

      func testMakeBackendWithoutStubsFailsAtTheLineThatMadeIt() async {
        let callLine = #line + 1
        let backend = makeBackend()
        _ = await backend.session.outcome("https://api.example.com/cats.json")
        expected = [
          Failure(description: backend.journal[0].unmatchedReport ?? "", filePath: #filePath, line: callLine)
        ]
        // tearDown compares what was captured with `expected`.
      }

      func testMakeBackendReportsAnUnmatchedRequestTheTestRethrowsOnceAsTheReport() async throws {
        let backend = makeBackend()
        let stubLine = #line + 1
        backend.stub(.get("/breeds.json"), .ok)
        defer {
          let report = backend.journal.first?.unmatchedReport ?? "(no report)"
          XCTAssertTrue(report.contains("XCTestSupportTests.swift:\(stubLine)"))
          // XCTest records what the test threw, and it reads as the report; the tear-down adds nothing.
          expected = [Failure(description: "threw error \"\(report)\"", filePath: "<EXPR>", line: 0)]
        }
        _ = try await backend.session.data(from: URL(string: "https://api.example.com/cats.json")!)
      }
    }
  #endif
#endif
