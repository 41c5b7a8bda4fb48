#if canImport(XCTest)
  import Doppel
  import XCTest

  /// What differs between Apple's XCTest and swift-corelibs-xctest, in one place. Everything else
  /// in DoppelTesting compiles the same on both.
  enum XCTestPlatform {
    /// Registers `log` as a test observer. Apple's XCTest accepts observers on the main thread
    /// only (it raises an exception otherwise); registered late, the log misses failures of the
    /// current test, and a rethrown unmatched request is then reported twice rather than once.
    static func register(_ log: XCTestFailureLog) {
      #if canImport(Darwin)
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
    }

    /// Attaches `files` to `testCase`'s results with `XCTAttachment`, kept whether the test passed
    /// or failed (Xcode shows them in the test report). swift-corelibs-xctest has no attachments:
    /// on Linux this does nothing, and `files` is never made.
    static func attach(_ files: @autoclosure () -> [(name: String, contents: [UInt8])], to testCase: XCTestCase) {
      #if canImport(Darwin)
        for file in files() {
          let attachment = XCTAttachment(data: Data(file.contents))
          attachment.name = file.name
          attachment.lifetime = .keepAlways
          testCase.add(attachment)
        }
      #endif
    }

    /// What a failure recorded at `location` is, in the terms both XCTests share; each records it
    /// in its own way (``XCTestCase/recordDoppelFailure(_:at:)``). Linux tests check it.
    struct Failure: Equatable, Sendable {
      let description: String
      let filePath: String
      let line: Int
      /// Apple's `XCTIssue` type: an assertion failure, as `XCTFail` records.
      let isAssertionFailure = true

      init(_ message: String, at location: Doppel.CodeLocation) {
        description = message
        filePath = location.filePath
        line = location.line
      }
    }
  }

  extension XCTestCase {
    /// Records a failure at an arbitrary file and line, as `XCTFail` would at its caller's: an
    /// `XCTIssue` with that source location on Apple platforms (where `recordFailure` is
    /// deprecated), `recordFailure(withDescription:inFile:atLine:expected:)` in corelibs XCTest,
    /// which has no `XCTIssue`.
    func recordDoppelFailure(_ message: String, at location: Doppel.CodeLocation) {
      let failure = XCTestPlatform.Failure(message, at: location)
      #if canImport(Darwin)
        record(
          XCTIssue(
            type: .assertionFailure, compactDescription: failure.description,
            sourceCodeContext: XCTSourceCodeContext(
              location: XCTSourceCodeLocation(filePath: failure.filePath, lineNumber: failure.line))))
      #else
        recordFailure(
          withDescription: failure.description, inFile: failure.filePath, atLine: failure.line,
          expected: failure.isAssertionFailure)
      #endif
    }
  }

  extension XCTestFailureLog {
    #if canImport(Darwin)
      /// Apple's XCTest reports each recorded issue.
      func testCase(_ testCase: XCTestCase, didRecord issue: XCTIssue) {
        record(issue.compactDescription, for: testCase)
      }
    #else
      /// corelibs XCTest reports each failure with its description.
      func testCase(
        _ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?,
        atLine lineNumber: Int
      ) {
        record(description, for: testCase)
      }
    #endif
  }
#endif
