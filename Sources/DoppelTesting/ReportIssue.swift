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
      Issue.record(Comment(rawValue: message), sourceLocation: location?.testing ?? test.sourceLocation)
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
