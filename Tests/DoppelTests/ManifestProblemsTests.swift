import Doppel
import Foundation
import Testing

/// A manifest with several problems reports all of them at once, one line each, in the order of
/// the file, so a user fixes them in one pass.
@Suite struct ManifestProblemsTests {
  @Test func everyProblemOfTheFileOneLineEach() {
    let json = """
      {
        "stubs": [
          {"request": "/a", "response": {"stauts": 200, "delai": 1}},
          {"times": 0, "request": {"methd": "GET"}, "response": {"status": 700}},
          {"request": "/ok", "response": {}},
          "not a stub"
        ],
        "scenarios": {"empty": {"stubs": [{"response": {}}]}},
        "unmatched": "pass"
      }
      """
    let keys =
      "The keys of a response are: status, headers, json, text, file, contentType, error, redirect, never, sequence, then, delay, throttle, chunked, dropAfterBytes, template, websocket, events, every, thenDrop, fault, failing, proxy."
    let file = "/project/Fixtures/doppel.json"
    #expect(
      manifestError(json).split(separator: "\n").map(String.init) == [
        #"\#(file):3:36: stubs[0].response: unknown key "stauts". Did you mean "status"? \#(keys)"#,
        #"\#(file):3:51: stubs[0].response: unknown key "delai". Did you mean "delay"? \#(keys)"#,
        "\(file):4:15: stubs[1].times: expected how many requests the stub answers (1 to 1000000000), found the number 0, which is too small.",
        #"\#(file):4:30: stubs[1].request: unknown key "methd". Did you mean "method"? The keys of a request are: method, url, host, pathGlob, pathRegex, query, queryExactly, headers, json, jsonContaining, text, form, graphql."#,
        "\(file):4:70: stubs[1].response.status: expected an HTTP status from 100 to 599, found the number 700, which is too large.",
        #"\#(file):6:5: stubs[3]: expected a stub (a JSON object), found the string "not a stub"."#,
        #"\#(file):8:37: scenarios.empty.stubs[0]: a stub needs "request": which requests it answers, such as "GET /breeds.json" ({} answers every request)."#,
        #"\#(file):9:16: unmatched: "pass" is not an unmatched-request policy. Use "fail", "passthrough", or a response such as {"status": 404}."#,
      ])
  }

  @Test func theFirstLineHasTheShapeOfASingleError() {
    let message = manifestError(#"{"stubs": [{"request": "/a", "response": {"status": 0}}, {"request": 1}]}"#)
    #expect(
      message.split(separator: "\n").first
        == "/project/Fixtures/doppel.json:1:53: stubs[0].response.status: expected an HTTP status from 100 to 599, found the number 0, which is too small."
    )
    #expect(message.split(separator: "\n").count == 3)
  }

  @Test func aRelativeURLIsNamedAsWritten() {
    let url = URL(fileURLWithPath: "Fixtures/doppel.json")
    #expect(
      throws: DoppelError(
        #"Fixtures/doppel.json:1:2: unknown key "x". The keys of a manifest are: $schema, description, seed, fixtureDirectory, cassettes, unmatched, stubs, scenarios, graphql."#
      )
    ) {
      try Manifest(data: Data(#"{"x": 1}"#.utf8), url: url)
    }
  }
}
