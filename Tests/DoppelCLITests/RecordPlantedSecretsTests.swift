#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Issue 29, point 4: each kind of secret `doppel record` once wrote in clear, planted by a
  /// loopback upstream and by the client, stays off the disk and out of the request log; and
  /// `doppel lint` flags each kind in a cassette written by hand.
  @Suite(.timeLimit(.minutes(1))) struct RecordPlantedSecretsTests {
    /// `password=bi-Pass-0214`, a GitHub token, between bytes that are not text.
    static let binary: [UInt8] =
      [0, 0xFF, 1] + Array("password=bi-Pass-0214".utf8) + [0, 0xFE]
      + Array("ghp_0123456789abcdefghijklmnopqrstuvwxyz".utf8) + [0xFF]
    /// gzip (level 9) of `{"user":"ann","password":"gz-Secret-0042","note":"the quick brown fox …"}`.
    static let gzip = Data(
      base64Encoded:
        "H4sIAAAAAAACA6tWKi1OLVKyUkrMy1PSUSpILC4uzy9KAQqkV+kGpyYXpZboGhiYGAHl8vJLUoHiJRmpCoWlmcnZCklF+eV5Cmn5FQqjYgMnplQLAIrtVAvEAQAA"
    )!
    /// A zstd frame's magic, then bytes Doppel cannot decode.
    static let zstd = Data([0x28, 0xB5, 0x2F, 0xFD] + Array("zs-Opaque-0215".utf8))

    static let secrets = [
      "pw-Json-0201", "pp-Json-0202", "rf-Json-0203", "ot-Json-0204", "pw-Form-0205", "pp-Form-0206",
      "sk-proj-Abc123def456GHI789jkl012MNO345pqr", "sk-ant-api03-Abc123def456GHI789jkl012-MNO345",
      "glpat-Abc123def456GHI789jk", "us-Pass-0207", "us-Pass-0208", "us-Pass-0209", "oc-Code-0210", "os-State-0211",
      "si-Session-0212", "cm-Meta-0213", "ch-Csrf-0216", "bi-Pass-0214", "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
      "b6-Text-0217", "gz-Secret-0042", "zs-Opaque-0215",
    ]

    static func upstream() -> Backend {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.post("/login"), .json(raw: #"{"ok": true}"#))
      upstream.stub(.post("/form"), .text("ok"))
      upstream.stub(
        .get("/keys"),
        .text(
          "sk-proj-Abc123def456GHI789jkl012MNO345pqr sk-ant-api03-Abc123def456GHI789jkl012-MNO345 glpat-Abc123def456GHI789jk"
        ))
      upstream.stub(
        .get("/created"),
        .json(
          raw: #"{"next": "https://ann:us-Pass-0208@b.example/y"}"#, status: 201,
          headers: ["Location": "https://ann:us-Pass-0207@b.example/x"]))
      upstream.stub(.get("/cb"), .text("signed in"))
      upstream.stub(
        .get("/page"),
        .text(
          #"<html><head><meta name="csrf-token" content="cm-Meta-0213"></head><body>hi</body></html>"#,
          headers: ["Content-Type": "text/html", "X-CSRF": "ch-Csrf-0216"]))
      upstream.stub(.get("/blob"), .data(Data(binary)))
      upstream.stub(.get("/b64"), .text(Data(#"{"password": "b6-Text-0217"}"#.utf8).base64EncodedString()))
      upstream.stub(.get("/archive.gz"), .data(gzip, contentType: "application/gzip"))
      upstream.stub(.get("/archive.zst"), .data(zstd, contentType: "application/zstd"))
      return upstream
    }

    static func send(
      _ method: String, _ url: URL, headers: [String: String] = [:], body: String? = nil
    ) async throws -> Int {
      var request = URLRequest(url: url)
      request.httpMethod = method
      for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
      request.httpBody = body.map { Data($0.utf8) }
      let (_, response) = try await realSession.data(for: request)
      return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test func noPlantedSecretReachesTheCassetteOrTheLog() async throws {
      let cassette = try temporaryDirectory().appendingPathComponent("planted.har")
      var lines: [String] = []
      try await withStubServer(Self.upstream()) { real in
        let recorder = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0",
        ])
        let proxy = try await recorder.serverURL().absoluteString
        #expect(
          try await Self.send(
            "POST", URL(string: "\(proxy)/login")!, headers: ["Content-Type": "application/json"],
            body:
              #"{"user": "ann", "pwd": "pw-Json-0201", "passphrase": "pp-Json-0202", "refresh": "rf-Json-0203", "otp": "ot-Json-0204"}"#
          ) == 200)
        #expect(
          try await Self.send(
            "POST", URL(string: "\(proxy)/form")!, headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "user=ann&pwd=pw-Form-0205&passphrase=pp-Form-0206") == 200)
        #expect(
          try await Self.send(
            "GET", URL(string: "\(proxy)/created")!, headers: ["Referer": "https://ann:us-Pass-0209@c.example/"])
            == 201)
        #expect(
          try await Self.send(
            "GET", URL(string: "\(proxy)/cb?sessionid=si-Session-0212&code=oc-Code-0210&state=os-State-0211")!)
            == 200)
        for path in ["keys", "page", "blob", "b64", "archive.gz", "archive.zst"] {
          #expect(try await Self.send("GET", URL(string: "\(proxy)/\(path)")!) == 200)
        }
        _ = try await recorder.line(containing: "GET /archive.zst")
        recorder.interrupt()
        #expect(await recorder.waitForExit() == 0)
        lines = recorder.outputLines
      }
      #expect(lines.contains { $0.hasPrefix("GET /cb?sessionid=REDACTED&code=REDACTED&state=REDACTED → 200") })
      let saved = try Data(contentsOf: cassette)
      // Everything a reader of the file sees, base64 bodies decoded.
      var readable = String(decoding: saved, as: UTF8.self)
      let entries = try Cassette(data: saved, file: cassette.path).entries
      for entry in entries {
        for body in [entry.request.postData, nil].compactMap({ $0 }) { readable += body.text ?? "" }
        if let text = entry.response.content.text, let data = Data(base64Encoded: text) {
          readable += String(decoding: data, as: UTF8.self)
        }
      }
      for secret in Self.secrets {
        #expect(!readable.contains(secret), "\(secret) was written")
        #expect(!lines.joined(separator: "\n").contains(secret), "\(secret) was printed")
      }
      // The gzip file is still gzip, in stored blocks: its redacted text shows through.
      let archive = try #require(entries.first { $0.request.url.hasSuffix("/archive.gz") })
      let gzip = try #require(archive.response.content.text.flatMap { Data(base64Encoded: $0) })
      #expect(gzip.starts(with: [0x1F, 0x8B]))
      #expect(String(decoding: gzip, as: UTF8.self).contains(#""password":"REDACTED""#))
      // The zstd body cannot be scanned: its digest stands in for it.
      let zstd = try #require(entries.first { $0.request.url.hasSuffix("/archive.zst") })
      #expect(zstd.response.content.text == Redaction.unscannableBodyDigest(of: Self.zstd))
      #expect(zstd.response.content.text?.hasPrefix("doppel-redacted: sha256 ") == true)
      let lint = try await DoppelProcess.run(["lint", cassette.path])
      #expect(lint.output == "No problems in 1 file.")
      #expect(lint.status == 0)
    }

    @Test func serveLogsRequestLinesRedacted() async throws {
      let directory = try temporaryDirectory()
      try Data(#"{"stubs": [{"request": "GET /cb", "response": {"text": "signed in"}}]}"#.utf8).write(
        to: directory.appendingPathComponent("doppel.json"))
      let doppel = try DoppelProcess(["serve", directory.path, "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL().absoluteString
      let (status, _) = try await fetch(URL(string: "\(base)/cb?sessionid=si-Session-0212&code=oc-Code-0210&page=2")!)
      #expect(status == 200)
      let line = try await doppel.line(containing: "GET /cb")
      #expect(line == "GET /cb?sessionid=REDACTED&code=REDACTED&page=2 → 200 (doppel.json:1)")
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func keepingUnscannableBodiesIsAnOptionOfRecordAndLint() async throws {
      let cassette = try temporaryDirectory().appendingPathComponent("kept.har")
      try await withStubServer(Self.upstream()) { real in
        let recorder = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0", "--quiet",
          "--keep-unscannable-bodies",
        ])
        let proxy = try await recorder.serverURL()
        #expect(try await Self.send("GET", proxy.appendingPathComponent("archive.zst")) == 200)
        recorder.interrupt()
        #expect(await recorder.waitForExit() == 0)
      }
      let entries = try Cassette.load(from: cassette).entries
      #expect(entries.first?.response.content.text == Self.zstd.base64EncodedString())
      let strict = try await DoppelProcess.run(["lint", cassette.path])
      #expect(strict.status == 1)
      #expect(
        strict.output.hasSuffix(
          "log.entries[0].response.content.text: body that cannot be scanned for secrets (record it again without --keep-unscannable-bodies, or replace it with a made-up body)"
        ))
      let kept = try await DoppelProcess.run(["lint", "--keep-unscannable-bodies", cassette.path])
      #expect(kept.status == 0)
    }

    @Test func lintFlagsEachKindInAHandWrittenCassette() async throws {
      let directory = try temporaryDirectory()
      let gzip = Self.gzip.base64EncodedString()
      let binary = Data(Self.binary).base64EncodedString()
      let base64Text = Data(#"{"password": "b6-Text-0217"}"#.utf8).base64EncodedString()
      try Data(
        #"""
        {"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [
          {"request": {"method": "POST", "url": "https://a.com/login",
            "postData": {"mimeType": "application/json", "text": "{\"pwd\": \"pw-Json-0201\", \"otp\": \"ot-Json-0204\"}"}},
           "response": {"status": 200}},
          {"request": {"method": "POST", "url": "https://a.com/form",
            "postData": {"mimeType": "application/x-www-form-urlencoded", "text": "passphrase=pp-Form-0206"}},
           "response": {"status": 200}},
          {"request": {"method": "GET", "url": "https://a.com/cb?code=oc-Code-0210&state=os-State-0211",
            "headers": [{"name": "Referer", "value": "https://ann:us-Pass-0209@c.example/"}]},
           "response": {"status": 201,
            "headers": [{"name": "Location", "value": "https://ann:us-Pass-0207@b.example/x"}, {"name": "X-CSRF", "value": "ch-Csrf-0216"}],
            "content": {"mimeType": "text/html", "text": "<meta name=\"csrf-token\" content=\"cm-Meta-0213\"> sk-ant-api03-Abc123def456GHI789jkl012-MNO345"}}},
          {"request": {"method": "GET", "url": "https://a.com/blob"},
           "response": {"status": 200, "content": {"mimeType": "application/octet-stream", "encoding": "base64", "text": "\#(binary)"}}},
          {"request": {"method": "GET", "url": "https://a.com/b64"},
           "response": {"status": 200, "content": {"mimeType": "text/plain", "text": "\#(base64Text)"}}},
          {"request": {"method": "GET", "url": "https://a.com/archive.gz"},
           "response": {"status": 200, "content": {"mimeType": "application/gzip", "encoding": "base64", "text": "\#(gzip)"}}},
          {"request": {"method": "GET", "url": "https://a.com/archive.zst"},
           "response": {"status": 200, "content": {"mimeType": "application/zstd", "encoding": "base64", "text": "KLUv/Q=="}}}
        ]}}
        """#.utf8
      ).write(to: directory.appendingPathComponent("hand.har"))
      let result = try await DoppelProcess.run(["lint", "hand.har"], directory: directory)
      #expect(result.status == 1)
      let fix = "(redact it, or replace it with a made-up value)"
      #expect(
        result.output.split(separator: "\n").map(String.init) == [
          #"hand.har:3:58: log.entries[0].request.postData.text: secret JSON field "otp" \#(fix)"#,
          #"hand.har:3:58: log.entries[0].request.postData.text: secret JSON field "pwd" \#(fix)"#,
          #"hand.har:6:75: log.entries[1].request.postData.text: secret query parameter "passphrase" \#(fix)"#,
          #"hand.har:8:40: log.entries[2].request.url: secret query parameter "code" \#(fix)"#,
          #"hand.har:8:40: log.entries[2].request.url: secret query parameter "state" \#(fix)"#,
          #"hand.har:9:46: log.entries[2].request.headers.Referer: password in a URL \#(fix)"#,
          #"hand.har:11:47: log.entries[2].response.headers.Location: password in a URL \#(fix)"#,
          #"hand.har:11:116: log.entries[2].response.headers.X-CSRF: secret header X-CSRF \#(fix)"#,
          #"hand.har:12:50: log.entries[2].response.content.text: Anthropic API key \#(fix)"#,
          #"hand.har:12:50: log.entries[2].response.content.text: secret HTML field "csrf-token" \#(fix)"#,
          #"hand.har:14:114: log.entries[3].response.content.text: secret query parameter "password" \#(fix)"#,
          #"hand.har:14:114: log.entries[3].response.content.text: GitHub token \#(fix)"#,
          #"hand.har:16:78: log.entries[4].response.content.text: secret JSON field "password" \#(fix)"#,
          #"hand.har:18:106: log.entries[5].response.content.text: secret JSON field "password" \#(fix)"#,
          #"hand.har:20:106: log.entries[6].response.content.text: body that cannot be scanned for secrets (record it again without --keep-unscannable-bodies, or replace it with a made-up body)"#,
        ])
      #expect(result.error == "doppel lint: 15 problems in 1 of 1 file.")
    }
  }
#endif
