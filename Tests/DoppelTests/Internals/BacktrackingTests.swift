import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// A regular expression comes from a stub and the text from the client: a pattern that backtracks
/// exponentially must not let one request hold a thread for hours.
@Suite struct BacktrackingTests {
  /// 2^40 ways to split the a's between the groups: hours of backtracking without a limit.
  private static let crafted = String(repeating: "a", count: 40) + "!"

  @Test func aSearchGivesUpAfterItsStepLimit() throws {
    let nested = try NSRegularExpression(pattern: "^(a+)+$")
    #expect(nested.search(Self.crafted) == .gaveUp)
    #expect(nested.search("aaaa") == .found)
    #expect(nested.search("aaa!") == .notFound)
  }

  /// A stub's pattern remembers the text it last gave up on (a request's text is searched again by
  /// the near-miss ranking and report), and that memory changes no other text's answer.
  @Test func aPatternRemembersOnlyTheTextItGaveUpOn() throws {
    let pattern = try Pattern.compile("^(a+)+$", what: "path").get()
    let copy = pattern
    #expect(pattern.search(Self.crafted) == .gaveUp)
    #expect(copy.search(Self.crafted) == .gaveUp)
    #expect(pattern.search("aaaa") == .found)
    #expect(pattern.search("aaa!") == .notFound)
    #expect(!pattern.matches(Self.crafted))
    let other = String(repeating: "a", count: 41) + "!"
    #expect(pattern.search(other) == .gaveUp)
    #expect(pattern.search(Self.crafted) == .gaveUp)
  }

  /// The limit counts steps, not time, and a pattern that does not backtrack reads a megabyte,
  /// whether it finds a match or not.
  @Test func aLinearPatternReadsAMegabyteWithinTheLimit() throws {
    let letters = try NSRegularExpression(pattern: "^[a-z]+$")
    let long = String(repeating: "a", count: 1_000_000)
    #expect(letters.search(long) == .found)
    #expect(letters.search(long + "!") == .notFound)
  }
}
