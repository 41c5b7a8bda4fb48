import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Numbers in a manifest: every one is range-checked before it is converted, so no value, however
/// large, small or fractional, can trap; each refusal says the allowed range.
extension ManifestReader {
  /// The longest `delay` or chunk interval: 24 hours. A response that never comes is
  /// `"never": true`.
  static let maximumDelaySeconds = 86_400.0
  /// The largest count (`times`) and byte count (`throttle`, chunk `size`, `dropAfterBytes`).
  static let maximumCount = 1_000_000_000

  /// A whole number in `range`; `what` names the value and its range for messages.
  func integer(
    _ node: PositionedJSON, _ path: ManifestKeyPath, in range: ClosedRange<Int>, what: String
  ) throws(ManifestProblem) -> Int {
    let (literal, value) = try numberValue(node, path, what: what) { Int($0).map(range.contains) == true }
    guard value.isFinite, value.rounded(.towardZero) == value else {
      throw error(node, path, "expected \(what), found the number \(literal), which is not a whole number.")
    }
    // Compared as doubles first: `Int(exactly:)` of a number beyond Int's range is nil.
    guard value >= Double(range.lowerBound) else {
      throw error(node, path, "expected \(what), found the number \(literal), which is too small.")
    }
    guard value <= Double(range.upperBound), let integer = Int(exactly: value), range.contains(integer) else {
      throw error(node, path, "expected \(what), found the number \(literal), which is too large.")
    }
    return integer
  }

  /// A count from `lower` to ``maximumCount`` (a `times`, or a number of bytes); `what` names it
  /// for messages, which add the range.
  func count(
    _ node: PositionedJSON, _ path: ManifestKeyPath, from lower: Int, what: String
  ) throws(ManifestProblem) -> Int {
    try integer(node, path, in: lower...Self.maximumCount, what: "\(what) (\(lower) to \(Self.maximumCount))")
  }

  /// A number in `range` (fractions allowed); `what` names the value and its range for messages.
  func number(
    _ node: PositionedJSON, _ path: ManifestKeyPath, in range: ClosedRange<Double>, what: String
  ) throws(ManifestProblem) -> Double {
    let (literal, value) = try numberValue(node, path, what: what) { Double($0).map(range.contains) == true }
    guard value.isFinite, range.contains(value) else {
      throw error(node, path, "expected \(what), found the number \(literal), which is out of range.")
    }
    return value
  }

  /// The number `node` holds, as written and as a double; anything else is refused, and a number
  /// in quotes that `fits` is told to drop its quotes.
  private func numberValue(
    _ node: PositionedJSON, _ path: ManifestKeyPath, what: String, fits: (String) -> Bool
  ) throws(ManifestProblem) -> (literal: String, value: Double) {
    switch node.value {
    case .number(let literal):
      return (literal, PositionedJSON.number(literal))
    case .string(let text) where fits(text):
      throw error(node, path, "expected \(what), found \(node.kind). Write the number without quotes: \(text).")
    default:
      throw error(node, path, "expected \(what), found \(node.kind).")
    }
  }

  /// A duration: a number of seconds (`0.25`) or a string with a unit (`"250ms"`, `"1.5s"`), from
  /// 0 to ``maximumDelaySeconds``.
  func duration(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> Duration {
    let fix = "Write a number of seconds (0.25) or a string with a unit: \"250ms\" or \"1.5s\"."
    let seconds: Double
    let shown: String
    var milliseconds: Double?
    switch node.value {
    case .number(let literal):
      seconds = PositionedJSON.number(literal)
      shown = "\(literal) seconds"
    case .string(let text):
      let inMilliseconds = text.hasSuffix("ms")
      let digits = inMilliseconds ? text.dropLast(2) : text.hasSuffix("s") ? text.dropLast() : ""
      guard digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(digits) else {
        throw error(node, path, "\(node.kind) is not a duration. \(fix)")
      }
      if inMilliseconds { milliseconds = value }
      seconds = inMilliseconds ? value / 1000 : value
      shown = "\"\(text)\""
    default:
      throw error(node, path, "expected a duration, found \(node.kind). \(fix)")
    }
    guard seconds >= 0 else {
      throw error(node, path, "a duration cannot be negative, found \(shown). Write 0 or more seconds.")
    }
    guard seconds.isFinite, seconds <= Self.maximumDelaySeconds else {
      throw error(
        node, path,
        "\(shown) is longer than the longest duration, 86400 seconds (24 hours). Write a shorter one; for a response that never comes, write \"never\": true."
      )
    }
    // In range now, so the conversions cannot trap.
    return milliseconds.map { .milliseconds($0) } ?? .seconds(seconds)
  }
}
