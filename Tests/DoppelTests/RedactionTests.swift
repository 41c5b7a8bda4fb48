import Doppel
import Foundation
import TestHTTPServer
import TestSupport
import Testing

/// What recording redacts, through the public API: no secret from a real upstream reaches the
/// cassette (which still replays), opting out is explicit, known key formats are found anywhere,
/// and a value that cannot be written is dropped rather than saved.
@Suite struct RedactionTests {
  @Test func noSecretFromARealUpstreamReachesTheCassetteAndItStillReplays() async throws {
    let server = try SecretUpstream.start()
    defer { server.stop() }
    let base = server.baseURL.absoluteString
    let url = HARRecordTests.folder().appendingPathComponent("secrets.har")

    let recorder = quietBackend()
    let recording = try recorder.insertCassette(at: url, record: .once, environment: [:])
    try await SecretUpstream.exercise(recorder, base)
    try recording.eject()
    #expect(server.requests.count == 5)

    let written = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    for secret in SecretUpstream.all {
      #expect(!written.contains(secret), "\(secret) was written")
    }
    #expect(try CassetteLint.scan(fileAt: url) == [])
    // What is not secret is kept.
    let entries = try Cassette.load(from: url).entries
    #expect(
      entries.map { URL(string: $0.request.url)?.path } == [
        "/login", "/items", "/form", "/keys", "/users/REDACTED/profile",
      ])
    #expect(entries[1].request.url.hasSuffix("/items?session_id=REDACTED&mytoken=REDACTED&page=1"))
    #expect(entries[2].request.postData?.text == "user=ann&password=REDACTED")
    #expect(entries[2].response.content.text == "Welcome ann, you sent REDACTED")
    #expect(entries[4].request.headers.first { $0.name == "X-Trace" }?.value == "REDACTED")
    let login = try JSONValue(parsing: Data((entries[0].response.content.text ?? "").utf8))
    #expect(
      login == [
        "access_token": "REDACTED", "token": "REDACTED", "id_token": "REDACTED", "session_token": "REDACTED",
        "expires_in": 3600, "token_type": "REDACTED",
        "user": ["name": "Ann", "settings": ["api_key": "REDACTED", "theme": "dark"]],
        "links": ["next": "https://cdn.example.com/file?token=REDACTED&size=2"],
      ])
    let sent = try JSONValue(parsing: Data((entries[0].request.postData?.text ?? "").utf8))
    #expect(
      sent == [
        "username": "ann", "password": "REDACTED", "client_secret": "REDACTED",
        "device": ["name": "phone", "token": "REDACTED"],
      ])
    #expect(
      entries[3].response.content.text
        == "keys: REDACTED REDACTED REDACTED REDACTED REDACTED REDACTED REDACTED; call with Bearer REDACTED")

    // Replayed with other secrets, matching headers and bodies too, every request still finds
    // its entry, as it did before redaction.
    server.stop()
    let player = quietBackend()
    let replaying = try player.insertCassette(
      at: url, matching: .methodAndURL(headers: ["X-Session-Token", "Authorization"], body: true), environment: [:])
    try await SecretUpstream.exercise(player, base) { "other-\($0.count)" }
    try replaying.eject()
    #expect(player.unmatchedRequests.isEmpty)
    #expect(player.journal.map { $0.response?.status } == [200, 200, 200, 200, 200])
  }

  @Test func optOutsAreExplicit() throws {
    let entry = try HAREntry(
      request: Request(
        url: URL(string: "https://a.com/stats?session_count=3&token=tk-0001abcd")!,
        headers: ["WWW-Authenticate": "Bearer realm=\"api\"", "X-Trace": "tk-0001abcd"]),
      response: .json(raw: #"{"session_count": "12", "author": "Jane", "token_type": "Bearer", "t": "Bearer x"}"#))
    let redacted = Redaction.default.redact(entry)
    #expect(redacted.request.url == "https://a.com/stats?session_count=REDACTED&token=REDACTED")
    #expect(redacted.request.headers.map(\.value) == ["REDACTED", "REDACTED"])
    // A redacted word ("Bearer") is not erased elsewhere; the author is no secret.
    #expect(
      redacted.response.content.text
        == #"{"author":"Jane","session_count":"REDACTED","t":"Bearer x","token_type":"REDACTED"}"#)

    let keeping = Redaction.default.keeping(names: ["session_count", "WWW-Authenticate"])
    let kept = keeping.redact(entry)
    #expect(kept.request.url == "https://a.com/stats?session_count=3&token=REDACTED")
    #expect(kept.request.headers.map(\.value) == ["Bearer realm=\"api\"", "REDACTED"])
    #expect(kept.response.content.text?.contains(#""session_count":"12""#) == true)
    #expect(
      try CassetteLint.scan(Cassette(entries: [kept]).encoded(redaction: .disabled), file: "k", redaction: keeping)
        == [])

    // Without the repeated-secrets rule, the copy in X-Trace stays.
    let once = Redaction.default.excluding(.repeatedSecrets).redact(entry)
    #expect(once.request.headers.map(\.value) == ["REDACTED", "tk-0001abcd"])
    // Names only, as before: the headers and parameters listed.
    let listed = Redaction(headers: ["X-Trace"]).redact(entry)
    #expect(listed.request.url == entry.request.url)
    #expect(listed.request.headers.map(\.value) == ["Bearer realm=\"api\"", "REDACTED"])
    #expect(Redaction(headers: ["X-Trace"]).including(.knownSecretValues).rules == .knownSecretValues)
  }

  @Test func knownFormatsAreFoundAnywhereAndRedactionIsIdempotent() throws {
    let jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjMifQ.sig-0001"
    let entry = try HAREntry(
      request: Request(
        method: .post, url: URL(string: "https://a.com/hook/xoxb-123456789012-abcdefghijkl")!,
        headers: ["X-Note": "key AKIAIOSFODNN7EXAMPLE here"],
        body: Data(
          #"{"nested": "{\"jwt\": \"\#(jwt)\", \"n\": 1}", "list": ["a", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"]}"#.utf8)),
      response: .data(Data("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nok".utf8)))
    let redacted = Redaction.default.redact(entry)
    #expect(redacted.request.url == "https://a.com/hook/REDACTED")
    #expect(redacted.request.headers.first { $0.name == "X-Note" }?.value == "key REDACTED here")
    #expect(
      redacted.request.postData?.text == #"{"list":["a","REDACTED"],"nested":"{\"jwt\":\"REDACTED\",\"n\":1}"}"#)
    #expect(redacted.response.content.text == "REDACTED\nok")
    #expect(Redaction.default.redact(redacted) == redacted)
    #expect(Redaction.disabled.redact(entry) == entry)
  }

  @Test func aValueThatCannotBeWrittenIsDroppedRatherThanSaved() throws {
    var entry = try HAREntry(
      request: Request(url: URL(string: "https://a.com/?token=t-0001abcd")!), response: .text("t-0001abcd"))
    entry.time = .nan
    let redacted = Redaction.default.redact(entry)
    #expect(redacted.request.url == "REDACTED")
    #expect(redacted.response.content.text == nil)
    #expect(Redaction.default.redact(Cassette(entries: [entry])).entries.isEmpty)
    #expect(throws: (any Error).self) { try Cassette(entries: [entry]).encoded() }
  }
}
