import Doppel
@_spi(DoppelInternals) import DoppelToolkit

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
        // The report's first line is the failure's headline (`… recorded an issue at
        // Stub.swift:12:3: No stub matched GET …`), the rest the comment printed below it: a
        // comment alone would be headed by Swift Testing's "Issue recorded".
        let (headline, rest) = DoppelFailure.split(message)
        Issue.record(
          DoppelFailure(headline: headline), rest.map(Comment.init(rawValue:)), sourceLocation: sourceLocation)
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
  /// A failure DoppelTesting records in Swift Testing: the report's first line, which Swift Testing
  /// prints as the issue's headline; the rest of the report is the issue's comment.
  struct DoppelFailure: Error, CustomStringConvertible, CustomTestStringConvertible {
    /// The report's first line.
    var headline: String

    var description: String { headline }
    var testDescription: String { headline }

    /// `message`'s first line, and the lines after it (`nil` when there are none).
    static func split(_ message: String) -> (headline: String, rest: String?) {
      guard let newline = message.firstIndex(of: "\n") else { return (message, nil) }
      let rest = message[message.index(after: newline)...]
      return (String(message[..<newline]), rest.isEmpty ? nil : String(rest))
    }
  }

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
