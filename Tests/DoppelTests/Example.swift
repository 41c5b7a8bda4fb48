import Foundation
import Testing

/// One case of a parameterized test that checks what an input gives (an error's message, say):
/// the run's output names the case by its number and the start of its input, on one line
/// (`example → #3 {"stubs": [{"request": "GET /a", "resp…`), so a passing run shows no
/// multi-line document and no expected error text that reads like a failure.
struct Example<Input: Sendable, Expected: Sendable>: Sendable, CustomTestStringConvertible,
  CustomTestArgumentEncodable
{
  /// The case's place in its list, from 1.
  let number: Int
  let input: Input
  let expected: Expected

  var testDescription: String {
    let text = "\(input)".replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
    if text.isEmpty { return "#\(number) (empty)" }
    return "#\(number) " + (text.count > 40 ? "\(text.prefix(40))…" : text)
  }

  /// The case's number, which names it when a tool runs one case again.
  func encodeTestArgument(to encoder: some Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(number)
  }

  /// `cases`, numbered from 1.
  static func list(_ cases: [(Input, Expected)]) -> [Example] {
    cases.enumerated().map { Example(number: $0.offset + 1, input: $0.element.0, expected: $0.element.1) }
  }

  /// `cases` with two expected values each, numbered from 1.
  static func list<A: Sendable, B: Sendable>(_ cases: [(Input, A, B)]) -> [Example] where Expected == (A, B) {
    cases.enumerated().map {
      Example(number: $0.offset + 1, input: $0.element.0, expected: ($0.element.1, $0.element.2))
    }
  }
}
