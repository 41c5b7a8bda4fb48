import Doppel
import Foundation
import Testing

/// HAR problems are reported as manifest problems are: `file:line:column: JSON path: what is
/// wrong. The fix.`, with the true cause, and no number crashes anything.
@Suite struct HARReadingTests {
  private static func entry(method: String = #""GET""#, status: String = "200", size: String = "0", time: String = "1")
    -> String
  {
    #"{"log": {"entries": [{"time": \#(time), "request": {"method": \#(method), "url": "https://a.com/"}, "response": {"status": \#(status), "content": {"size": \#(size)}}}]}}"#
  }

  private static func error(_ json: String) -> String {
    do {
      _ = try Cassette(data: Data(json.utf8), file: "bad.har")
      return "loaded"
    } catch {
      return "\(error)"
    }
  }

  @Test(
    arguments: Example.list([
      (
        entry(status: "200.5"),
        "bad.har:1:112: log.entries[0].response.status: expected a whole number, found the number 200.5, which is not a whole number. Fix the value, or export the capture again."
      ),
      (
        entry(status: "1e300"),
        "bad.har:1:112: log.entries[0].response.status: expected a whole number from -9007199254740992 to 9007199254740992, found the number 1e300, which is too large. Fix the value, or export the capture again."
      ),
      (
        entry(status: "1e3"),
        "bad.har:1:112: log.entries[0].response.status: 1000 is not an HTTP status. Use 100 to 599, or 0 for a request that got no response."
      ),
      (
        entry(size: "18446744073709551616"),
        "bad.har:1:137: log.entries[0].response.content.size: expected a whole number from -9007199254740992 to 9007199254740992, found the number 18446744073709551616, which is too large. Fix the value, or export the capture again."
      ),
      (
        entry(time: "1e400"),
        "bad.har:1:31: log.entries[0].time: expected a number, found the number 1e400, which is too large for a number. Fix the value, or export the capture again."
      ),
      (
        entry(method: #""""#),
        #"bad.har:1:56: log.entries[0].request.method: "" is not an HTTP method: a method is one word of letters, digits or !#$%&'*+-.^_`|~, such as GET or POST. Fix the method."#
      ),
      (
        entry(method: #""G E T""#),
        #"bad.har:1:56: log.entries[0].request.method: "G E T" is not an HTTP method: a method is one word of letters, digits or !#$%&'*+-.^_`|~, such as GET or POST. Fix the method."#
      ),
      (
        #"{"log": {"entries": [],}}"#,
        #"bad.har:1:24: malformed JSON: expected a key after ",", found "}"; JSON does not allow a trailing comma. A HAR file is one JSON document; check that the export finished and that the file was not cut short."#
      ),
      (
        "[]",
        #"bad.har:1:1: expected a HAR document (a JSON object such as {"log": {"entries": []}}), found an array. Fix the value, or export the capture again."#
      ),
      (
        #"{"log": {"entries": {}}}"#,
        "bad.har:1:21: log.entries: expected an array, found an object. Fix the value, or export the capture again."
      ),
    ]))
  func reportsTheTrueCauseWithItsPosition(example: Example<String, String>) {
    let (json, expected) = (example.input, example.expected)
    #expect(Self.error(json) == expected)
  }

  @Test func aFileThatIsNotUTF8NamesTheFirstBadByte() {
    var bytes = Array(#"{"log": {"entries": [], "comment": "caf"#.utf8)
    bytes += [0xE9, 0x22, 0x7D, 0x7D]
    #expect(
      throws: DoppelError(
        "bad.har:1:40: the file is not UTF-8 text: the byte 0xE9 at byte offset 39 is not valid UTF-8. A HAR file is UTF-8 JSON; export the capture again."
      )
    ) {
      try Cassette(data: Data(bytes), file: "bad.har")
    }
  }

  @Test func positionsCountCharactersNotBytes() {
    // "é" is two bytes and "🐈" four; each is one column.
    let json =
      #"{"log": {"comment": "é🐈", "entries": [{"request": {"method": "GET", "url": "https://a.com/"}, "response": {"status": 42}}]}}"#
    #expect(
      Self.error(json)
        == "bad.har:1:118: log.entries[0].response.status: 42 is not an HTTP status. Use 100 to 599, or 0 for a request that got no response."
    )
  }

  @Test func aValidEntryStillLoads() {
    #expect(Self.error(Self.entry(method: #""PROPFIND""#)) == "loaded")
  }
}
