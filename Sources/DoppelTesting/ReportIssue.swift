import Doppel

#if canImport(Testing)
  import Testing
#endif

#if canImport(XCTest)
  import XCTest
#endif

/// Records a test failure in whichever framework is running: Swift Testing when there is a current
/// `Test`, otherwise XCTest. Every failure this module reports goes through here.
///
/// - Parameters:
///   - location: where the failure points; `nil` means the running test itself.
///   - testCase: the running XCTest case, when known. With it the failure lands exactly at
///     `location`, which may be in any file (a stub's declaration); without it `XCTFail` can only
///     name the location in its message.
func reportIssue(_ message: String, at location: Doppel.CodeLocation?, testCase: AnyObject? = nil) {
  #if canImport(Testing)
    if let test = Test.current {
      let sourceLocation = location?.testing ?? test.sourceLocation
      if let capture = IssueCapture.current {
        capture.append(message, at: sourceLocation)
      } else {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
      }
      return
    }
  #endif
  #if canImport(XCTest)
    if let testCase = testCase as? XCTestCase, let location {
      testCase.recordDoppelFailure(message, at: location)
    } else {
      XCTFail(location.map { "\($0): \(message)" } ?? message)
    }
  #else
    print("\(location.map { "\($0): " } ?? "")error: \(message)")
  #endif
}

#if canImport(Testing)
  /// The failures DoppelTesting reports inside ``capture(_:)``, kept instead of recorded: how
  /// DoppelTesting's own tests check a failure's exact text and location without recording an
  /// issue (a known issue would be printed by every passing run). Internal: for those tests only.
  final class IssueCapture: Sendable {
    /// A failure as `Issue.record` would have received it.
    struct Captured: Sendable, Equatable {
      var message: String
      var sourceLocation: Testing.SourceLocation
    }

    @TaskLocal static var current: IssueCapture?

    private let captured = Locked<[Captured]>([])

    func append(_ message: String, at sourceLocation: Testing.SourceLocation) {
      captured.withLock { $0.append(Captured(message: message, sourceLocation: sourceLocation)) }
    }

    /// Runs `body`, and returns what it returned (or threw) with the failures reported meanwhile.
    static func capture<T>(
      _ body: () async throws -> T
    ) async -> (result: Result<T, any Error>, issues: [Captured]) {
      let capture = IssueCapture()
      let result: Result<T, any Error>
      do {
        result = .success(try await $current.withValue(capture) { try await body() })
      } catch {
        result = .failure(error)
      }
      return (result, capture.captured.withLock { $0 })
    }

    /// The synchronous form of ``capture(_:)``.
    static func captureSynchronously<T>(_ body: () throws -> T) -> (result: Result<T, any Error>, issues: [Captured]) {
      let capture = IssueCapture()
      let result: Result<T, any Error>
      do {
        result = .success(try $current.withValue(capture) { try body() })
      } catch {
        result = .failure(error)
      }
      return (result, capture.captured.withLock { $0 })
    }
  }

  extension Doppel.CodeLocation {
    /// The same location for Swift Testing.
    var testing: Testing.SourceLocation {
      Testing.SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// The location of a Swift Testing source location.
    init(_ location: Testing.SourceLocation) {
      self.init(fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
    }
  }
#endif
