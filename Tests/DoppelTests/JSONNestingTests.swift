import Doppel
import Foundation
import Testing

/// `JSONValue(parsing:)` reads bodies from outside; Foundation's decoder crashes on arrays nested
/// more than 512 deep, so such input is refused before it reaches the decoder.
@Suite struct JSONNestingTests {
  @Test func nestingBeyondTheLimitThrowsInsteadOfCrashing() {
    for open in ["[", "{\"a\":"] {
      let data = Data(String(repeating: open, count: 513).utf8)
      do {
        _ = try JSONValue(parsing: data)
        Issue.record("deep JSON was accepted")
      } catch let DecodingError.dataCorrupted(context) {
        #expect(context.debugDescription == "The JSON nests arrays and objects more than 512 deep. Flatten it.")
      } catch {
        Issue.record("unexpected error \(error)")
      }
    }
  }

  @Test func nestingUpToTheLimitAndBracketsInStringsStillParse() throws {
    let depth = 511
    let deep = String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth)
    var value = try JSONValue(parsing: Data(deep.utf8))
    for _ in 0..<depth {
      guard case .array(let items) = value, let first = items.first else {
        Issue.record("not an array")
        return
      }
      value = first
    }
    #expect(value == .number(1))
    let text = "{\"a\": \"" + String(repeating: "[", count: 600) + "\\\"{\"}"
    #expect(
      try JSONValue(parsing: Data(text.utf8)) == .object(["a": .string(String(repeating: "[", count: 600) + "\"{")]))
  }
}
