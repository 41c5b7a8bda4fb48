#if canImport(XCTest)
  import Testing
  import XCTest

  @testable import DoppelTesting

  /// The part of recording an XCTest failure that both XCTests share: what Apple's `XCTIssue` and
  /// corelibs' `recordFailure` are each given. `XCTestSupportTests` records through the Linux form, and its tear-down tests find each test case
  /// again by identity.
  @Suite struct XCTestPlatformTests {
    @Test func aFailureKeepsItsMessageFileAndLine() {
      let location = CodeLocation(
        fileID: "AppTests/BreedTests.swift", filePath: "/p/AppTests/BreedTests.swift", line: 42, column: 5)
      let failure = XCTestPlatform.Failure("GET /breeds matched no stub", at: location)
      #expect(failure.description == "GET /breeds matched no stub")
      #expect(failure.filePath == "/p/AppTests/BreedTests.swift")
      #expect(failure.line == 42)
      #expect(failure.isAssertionFailure)
    }
  }
#endif
