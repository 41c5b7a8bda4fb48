import Doppel
import Foundation
import Testing

/// HAR files browsers write, as users bring them: the quirks that replaying and redacting real
/// ones (sitespeed.io's, recorded by Chrome and Firefox from news and shop sites) brought up.
@Suite struct BrowserHARTests {
  /// One entry as Chrome writes it: HTTP/2's `:authority`, cookies sent more than once joined
  /// into one `Set-Cookie` value, a line each, a `Date` equal to one cookie's `Expires`, and a
  /// cookie with a control character in it (a bot detector's, as a real site sent it).
  static let chromeHAR = #"""
    {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [
      {"startedDateTime": "2018-03-27T20:53:29.000Z", "time": 12,
       "request": {"method": "GET", "url": "https://shopgroup.scene7.example/frame?host=", "httpVersion": "HTTP/1.1",
         "headers": [{"name": ":authority", "value": "shopgroup.scene7.example"}, {"name": "Cookie", "value": "ELOQUA=GUID=039B147782C84352B659F4ED1C53918E"}, {"name": "Cookie", "value": "guid=9e998c6e-857a-11ec-891a-37575b18646c"}], "queryString": [{"name": "host", "value": ""}], "cookies": [], "headersSize": -1, "bodySize": 0},
       "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
         "headers": [
           {"name": "Date", "value": "Tue, 10 Apr 2018 20:53:29 GMT"},
           {"name": "Set-Cookie", "value": "visit=Zq81kLmN4pRt7vWx; Max-Age=1209600; Expires=Tue, 10 Apr 2018 20:53:29 GMT; Domain=.shop.example; Path=/\nseen=1; Max-Age=0; Path=/"},
           {"name": "Set-Cookie", "value": "bot=zMl\u0001DDjD; path=/"},
           {"name": "Access-Control-Allow-Credentials", "value": "true"},
           {"name": "Content-Type", "value": "text/html"}],
         "cookies": [], "content": {"size": 2, "mimeType": "text/html", "text": "ok, elq1pcGUID=039B147782C84352B659F4ED1C53918E, shguid=9e998c6e-857a-11ec-891a-37575b18646c"},
         "redirectURL": "", "headersSize": -1, "bodySize": 2},
       "cache": {}, "timings": {"send": 0, "wait": 10, "receive": 2}}
    ]}}
    """#

  @Test func aHeaderOfSeveralLinesIsOneFieldPerLineAndControlCharactersAreDropped() async throws {
    let backend = Backend(issueReporter: .ignore)
    try backend.replay(try Cassette(data: Data(Self.chromeHAR.utf8), file: "chrome.har"))
    let (body, response) = try await backend.respond(
      to: URLRequest(url: URL(string: "https://shopgroup.scene7.example/frame?host=")!))
    #expect(response.statusCode == 200)
    #expect(
      String(decoding: body, as: UTF8.self)
        == "ok, elq1pcGUID=039B147782C84352B659F4ED1C53918E, shguid=9e998c6e-857a-11ec-891a-37575b18646c")
    // Two fields on the wire; Foundation's response joins fields of one name with a comma.
    #expect(
      response.value(forHTTPHeaderField: "Set-Cookie")
        == "visit=Zq81kLmN4pRt7vWx; Max-Age=1209600; Expires=Tue, 10 Apr 2018 20:53:29 GMT; Domain=.shop.example; Path=/, seen=1; Max-Age=0; Path=/, bot=zMlDDjD; path=/"
    )
  }

  @Test func aCookiesAttributesAndTheAuthorityAreNotSecretsWhereverTheyRecur() throws {
    let cassette = try Cassette(data: Data(Self.chromeHAR.utf8), file: "chrome.har")
    let entry = try #require(Redaction.default.redact(cassette).entries.first)
    // The cookie itself is redacted; the date and the host its attributes name are kept, and so
    // is the host as HTTP/2's `:authority` names it.
    #expect(entry.response.headers.first { $0.name == "Set-Cookie" }?.value == "REDACTED")
    #expect(entry.response.headers.first { $0.name == "Date" }?.value == "Tue, 10 Apr 2018 20:53:29 GMT")
    #expect(entry.request.url == "https://shopgroup.scene7.example/frame?host=")
    #expect(entry.request.headers.first { $0.name == ":authority" }?.value == "shopgroup.scene7.example")
    // A cookie made of pairs, and a Cookie of one pair: where the pair recurs inside a longer
    // name, only the value is replaced.
    #expect(entry.response.content.text == "ok, elq1pcGUID=REDACTED, shguid=REDACTED")
    // CORS names credentials but carries none.
    #expect(entry.response.headers.first { $0.name == "Access-Control-Allow-Credentials" }?.value == "true")
  }
}
