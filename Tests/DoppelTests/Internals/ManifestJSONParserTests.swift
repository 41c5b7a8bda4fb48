import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The positioned JSON reader behind manifest errors.
@Suite struct ManifestJSONParserTests {
  private func parse(_ text: String) throws(PositionedJSONParser.SyntaxError) -> PositionedJSON {
    try PositionedJSONParser.parse(Array(text.utf8))
  }

  /// `line:column: message` for a document that does not parse.
  private func failure(_ text: String) -> String {
    do {
      _ = try parse(text)
      return "parsed"
    } catch {
      return "\(TextPosition(offset: error.offset, in: Array(text.utf8))): \(error.message)"
    }
  }

  @Test func readsEveryKindOfValueAndKeepsMemberOrder() throws {
    let value = try parse(#"{"b": [1, -2.5e3, true, false, null], "a": {"s": "x"}, "0": 0}"#)
    #expect(value.serialized == #"{"b":[1,-2.5e3,true,false,null],"a":{"s":"x"},"0":0}"#)
    #expect(value.jsonValue == ["b": [1, -2500, true, false, nil], "a": ["s": "x"], "0": 0])
  }

  @Test func recordsWhereValuesAndKeysStart() throws {
    let text = "{\n  \"stubs\": [\n    {\"name\": \"é\", \"times\": 2}\n  ]\n}"
    let bytes = Array(text.utf8)
    let root = try parse(text)
    guard case .object(let members) = root.value, case .array(let stubs) = members[0].value.value,
      case .object(let stub) = stubs[0].value
    else {
      Issue.record("unexpected shape")
      return
    }
    #expect(TextPosition(offset: members[0].keyOffset, in: bytes) == TextPosition(line: 2, column: 3))
    #expect(TextPosition(offset: stubs[0].offset, in: bytes) == TextPosition(line: 3, column: 5))
    // Columns count characters, not bytes: "é" is two bytes.
    #expect(TextPosition(offset: stub[1].keyOffset, in: bytes) == TextPosition(line: 3, column: 19))
  }

  @Test func decodesEscapesIncludingSurrogatePairs() throws {
    let value = try parse(#"["\"\\\/\b\f\n\r\t", "\u00e9\u20AC", "\ud83d\ude00"]"#)
    #expect(value.jsonValue == ["\"\\/\u{08}\u{0C}\n\r\t", "é€", "😀"])
    #expect(try parse(#""a\u0001b""#).serialized == #""a\u0001b""#)
  }

  @Test func skipsAByteOrderMark() throws {
    #expect(try PositionedJSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)).serialized == "[1]")
  }

  @Test(
    arguments: Example.list([
      ("", "1:1: the file is empty; a manifest is a JSON object such as {\"stubs\": []}"),
      ("{\"a\": 1,}", "1:9: expected a key after \",\", found \"}\"; JSON does not allow a trailing comma"),
      ("[1, 2,]", "1:7: expected a value after \",\", found \"]\"; JSON does not allow a trailing comma"),
      ("{\"a\" 1}", "1:6: expected \":\" after the key \"a\", found \"1\""),
      ("{\"a\": 1\n \"b\": 2}", "2:2: expected \",\" or \"}\" after the value of \"a\", found \"\"\""),
      ("{a: 1}", "1:2: expected a key in double quotes, found \"a\""),
      ("['x']", "1:2: strings must be in double quotes, not single quotes"),
      (
        "[tru]",
        "1:2: \"tru\" is not a JSON value; strings need double quotes, and the literals are true, false and null"
      ),
      (
        "[nullx]",
        "1:2: \"nullx\" is not a JSON value; strings need double quotes, and the literals are true, false and null"
      ),
      ("[01]", "1:2: a number cannot start with 0 followed by more digits"),
      ("[1.]", "1:2: \"1.\" is not a JSON number (for example 12, -3.5 or 1e3)"),
      ("[-]", "1:2: \"-\" is not a JSON number (for example 12, -3.5 or 1e3)"),
      ("\"abc", "1:1: the string that starts here has no closing \""),
      (
        "[\"a\nb\"]",
        "1:4: a line break inside a string; write it as an escape (\\n, \\t, \\u00XX), or close the string"
      ),
      (#"["\q"]"#, #"1:3: \q is not a JSON escape; use \", \\, \/, \b, \f, \n, \r, \t or \uXXXX"#),
      (#"["\u12"]"#, "1:3: \\u must be followed by four hexadecimal digits"),
      (
        #"["\ud83d x"]"#,
        "1:3: the escape \\uD83D is the first half of a surrogate pair but no \\uDC00–\\uDFFF follows"
      ),
      (#"["\ude00"]"#, "1:3: the escape \\uDE00 is the second half of a surrogate pair without a first half"),
      ("{\"a\": 1, \"a\": 2}", "1:10: the key \"a\" appears twice in this object (first at 1:2); keep one"),
      ("{} {}", "1:4: unexpected \"{\" after the end of the JSON value"),
      ("{\"a\": [1, 2", "1:12: the file ends inside an array; a \"]\" is missing"),
      ("{\"a\": 1", "1:8: the file ends inside an object; a \"}\" is missing"),
      ("{\"a\":", "1:6: the file ends where a value was expected"),
    ]))
  func reportsSyntaxErrorsWithTheirPosition(example: Example<String, String>) {
    let (text, expected) = (example.input, example.expected)
    #expect(failure(text) == expected)
  }

  @Test func refusesDeepNestingInsteadOfOverflowing() {
    let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
    #expect(failure(deep) == "1:513: arrays and objects are nested more than 512 deep")
  }

  @Test func aRepeatedKeyIsFoundInALargeObjectToo() {
    // Objects of 16 members and more index their keys instead of comparing each.
    let members = (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
    // Columns from 1, after the "{": the first "k17" is preceded by the members before it.
    let first = (0..<17).map { "\"k\($0)\": \($0), ".utf8.count }.reduce(0, +) + 2
    #expect(
      failure("{\(members), \"k17\": 0}")
        == "1:\(members.utf8.count + 4): the key \"k17\" appears twice in this object (first at 1:\(first)); keep one")
  }

  @Test func aDeferredValueIsCheckedAsStrictlyAndReadsTheSame() throws {
    let text = #"{"a": {"json": {"b": [1, "\u00e9", {"c": null}], "d": "x\ny"}, "json2": [2]}}"#
    let deferred = try PositionedJSONParser.parse(Array(text.utf8), deferring: ["json"])
    #expect(deferred.serialized == (try parse(text)).serialized)
    #expect(deferred.jsonValue == (try parse(text)).jsonValue)
    // The same errors, at the same places, inside a deferred value as outside one.
    for bad in [
      #"{"json": {"a": [1, 2,]}}"#, #"{"json": {"a": 1, "a": 2}}"#, #"{"json": ["\q"]}"#, #"{"json": [01]}"#,
      #"{"json": {"a": tru}}"#, #"{"json": ["a"#, "{\"json\": " + String(repeating: "[", count: 600),
    ] {
      let plain = failure(bad)
      do {
        _ = try PositionedJSONParser.parse(Array(bad.utf8), deferring: ["json"])
        Issue.record("\(bad) parsed")
      } catch {
        #expect("\(TextPosition(offset: error.offset, in: Array(bad.utf8))): \(error.message)" == plain)
      }
    }
  }

  @Test func compactTextIsTheSerializedTextCopiedFromTheBytes() throws {
    let pretty = "{\n  \"b\" : [ 1, -2.5e3, true, null ],\n\t\"a\": { \"s\": \"x y é 🐈\" }\n}"
    let bytes = Array(("[0, " + pretty + "]").utf8)
    guard case .array(let items) = try PositionedJSONParser.parse(bytes).value else {
      Issue.record("not an array")
      return
    }
    #expect(items[1].compactText(in: bytes) == #"{"b":[1,-2.5e3,true,null],"a":{"s":"x y é 🐈"}}"#)
    #expect(items[1].compactText(in: bytes) == items[1].serialized)
    #expect(items[0].compactText(in: bytes) == "0")
    // With an escape, the tree's serialization, which writes escapes its own way.
    let escaped = Array(#"{"s": "\u00e9\/\"" }"#.utf8)
    #expect(try PositionedJSONParser.parse(escaped).compactText(in: escaped) == #"{"s":"é/\""}"#)
  }

  @Test func keyPathsQuoteKeysThatAreNotIdentifiers() {
    let path = ManifestKeyPath.root + "stubs" + 2 + "response" + "headers" + "Content-Type"
    #expect(path.description == #"stubs[2].response.headers["Content-Type"]"#)
    #expect((ManifestKeyPath.root + "$schema").description == "$schema")
  }

  @Test func suggestsCloseNames() {
    #expect(Suggestion.closest(to: "stauts", in: ["status", "headers"]) == "status")
    #expect(Suggestion.closest(to: "emtpy", in: ["standard", "empty"]) == "empty")
    #expect(Suggestion.closest(to: "WithMore", in: ["withMore"]) == "withMore")
    #expect(Suggestion.closest(to: "banana", in: ["status", "headers"]) == nil)
  }
}
