#if OpenAPI
  import Doppel
  import Foundation
  import Testing

  @testable import DoppelOpenAPI

  /// The quick parser for bodies being checked gives exactly the positioned parser's value, or
  /// leaves the body to it.
  @Suite struct FastJSONTests {
    static let handled = [
      #"{"id": 1, "name": "Bengal", "tags": ["a", "b"], "ok": true, "gone": null}"#,
      #"  [1, -2.5, 3e2, 0, -0, 1E-2, {"a": {}}, []]  "#,
      "[0.1, 0.3, -0.0, 4.35, 123456789012345, 1234567890123456, 0.000000000000001, 9007199254740993, 2.675]",
      #"{"big": 1e999, "small": -1e-999}"#,
      #""just a string""#, "42", "false",
    ]

    /// Escapes, non-ASCII text, a key written twice, broken JSON and deep nesting.
    static let leftToThePositionedParser = [
      #"{"name": "Tab\there"}"#, #"{"name": "Maine Coon ☃"}"#, #"{"a": 1, "a": 2}"#, #"{"a": 1,}"#,
      "[01]", "[1.]", "{", "", "nul", #"{"a" 1}"#,
      String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ]

    @Test(arguments: handled)
    func givesThePositionedParsersValue(_ text: String) throws {
      let bytes = Array(text.utf8)
      let quick = try #require(FastJSON.parse(bytes))
      let careful = try PositionedJSONParser.parse(bytes).jsonValue
      #expect(quick == careful)
    }

    /// Numbers of up to 17 digits, the point anywhere: the value `Double(_:)` reads.
    @Test func numbersAreReadAsDoubleReadsThem() throws {
      var random = SeededRandom(seed: 7)
      for _ in 0..<5000 {
        let count = 1 + Int(random.next() % 17)
        var digits = (0..<count).map { _ in String(random.next() % 10) }.joined()
        if digits.count > 1, digits.first == "0" { digits = "1" + digits.dropFirst() }
        let point = Int(random.next() % UInt64(count + 1))
        var text = digits
        if point > 0, point < count { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
        if random.next() % 2 == 0 { text = "-" + text }
        let parsed = try #require(FastJSON.parse(Array(text.utf8)))
        #expect(parsed == .number(Double(text)!), "\(text)")
        if case .number(let value) = parsed { #expect(value.sign == Double(text)!.sign, "\(text)") }
      }
    }

    @Test(arguments: leftToThePositionedParser)
    func leavesTheRestToThePositionedParser(_ text: String) {
      #expect(FastJSON.parse(Array(text.utf8)) == nil)
    }
  }
#endif
