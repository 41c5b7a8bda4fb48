import Doppel
import Foundation
import Testing

/// HAR files browsers write, as users bring them: the quirks that replaying and redacting real
/// ones (sitespeed.io's, recorded by Chrome and Firefox from news and shop sites) brought up.
@Suite struct BrowserHARTests {
  /// One entry as Chrome writes it: cookies sent more than once joined into one `Set-Cookie`
  /// value, a line each, and a `Date` equal to one cookie's `Expires`.
  static let chromeHAR = #"""
    {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [
      {"startedDateTime": "2018-03-27T20:53:29.000Z", "time": 12,
       "request": {"method": "GET", "url": "https://tap.shop.example/frame?host=", "httpVersion": "HTTP/1.1",
         "headers": [], "queryString": [{"name": "host", "value": ""}], "cookies": [], "headersSize": -1, "bodySize": 0},
       "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
         "headers": [
           {"name": "Date", "value": "Tue, 10 Apr 2018 20:53:29 GMT"},
           {"name": "Set-Cookie", "value": "visit=Zq81kLmN4pRt7vWx; Max-Age=1209600; Expires=Tue, 10 Apr 2018 20:53:29 GMT; Domain=.shop.example; Path=/\nseen=1; Max-Age=0; Path=/"},
           {"name": "Content-Type", "value": "text/html"}],
         "cookies": [], "content": {"size": 2, "mimeType": "text/html", "text": "ok"},
         "redirectURL": "", "headersSize": -1, "bodySize": 2},
       "cache": {}, "timings": {"send": 0, "wait": 10, "receive": 2}}
    ]}}
    """#

  @Test func aHeaderOfSeveralLinesIsOneFieldPerLineWhenReplayed() async throws {
    let backend = Backend(issueReporter: .ignore)
    try backend.replay(try Cassette(data: Data(Self.chromeHAR.utf8), file: "chrome.har"))
    let (body, response) = try await backend.respond(
      to: URLRequest(url: URL(string: "https://tap.shop.example/frame?host=")!))
    #expect(response.statusCode == 200)
    #expect(String(decoding: body, as: UTF8.self) == "ok")
    // Two fields on the wire; Foundation's response joins fields of one name with a comma.
    #expect(
      response.value(forHTTPHeaderField: "Set-Cookie")
        == "visit=Zq81kLmN4pRt7vWx; Max-Age=1209600; Expires=Tue, 10 Apr 2018 20:53:29 GMT; Domain=.shop.example; Path=/, seen=1; Max-Age=0; Path=/"
    )
  }

  @Test func aCookiesAttributesAreNotSecretsWhereverTheyRecur() throws {
    let cassette = try Cassette(data: Data(Self.chromeHAR.utf8), file: "chrome.har")
    let entry = try #require(Redaction.default.redact(cassette).entries.first)
    // The cookie itself is redacted; the date and the host its attributes name are kept.
    #expect(entry.response.headers.first { $0.name == "Set-Cookie" }?.value == "REDACTED")
    #expect(entry.response.headers.first { $0.name == "Date" }?.value == "Tue, 10 Apr 2018 20:53:29 GMT")
    #expect(entry.request.url == "https://tap.shop.example/frame?host=")
  }
}
