import Doppel
import Foundation
import Testing

@Suite struct HARFileTests {
  @Test func aCassetteMadeInCodeRoundTrips() throws {
    let cassette = try HARFixtures.madeInCode()
    let written = try cassette.encoded(redaction: .disabled)
    let read = try Cassette(data: written, file: "made.har")
    #expect(read == cassette)
    #expect(try read.encoded(redaction: .disabled) == written)
  }

  @Test func whatDoppelWritesIsValidHAR() throws {
    let cassette = try HARFixtures.madeInCode()
    let json = try JSONValue(parsing: cassette.encoded(redaction: .disabled))
    guard case .object(let root) = json, case .object(let log)? = root["log"],
      case .array(let entries)? = log["entries"], case .object(let first)? = entries.first
    else {
      Issue.record("not a HAR document: \(json)")
      return
    }
    #expect(log["version"] == "1.2")
    #expect(log["creator"] == ["name": "Doppel", "version": "1"])
    #expect(Set(first.keys) == ["startedDateTime", "time", "request", "response", "cache", "timings", "_custom"])
    #expect(first["startedDateTime"] == "2023-11-14T22:13:20.000Z")
    #expect(first["time"] == 12.5)
    guard case .object(let request)? = first["request"], case .object(let response)? = first["response"] else {
      Issue.record("no request or response")
      return
    }
    #expect(
      Set(request.keys) == [
        "method", "url", "httpVersion", "headers", "queryString", "cookies", "headersSize", "bodySize",
      ])
    #expect(request["queryString"] == [["name": "page", "value": "1"]])
    #expect(
      request["headers"] == [
        ["name": "Accept", "value": "application/json"], ["name": "X-Trace", "value": "1"],
        ["name": "X-Trace", "value": "2"],
      ])
    #expect(
      Set(response.keys) == [
        "status", "statusText", "httpVersion", "headers", "content", "redirectURL", "cookies", "headersSize",
        "bodySize",
      ])
    #expect(response["statusText"] == "OK")
    #expect(
      response["content"] == ["size": 25, "mimeType": "application/json", "text": #"{"breeds":["Abyssinian"]}"#])
    #expect(
      response["headers"] == [
        ["name": "Set-Cookie", "value": "a=1"], ["name": "Set-Cookie", "value": "b=2"],
      ])
  }

  @Test func binaryBodiesAreBase64AndFailuresHaveAnErrorName() throws {
    let cassette = try HARFixtures.madeInCode()
    let upload = cassette.entries[1]
    #expect(
      upload.request.postData == HARPostData(mimeType: "application/octet-stream", text: "AAEC/w==", encoding: "base64")
    )
    #expect(upload.response.content.text == "/9gA")
    #expect(upload.response.content.encoding == "base64")
    #expect(try upload.makeRequest().body == Data([0, 1, 2, 255]))
    #expect(try upload.makeResponse().bodyData() == Data([0xFF, 0xD8, 0x00]))
    let failed = cassette.entries[2]
    #expect(failed.response.status == 0)
    #expect(failed.response.extra["_error"] == "timedOut")
    #expect((try failed.makeResponse().error as? URLError)?.code == .timedOut)
  }

  @Test func theOutputIsStable() throws {
    let text = String(decoding: try HARFixtures.madeInCode().encoded(redaction: .disabled), as: UTF8.self)
    #expect(text.hasSuffix("}\n"))
    #expect(text.contains("\n    \"creator\""))  // pretty printed
    #expect(text.contains("https://api.example.com/breeds?page=1"))  // slashes not escaped
    let keys = ["comment", "creator", "entries", "version"].map { text.range(of: "\n    \"\($0)\"")!.lowerBound }
    #expect(keys == keys.sorted())  // sorted
  }

  @Test func aBrowserExportKeepsEveryFieldWhenRewritten() throws {
    let original = Data(HARFixtures.browserExport.utf8)
    let cassette = try Cassette(data: original, file: "export.har")
    #expect(cassette.entries.count == 6)
    #expect(cassette.har.log.creator.name == "WebInspector")
    #expect(cassette.har.log.extra["browser"] == ["name": "Chrome", "version": "126.0"])
    #expect(cassette.entries[0].extra["_priority"] == "High")
    #expect(cassette.entries[0].response.content.extra["compression"] == -12)
    let rewritten = try cassette.encoded(redaction: .disabled)
    let before = try JSONValue(parsing: original)
    let after = try JSONValue(parsing: rewritten)
    #expect(after == before)
    #expect(try Cassette(data: rewritten, file: "export.har") == cassette)
  }

  @Test func aMissingFileIsNamed() {
    let url = URL(fileURLWithPath: "/nonexistent/breeds.har")
    #expect(
      throws: DoppelError("Could not read the cassette /nonexistent/breeds.har: there is no such file. Check the path.")
    ) {
      try Cassette.load(from: url)
    }
  }

  @Test(
    arguments: Example.list([
      (
        "{\"log\": {\"entries\": [",
        "bad.har:1:22: malformed JSON: the file ends where a value was expected. A HAR file is one JSON document; check that the export finished and that the file was not cut short."
      ),
      (
        "{\"entries\": []}",
        "bad.har:1:1: the document has no \"log\", which HAR 1.2 requires. Add it, or export the capture again."
      ),
      (
        #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.com/"}, "response": {"status": 200}}, {"request": {"method": "GET", "url": "https://a.com/"}, "response": {"content": {}}}]}}"#,
        "bad.har:1:176: log.entries[1].response: this object has no \"status\", which HAR 1.2 requires. Add it, or export the capture again."
      ),
      (
        #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.com/"}, "response": {"status": "200"}}]}}"#,
        "bad.har:1:101: log.entries[0].response.status: expected a whole number, found the string \"200\". Fix the value, or export the capture again."
      ),
      (
        #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.com/", "headers": {}}, "response": {"status": 200}}]}}"#,
        "bad.har:1:88: log.entries[0].request.headers: expected an array, found an object. Fix the value, or export the capture again."
      ),
      (
        #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.com/", "headers": [{"name": "A", "value": "1"}, {"value": "2"}]}, "response": {"status": 200}}]}}"#,
        "bad.har:1:118: log.entries[0].request.headers[1]: this object has no \"name\", which HAR 1.2 requires. Add it, or export the capture again."
      ),
      (
        #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.com/"}, "response": {"status": 200, "content": {"size": 1, "mimeType": 7}}}]}}"#,
        "bad.har:1:141: log.entries[0].response.content.mimeType: expected a string, found the number 7. Fix the value, or export the capture again."
      ),
      (
        #"{"log": {"entries": [3]}}"#,
        "bad.har:1:22: log.entries[0]: expected an object, found the number 3. Fix the value, or export the capture again."
      ),
      (
        #"{"log": {"entries": [{"request": {"method": "GET", "url": null}, "response": {"status": 200}}]}}"#,
        "bad.har:1:59: log.entries[0].request.url: expected a string, found null. Fix the value, or export the capture again."
      ),
    ]))
  func aMalformedFileNamesTheFileAndTheJSONPath(example: Example<String, String>) {
    let (json, message) = (example.input, example.expected)
    #expect(throws: DoppelError(message)) { try Cassette(data: Data(json.utf8), file: "bad.har") }
  }

  @Test func everyEntryWithAnUnreadableBodyIsReported() {
    let json = #"""
      {"log": {"entries": [
        {"request": {"method": "GET", "url": "https://a.com/ok"}, "response": {"status": 200, "content": {"text": "fine"}}},
        {"request": {"method": "GET", "url": "https://a.com/gz"},
         "response": {"status": 200, "content": {"text": "H4sI", "encoding": "gzip"}}},
        {"request": {"method": "GET", "url": "https://a.com/b64"},
         "response": {"status": 200, "content": {"text": "not base64!", "encoding": "base64"}}},
        {"request": {"method": "GET", "url": "/relative"}, "response": {"status": 200}},
        {"request": {"method": "GET", "url": "https://a.com/odd"}, "response": {"status": 42}}
      ]}}
      """#
    let expected = """
      bad.har:4:72: log.entries[1].response.content.encoding: the body encoding "gzip" is not supported. HAR bodies are plain text, or base64 with "encoding": "base64"; decode this body into one of those.
      bad.har:6:52: log.entries[2].response.content.text: the text is not valid base64, though "encoding" is "base64". Fix the text, or remove "encoding" if the text is the body itself.
      bad.har:7:40: log.entries[3].request.url: "/relative" is not an absolute URL. Give the full URL, such as "https://api.example.com/breeds".
      bad.har:8:85: log.entries[4].response.status: 42 is not an HTTP status. Use 100 to 599, or 0 for a request that got no response.
      """
    #expect(throws: DoppelError(expected)) { try Cassette(data: Data(json.utf8), file: "bad.har") }
  }

  @Test func oneUnreadableEntryIsReportedAlone() {
    let json = #"""
      {"log": {"entries": [{"request": {"method": "POST", "url": "https://a.com/", "postData": {"mimeType": "x", "text": "%%", "encoding": "base64"}}, "response": {"status": 200}}]}}
      """#
    #expect(
      throws: DoppelError(
        "bad.har:1:116: log.entries[0].request.postData.text: the text is not valid base64, though \"encoding\" is \"base64\". Fix the text, or remove \"encoding\" if the text is the body itself."
      )
    ) { try Cassette(data: Data(json.utf8), file: "bad.har") }
  }

  @Test func savingCreatesFoldersAndLoadingReadsItBack() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-har-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("nested/deeper/made.har")
    let cassette = try HARFixtures.madeInCode()
    try cassette.save(to: url, redaction: .disabled)
    #expect(try Cassette.load(from: url) == cassette)
    #expect(try Data(contentsOf: url) == cassette.encoded(redaction: .disabled))
  }
}
