import Doppel
import Foundation
import TestHTTPServer
import TestSupport
import Testing

@Suite struct HARRedactionTests {
  @Test func recordingNeverWritesASecret() async throws {
    let server = try TestHTTPServer.start { request in
      .text(
        #"{"token":"sekrit-6","user":{"name":"ann"},"items":[{"token":"sekrit-7"},{"token":"sekrit-8"}]}"#,
        headers: [
          ("Content-Type", "application/json"), ("Set-Cookie", "sid=sekrit-5; HttpOnly"),
          ("Location", "/next?sig=sekrit-9&page=2"),
        ])
    }
    defer { server.stop() }
    let url = HARRecordTests.folder().appendingPathComponent("secrets.har")
    let redaction = Redaction.default.adding(
      headers: ["X-Session"], jsonFields: ["user.password", "token", "items.token"])
    let address = "\(server.baseURL.absoluteString)/login?api_key=sekrit-1&v=2"

    let recorder = quietBackend()
    let recording = try recorder.insertCassette(at: url, record: .once, redaction: redaction, environment: [:])
    _ = try await recorder.send(
      .post, address,
      headers: [
        "Authorization": "Bearer sekrit-2", "Cookie": "session=sekrit-3", "X-Session": "sekrit-10",
        "Content-Type": "application/json",
      ],
      body: Data(#"{"user":{"name":"ann","password":"sekrit-4"}}"#.utf8))
    try recording.eject()

    let written = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    #expect(!written.contains("sekrit"), "a secret was written: \(written)")
    #expect(try CassetteLint.scan(fileAt: url) == [])
    let entry = try #require(try Cassette.load(from: url).entries.first)
    #expect(entry.request.url == "\(server.baseURL.absoluteString)/login?api_key=REDACTED&v=2")
    #expect(entry.request.queryString.map(\.value) == ["REDACTED", "2"])
    #expect(entry.request.postData?.text == #"{"user":{"name":"ann","password":"REDACTED"}}"#)
    #expect(
      entry.response.content.text
        == #"{"items":[{"token":"REDACTED"},{"token":"REDACTED"}],"token":"REDACTED","user":{"name":"ann"}}"#)
    #expect(entry.response.headers.first { $0.name == "Set-Cookie" }?.value == "REDACTED")
    #expect(entry.response.headers.first { $0.name == "Location" }?.value == "/next?sig=REDACTED&page=2")
    #expect(entry.response.redirectURL == "/next?sig=REDACTED&page=2")

    // The redacted recording still replays for other secrets.
    let player = quietBackend()
    let replaying = try player.insertCassette(
      at: url, matching: .methodAndURL(headers: ["Authorization"], body: true), environment: [:])
    let (body, _) = try await player.send(
      .post, "\(server.baseURL.absoluteString)/login?v=2&api_key=another",
      headers: ["Authorization": "Bearer another"], body: Data(#"{"user":{"password":"another","name":"ann"}}"#.utf8))
    try replaying.eject()
    #expect(body.contains(#""token":"REDACTED""#))
  }

  @Test func aBrowserExportIsRedactedWhenSaved() throws {
    let export = #"""
      {"log": {"entries": [{
        "request": {"method": "POST", "url": "https://a.com/form?key=AIzaSyA-1234567890abcdefghijklmnopqrstu",
          "headers": [{"name": "cookie", "value": "sid=abc"}, {"name": "authorization", "value": "Basic YTpi"}],
          "cookies": [{"name": "sid", "value": "abc", "httpOnly": true}],
          "postData": {"mimeType": "application/x-www-form-urlencoded", "text": "user=ann&password=hunter2",
            "params": [{"name": "user", "value": "ann"}, {"name": "password", "value": "hunter2"}]}},
        "response": {"status": 200, "headers": [{"name": "set-cookie", "value": "sid=def"}],
          "cookies": [{"name": "sid", "value": "def"}], "content": {"text": "ok"}}
      }]}}
      """#
    let folder = HARRecordTests.folder()
    let original = folder.appendingPathComponent("export.har")
    try Data(export.utf8).write(to: original)
    #expect(
      try CassetteLint.scan(fileAt: original).map { "\($0.field): \($0.kind)" } == [
        "entries[0].request.cookies.sid: cookie",
        "entries[0].request.headers.cookie: cookie",
        "entries[0].request.headers.authorization: basic credentials",
        "entries[0].request.postData.params.password: secret query parameter \"password\"",
        "entries[0].request.postData.text: secret query parameter \"password\"",
        "entries[0].request.url: Google API key",
        "entries[0].response.cookies.sid: cookie",
        "entries[0].response.headers.set-cookie: cookie",
      ])

    let saved = folder.appendingPathComponent("saved.har")
    try Cassette.load(from: original).save(to: saved)
    let text = String(decoding: try Data(contentsOf: saved), as: UTF8.self)
    for secret in ["AIzaSy", "sid=abc", "YTpi", "hunter2", "\"abc\"", "def"] {
      #expect(!text.contains(secret), "\(secret) was written")
    }
    #expect(try CassetteLint.scan(fileAt: saved) == [])
    let entry = try Cassette.load(from: saved).entries[0]
    #expect(entry.request.postData?.text == "user=ann&password=REDACTED")
    #expect(entry.request.extra["cookies"] == [["name": "sid", "value": "REDACTED", "httpOnly": true]])
  }

  @Test func disabledRedactionKeepsEverything() throws {
    let entry = try HAREntry(
      request: Request(url: URL(string: "https://a.com/?token=t")!, headers: ["Authorization": "Bearer t"]),
      response: .ok)
    #expect(Redaction.disabled.redact(entry) == entry)
    #expect(Redaction.default.redact(entry).request.headers == [HARNameValue(name: "Authorization", value: "REDACTED")])
    #expect(Redaction.default.redact(Redaction.default.redact(entry)) == Redaction.default.redact(entry))
  }

  @Test func nonJSONBodiesAndMissingPathsAreLeftAlone() throws {
    let redaction = Redaction(jsonFields: ["user.password"])
    let entry = try HAREntry(
      request: Request(
        method: .post, url: URL(string: "https://a.com/")!, headers: ["Content-Type": "text/plain"],
        body: Data("password=1".utf8)),
      response: .json(raw: #"{"user": {"name": "ann"}}"#))
    #expect(redaction.redact(entry) == entry)
  }
}
