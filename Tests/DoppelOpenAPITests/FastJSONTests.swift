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

    @Test(arguments: leftToThePositionedParser)
    func leavesTheRestToThePositionedParser(_ text: String) {
      #expect(FastJSON.parse(Array(text.utf8)) == nil)
    }
  }
#endif
