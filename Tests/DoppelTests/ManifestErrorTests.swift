import Doppel
import Foundation
import Testing

/// Every mistake in a manifest is an error at load time naming the file, the position, the key
/// path and the fix.
@Suite struct ManifestErrorTests {
  static let file = "/project/Fixtures/doppel.json"

  @Test(
    arguments: Example.list([
      (
        #"{"stubs": [{"request": "/a", "response": {"stauts": 200}}]}"#,
        #"1:43: stubs[0].response: unknown key "stauts". Did you mean "status"? The keys of a response are: status, headers, json, text, file, contentType, error, redirect, never, sequence, then, delay, throttle, chunked, dropAfterBytes, template, websocket, events, every, thenDrop, fault, failing, proxy."#
      ),
      (
        "{\n  \"stub\": []\n}",
        #"2:3: unknown key "stub". Did you mean "stubs"? The keys of a manifest are: $schema, description, seed, fixtureDirectory, cassettes, unmatched, stubs, scenarios, graphql."#
      ),
      (
        #"{"stubs": [{"request": {"url": "/a", "methd": "GET"}, "response": {}}]}"#,
        #"1:38: stubs[0].request: unknown key "methd". Did you mean "method"? The keys of a request are: method, url, host, pathGlob, pathRegex, query, queryExactly, headers, json, jsonContaining, text, form, graphql."#
      ),
      (
        #"{"stubs": [{"request": "ht tp://x", "response": {}}]}"#,
        #"1:24: stubs[0].request: Invalid URL "ht tp://x" in a stub: it contains a space at offset 2; percent-encode it (a space is %20). Write an absolute URL such as "https://api.example.com/breeds.json" or a path such as "/breeds.json"."#
      ),
      (
        #"{"stubs": [{"request": {"url": "breeds.json"}, "response": {}}]}"#,
        #"1:32: stubs[0].request.url: Invalid URL "breeds.json" in a stub: it is neither an absolute URL (scheme://host/path) nor a path starting with "/". Write an absolute URL such as "https://api.example.com/breeds.json" or a path such as "/breeds.json"."#
      ),
      (
        #"{"stubs": [{"request": {"url": "/users/{id"}, "response": {}}]}"#,
        #"1:32: stubs[0].request.url: Invalid path template "/users/{id" in a stub: a "{" is never closed. Write parameters as /users/{id}."#
      ),
      (
        #"{"stubs": [{"request": "GET /a /b", "response": {}}]}"#,
        #"1:24: stubs[0].request: Invalid URL "/a /b" in a stub: it contains a space at offset 2; percent-encode it (a space is %20). Write an absolute URL such as "https://api.example.com/breeds.json" or a path such as "/breeds.json"."#
      ),
      (
        #"{"stubs": [{"request": {"method": "G+T"}, "response": {}}]}"#,
        #"1:35: stubs[0].request.method: "G+T" is not an HTTP method. Write a method name such as GET, POST or DELETE."#
      ),
      (
        #"{"stubs": [{"request": {"url": "/a", "json": {}, "text": ""}, "response": {}}]}"#,
        #"1:50: stubs[0].request: "json" and "text" cannot be used together: a request body is matched one way; keep one of json, jsonContaining, text, form."#
      ),
      (
        #"{"stubs": [{"request": {"headers": {"Accept": 1}}, "response": {}}]}"#,
        #"1:47: stubs[0].request.headers.Accept: expected the header's value (a string) or true (present with any value), found the number 1."#
      ),
      (
        #"{"stubs": [{"request": {"query": {"page": 2}}, "response": {}}]}"#,
        #"1:43: stubs[0].request.query.page: expected a string or an array of strings, found the number 2. Write it in double quotes: "2"."#
      ),
      (
        #"{"stubs": [{"response": {}}]}"#,
        #"1:12: stubs[0]: a stub needs "request": which requests it answers, such as "GET /breeds.json" ({} answers every request)."#
      ),
      (
        #"{"stubs": [{"request": "/a"}]}"#,
        #"1:12: stubs[0]: a stub needs "response": what it answers, such as {"status": 200, "json": {…}}."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {}, "times": 0}]}"#,
        #"1:55: stubs[0].times: expected how many requests the stub answers (1 to 1000000000), found the number 0, which is too small."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"status": "200"}}]}"#,
        #"1:53: stubs[0].response.status: expected an HTTP status from 100 to 599, found the string "200". Write the number without quotes: 200."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"status": 700}}]}"#,
        #"1:53: stubs[0].response.status: expected an HTTP status from 100 to 599, found the number 700, which is too large."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"throttle": 9223372036854775807}}]}"#,
        #"1:55: stubs[0].response.throttle: expected bytes per second (1 to 1000000000), found the number 9223372036854775807, which is too large."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"dropAfterBytes": 1.5}}]}"#,
        #"1:61: stubs[0].response.dropAfterBytes: expected a number of bytes (0 to 1000000000), found the number 1.5, which is not a whole number."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"json": 1, "file": "x.json"}}]}"#,
        #"1:54: stubs[0].response: "json" and "file" cannot be used together: a response has one body; keep one of json, text, file."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"error": "offline"}}]}"#,
        #"1:52: stubs[0].response.error: "offline" is not a URLError code name. Use one of: notConnectedToInternet, timedOut, cannotFindHost, cannotConnectToHost, networkConnectionLost, dnsLookupFailed, cancelled, badURL, unsupportedURL, badServerResponse, cannotParseResponse, cannotDecodeContentData, cannotDecodeRawData, zeroByteResource, dataLengthExceedsMaximum, httpTooManyRedirects, redirectToNonExistentLocation, resourceUnavailable, userAuthenticationRequired, userCancelledAuthentication, secureConnectionFailed, serverCertificateHasBadDate, serverCertificateUntrusted, serverCertificateHasUnknownRoot, serverCertificateNotYetValid, clientCertificateRejected, clientCertificateRequired, cannotLoadFromNetwork, internationalRoamingOff, callIsActive, dataNotAllowed, requestBodyStreamExhausted, appTransportSecurityRequiresSecureConnection."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"error": "timedout"}}]}"#,
        #"1:52: stubs[0].response.error: "timedout" is not a URLError code name. Did you mean "timedOut"? Use one of: notConnectedToInternet, timedOut, cannotFindHost, cannotConnectToHost, networkConnectionLost, dnsLookupFailed, cancelled, badURL, unsupportedURL, badServerResponse, cannotParseResponse, cannotDecodeContentData, cannotDecodeRawData, zeroByteResource, dataLengthExceedsMaximum, httpTooManyRedirects, redirectToNonExistentLocation, resourceUnavailable, userAuthenticationRequired, userCancelledAuthentication, secureConnectionFailed, serverCertificateHasBadDate, serverCertificateUntrusted, serverCertificateHasUnknownRoot, serverCertificateNotYetValid, clientCertificateRejected, clientCertificateRequired, cannotLoadFromNetwork, internationalRoamingOff, callIsActive, dataNotAllowed, requestBodyStreamExhausted, appTransportSecurityRequiresSecureConnection."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"error": "timedOut", "status": 500}}]}"#,
        #"1:64: stubs[0].response: "status" cannot be used with "error": a failed request has no HTTP response. Remove one."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"never": true, "delay": 1}}]}"#,
        #"1:58: stubs[0].response: "delay" cannot be used with "never": a response that never comes has nothing else. Remove one."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"redirect": {"status": 301}}}]}"#,
        #"1:55: stubs[0].response.redirect: a redirect needs "to": the URL or path to go to, for example {"to": "/new"}."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"redirect": {"to": "/b"}, "status": 301}}]}"#,
        #"1:69: stubs[0].response: "status" cannot be used with "redirect": a redirect has its own status and no body; put the status inside "redirect". Remove one."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"delay": "fast"}}]}"#,
        #"1:52: stubs[0].response.delay: the string "fast" is not a duration. Write a number of seconds (0.25) or a string with a unit: "250ms" or "1.5s"."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"chunked": {"size": 2}}}]}"#,
        #"1:54: stubs[0].response.chunked: chunking needs both "size" (bytes) and "every" (a duration), for example {"size": 512, "every": "50ms"}."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"throttle": 10, "chunked": {"size": 1, "every": 1}}}]}"#,
        #"1:59: stubs[0].response: "throttle" and "chunked" cannot be used together: both pace the body; keep one."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"sequence": []}}]}"#,
        #"1:55: stubs[0].response.sequence: a sequence needs at least one response, such as [{"status": 503}, {"status": 200}]."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"sequence": [{"status": 200}], "status": 500}}]}"#,
        #"1:74: stubs[0].response: "status" cannot be used next to "sequence": each response of the sequence has its own. Move "status" into the sequence's responses."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"sequence": [{"sequence": []}]}}]}"#,
        #"1:57: stubs[0].response.sequence[0]: unknown key "sequence". The keys of a response of a sequence are: status, headers, json, text, file, contentType, error, redirect, never, delay, throttle, chunked, dropAfterBytes, template, websocket, events, every, thenDrop, fault, failing."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"sequence": [{}], "then": "loop"}}]}"#,
        #"1:69: stubs[0].response.then: "loop" is not a sequence end. Use one of: repeatLast, cycle, fail."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"then": "cycle"}}]}"#,
        #"1:43: stubs[0].response: "then" says what a sequence does after its last response, but this response has no "sequence". Remove "then", or add "sequence": [ … ]."#
      ),
      (
        #"{"stubs": {}}"#,
        #"1:11: stubs: expected an array of stubs, found an object."#
      ),
      (
        #"["stubs"]"#,
        #"1:1: expected a manifest (a JSON object), found an array."#
      ),
      (
        #"{"scenarios": []}"#,
        #"1:15: scenarios: expected the scenarios (a JSON object from name to scenario, such as {"empty": {"stubs": [ … ]}}), found an array."#
      ),
      (
        #"{"scenarios": {"empty": {"stubs": [{"request": "/a", "response": {"txt": "x"}}]}}}"#,
        #"1:67: scenarios.empty.stubs[0].response: unknown key "txt". Did you mean "text"? The keys of a response are: status, headers, json, text, file, contentType, error, redirect, never, sequence, then, delay, throttle, chunked, dropAfterBytes, template, websocket, events, every, thenDrop, fault, failing, proxy."#
      ),
      (
        #"{"scenarios": {"": {}}}"#,
        #"1:16: scenarios: a scenario needs a name; "" is empty."#
      ),
      (
        #"{"unmatched": "pass"}"#,
        #"1:15: unmatched: "pass" is not an unmatched-request policy. Use "fail", "passthrough", or a response such as {"status": 404}."#
      ),
      (
        "{\n  \"stubs\": [\n    {\"request\": \"/a\", \"response\": {\"status\": 200,}}\n  ]\n}",
        #"3:50: malformed JSON: expected a key after ",", found "}"; JSON does not allow a trailing comma."#
      ),
    ]))
  func reportsTheFilePositionKeyPathAndFix(example: Example<String, String>) {
    let (json, expected) = (example.input, example.expected)
    #expect(manifestError(json) == "\(Self.file):\(expected)")
  }

  /// The same mistake gets the same message in a manifest and in code.
  @Test func aSpaceInARequestsURLIsNamedAsInCode() throws {
    let inCode = try #require(Matcher.get("/breeds list.json").problem?.message)
    #expect(
      manifestError(#"{"stubs": [{"request": "GET /breeds list.json", "response": {}}]}"#)
        == "\(Self.file):1:24: stubs[0].request: \(inCode)")
    #expect(inCode.contains("it contains a space at offset 7; percent-encode it (a space is %20)."))
  }

  @Test func aBadRegularExpressionIsReportedWhereItIsWritten() {
    let message = manifestError(#"{"stubs": [{"request": {"pathRegex": "(["}, "response": {}}]}"#)
    // The rest of the message is NSRegularExpression's reason, which differs between platforms.
    #expect(
      message.hasPrefix(
        #"\#(Self.file):1:38: stubs[0].request.pathRegex: Invalid regular expression "([" for the path in a stub"#))
  }

  @Test func aMissingFixtureFileIsAnErrorAtLoadTime() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try scratch.write("fixtures/breeds.json", "{}")
    try scratch.write(
      "doppel.json",
      """
      {
        "stubs": [
          {"request": "/breeds", "response": {"file": "fixtures/breeds.json"}},
          {"request": "/cats", "response": {"file": "fixtures/cats.json"}},
          {"request": "/dir", "response": {"file": "fixtures"}}
        ]
      }
      """)
    let manifest = scratch.url.appendingPathComponent("doppel.json")
    // Both problems, one line each, in the order of the file.
    #expect(
      throws: DoppelError(
        "\(manifest.path):4:47: stubs[1].response.file: the fixture file \"fixtures/cats.json\" does not exist (looked for \(scratch.path)/fixtures/cats.json). Create it, or fix the path; it is relative to the manifest's directory \(scratch.path).\n"
          + "\(manifest.path):5:46: stubs[2].response.file: \"fixtures\" is a directory, not a fixture file. Name a file inside it."
      )
    ) { try Manifest.load(contentsOf: scratch.url) }
    try scratch.write("fixtures/cats.json", "{}")
    #expect(
      throws: DoppelError(
        "\(manifest.path):5:46: stubs[2].response.file: \"fixtures\" is a directory, not a fixture file. Name a file inside it."
      )
    ) { try Manifest.load(contentsOf: scratch.url) }
  }

  @Test func fileErrors() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let missing = scratch.url.appendingPathComponent("nope.json")
    #expect(
      throws: DoppelError(
        "\(missing.path): no such file or directory. Pass the manifest file, or the directory holding doppel.json.")
    ) { try Manifest.load(contentsOf: missing) }
    let latin1 = scratch.url.appendingPathComponent("latin1.json")
    try Data([0x7B, 0x22, 0xE9, 0x22, 0x7D]).write(to: latin1)
    #expect(
      throws: DoppelError(
        "\(latin1.path):1:3: the manifest is not UTF-8 text: the byte 0xE9 at byte offset 2 is not valid UTF-8. Save the file as UTF-8."
      )
    ) {
      try Manifest.load(contentsOf: latin1)
    }
  }
}
