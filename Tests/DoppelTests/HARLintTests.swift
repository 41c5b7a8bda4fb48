import Doppel
import Foundation
import Testing

@Suite struct HARLintTests {
  static let leaky = #"""
    {"log": {
      "comment": "key AKIAIOSFODNN7EXAMPLE",
      "entries": [
        {"request": {"method": "GET", "url": "https://a.com/ok", "headers": [{"name": "Accept", "value": "*/*"}]},
         "response": {"status": 200, "content": {"text": "nothing to see"}}},
        {"request": {"method": "GET", "url": "https://a.com/x?api_key=abc123&page=1",
           "headers": [
             {"name": "Authorization", "value": "Bearer abcdefghijklmnop"},
             {"name": "Cookie", "value": "sid=1"},
             {"name": "X-API-Key", "value": "k-123"},
             {"name": "Proxy-Authorization", "value": "Basic dXNlcjpwYXNz"}
           ],
           "queryString": [{"name": "api_key", "value": "abc123"}, {"name": "page", "value": "1"}],
           "cookies": [{"name": "sid", "value": "1"}]},
         "response": {"status": 200,
           "headers": [{"name": "Set-Cookie", "value": "sid=2"}, {"name": "X-Note", "value": "token xoxb-1234567890-abcdef"}],
           "content": {"mimeType": "application/json",
             "text": "{\"access_token\":\"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX2hlcmU\",\"password\":\"REDACTED\"}"}}},
        {"request": {"method": "POST", "url": "https://a.com/upload",
           "postData": {"mimeType": "text/plain",
             "text": "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF", "encoding": "base64"}},
         "response": {"status": 200, "content": {"text": "ghp_abcdefghijklmnopqrstuvwxyz0123456789 and sk_live_abcdefghijklmnopqrstuvwx"}},
         "_note": "Bearer REDACTED is fine"},
        {"request": {"method": "GET", "url": "https://a.com/?token=REDACTED",
           "headers": [{"name": "Authorization", "value": "REDACTED"}]},
         "response": {"status": 302, "headers": [{"name": "Location", "value": "https://b.com/cb?code=1&access_token=zzz"}],
           "content": {}}}
      ]
    }}
    """#

  @Test func findsEachKindOfSecretWithItsEntryAndField() throws {
    let findings = try CassetteLint.scan(Data(Self.leaky.utf8), file: "leaky.har")
    #expect(
      findings.map(\.description) == [
        "leaky.har: log.comment: AWS access key ID",
        "leaky.har: entries[1].request.cookies.sid: cookie",
        "leaky.har: entries[1].request.headers.Authorization: bearer token",
        "leaky.har: entries[1].request.headers.Cookie: cookie",
        "leaky.har: entries[1].request.headers.X-API-Key: API key header X-API-Key",
        "leaky.har: entries[1].request.headers.Proxy-Authorization: basic credentials",
        "leaky.har: entries[1].request.queryString.api_key: secret query parameter \"api_key\"",
        "leaky.har: entries[1].request.url: secret query parameter \"api_key\"",
        "leaky.har: entries[1].response.content.text: secret JSON field \"access_token\"",
        "leaky.har: entries[1].response.headers.Set-Cookie: cookie",
        "leaky.har: entries[1].response.headers.X-Note: Slack token",
        "leaky.har: entries[2].request.postData.text: private key",
        "leaky.har: entries[2].response.content.text: GitHub token",
        "leaky.har: entries[2].response.content.text: Stripe secret key",
        "leaky.har: entries[3].response.headers.Location: secret query parameter \"code\"",
        "leaky.har: entries[3].response.headers.Location: secret query parameter \"access_token\"",
      ])
    let first = try #require(findings.dropFirst(2).first)
    #expect(first.file == "leaky.har")
    #expect(first.entry == 1)
    #expect(first.field == "entries[1].request.headers.Authorization")
    #expect(first.kind == .bearerToken)
    #expect(findings.first?.entry == nil)
  }

  @Test func aCleanCassetteHasNoFindings() throws {
    let cassette = try HARFixtures.madeInCode()
    #expect(try CassetteLint.scan(cassette.encoded(), file: "clean.har") == [])
    // Without redaction its Set-Cookie headers are found.
    #expect(
      try CassetteLint.scan(cassette.encoded(redaction: .disabled), file: "raw.har").map(\.description) == [
        "raw.har: entries[0].response.headers.Set-Cookie: cookie"
      ])
  }

  @Test func scanningReportsUnreadableFiles() throws {
    #expect(
      throws: DoppelError(
        "cut.har: is not valid JSON, so it cannot be linted. A HAR file is one JSON document; check that it is complete."
      )
    ) { try CassetteLint.scan(Data("{\"log\":".utf8), file: "cut.har") }
    #expect(
      throws: DoppelError(
        "Could not read the cassette /nonexistent/x.har to lint it: there is no such file. Check the path.")
    ) {
      try CassetteLint.scan(fileAt: URL(fileURLWithPath: "/nonexistent/x.har"))
    }
  }
}
