import Foundation
import TestHTTPServer
import TestSupport
import Testing

@testable import Doppel

/// An upstream on 127.0.0.1 that hands out every kind of secret real APIs do, the way they do.
enum SecretUpstream {
  static let password = "pw-Hunter2-0001"
  static let clientSecret = "cs-Secret-0002"
  static let deviceToken = "dt-Token-0003"
  static let accessToken = "at-Access-0004"
  static let token = "tk-Token-0005"
  static let idToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.c2lnbmF0dXJlLTAwMDY"
  static let sessionToken = "st-Session-0007"
  static let apiKey = "ak-Api-0008"
  static let sessionHeader = "hs-Header-0009"
  static let refreshHeader = "hr-Refresh-0010"
  static let sessionID = "qs-Query-0011"
  static let myToken = "qm-Query-0012"
  static let urlToken = "ut-Url-0013"
  static let formPassword = "fp-Form-0014"
  static let bearer = "bt-Bearer-0016x"
  static let authorization = "ah-Auth-0017"
  static let cookie = "ck-Cookie-0018"
  static let setCookie = "sc-SetCookie-0019"
  static let keys = [
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_51H8abcdefGHIJKLmnop0015",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "AKIAIOSFODNN7EXAMPLE", "AIzaSyA-1234567890abcdefghijklmnopqrstu", "xoxb-123456789012-abcdefghijkl",
  ]

  /// Every secret string, none of which may reach a file.
  static let all =
    [
      password, clientSecret, deviceToken, accessToken, token, idToken, sessionToken, apiKey, sessionHeader,
      refreshHeader, sessionID, myToken, urlToken, formPassword, bearer, authorization, cookie, setCookie,
    ] + keys

  static func start() throws -> TestHTTPServer {
    try TestHTTPServer.start { request in
      switch (request.method, request.path) {
      case ("POST", "/login"):
        return .text(
          #"""
          {"access_token": "\#(accessToken)", "token": "\#(token)", "id_token": "\#(idToken)",
           "session_token": "\#(sessionToken)", "expires_in": 3600, "token_type": "Bearer",
           "user": {"name": "Ann", "settings": {"api_key": "\#(apiKey)", "theme": "dark"}},
           "links": {"next": "https://cdn.example.com/file?token=\#(urlToken)&size=2"}}
          """#,
          headers: [
            ("Content-Type", "application/json"), ("X-Session-Token", sessionHeader),
            ("X-Refresh-Token", refreshHeader), ("Set-Cookie", "sid=\(setCookie); Path=/; HttpOnly"),
          ])
      case ("GET", "/items"):
        return .text("items for session \(sessionID)", headers: [("Content-Type", "text/plain")])
      case ("POST", "/form"):
        let password = request.bodyText.split(separator: "&").first { $0.hasPrefix("password=") }?.dropFirst(9) ?? ""
        return .text("Welcome ann, you sent \(password)", headers: [("Content-Type", "text/plain")])
      case ("GET", "/keys"):
        return .text(
          "keys: " + keys.joined(separator: " ") + "; call with Bearer \(bearer)",
          headers: [("Content-Type", "text/plain"), ("X-Google", keys[5])])
      default:
        return .text("profile of \(request.path)", headers: [("Content-Type", "text/plain")])
      }
    }
  }

  /// Sends one request of each kind through `backend`; `secret` replaces each secret the client
  /// sends (the upstream's own secrets come back as they are).
  static func exercise(_ backend: Backend, _ base: String, secret: (String) -> String = { $0 }) async throws {
    _ = try await backend.send(
      .post, "\(base)/login",
      headers: [
        "Content-Type": "application/json", "Authorization": "Bearer \(secret(authorization))",
        "Cookie": "sid=\(secret(cookie))",
      ],
      body: Data(
        #"{"username": "ann", "password": "\#(secret(password))", "client_secret": "\#(secret(clientSecret))", "device": {"name": "phone", "token": "\#(secret(deviceToken))"}}"#
          .utf8))
    _ = try await backend.send(
      .get, "\(base)/items?session_id=\(secret(sessionID))&mytoken=\(secret(myToken))&page=1",
      headers: ["X-Session-Token": secret(sessionHeader)])
    _ = try await backend.send(
      .post, "\(base)/form", headers: ["Content-Type": "application/x-www-form-urlencoded"],
      body: Data("user=ann&password=\(secret(formPassword))".utf8))
    _ = try await backend.send(.get, "\(base)/keys")
    // The access token echoed in a path, the token in a header that is not secret by name.
    _ = try await backend.send(
      .get, "\(base)/users/\(secret(accessToken))/profile", headers: ["X-Trace": secret(token)])
  }
}

/// Recording from a real upstream writes no secret and still replays; the rules behind it
/// (`SecretRules`, `SecretWalker`, the linter's scanner and replay keys) are tested one by one.
@Suite struct HARSecretsTests {
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

  @Test func theLinterFlagsExactlyWhatRedactionRemoves() async throws {
    let server = try SecretUpstream.start()
    defer { server.stop() }
    let url = HARRecordTests.folder().appendingPathComponent("raw.har")
    let recorder = quietBackend()
    let recording = try recorder.insertCassette(at: url, record: .once, redaction: .disabled, environment: [:])
    try await SecretUpstream.exercise(recorder, server.baseURL.absoluteString)
    try recording.eject()
    let raw = try Data(contentsOf: url)
    let rawText = String(decoding: raw, as: UTF8.self)
    #expect(SecretUpstream.all.allSatisfy { rawText.contains($0) || $0 == SecretUpstream.cookie })

    let findings = try CassetteLint.scan(raw, file: "raw.har")
    let redacted = try Cassette.load(from: url).encoded()
    let changed = Self.changedFields(try JSONValue(parsing: raw), try JSONValue(parsing: redacted))
    #expect(Set(findings.map(\.field)) == changed)
    #expect(changed.count >= 20)
    #expect(findings.contains { $0.field == "entries[4].request.url" && $0.kind == .repeatedSecret })
    #expect(findings.contains { $0.field == "entries[2].response.content.text" && $0.kind == .repeatedSecret })
    #expect(
      findings.contains {
        $0.field == "entries[0].response.headers.X-Refresh-Token" && $0.kind == .secretHeader("X-Refresh-Token")
      })
    // Once redacted, nothing is left to flag.
    #expect(try CassetteLint.scan(redacted, file: "redacted.har") == [])
  }

  /// The fields (as the linter names them) where `redacted` differs from `raw`.
  static func changedFields(_ raw: JSONValue, _ redacted: JSONValue) -> Set<String> {
    var changed: Set<String> = []
    func walk(_ raw: JSONValue, _ redacted: JSONValue, _ path: [SecretWalker.Part], list: String?) {
      switch (raw, redacted) {
      case (.string(let left), .string(let right)):
        if left != right { changed.insert(LintScanner.describe(path).field) }
      case (.array(let left), .array(let right)):
        for (index, (leftElement, rightElement)) in zip(left, right).enumerated() {
          if let list, ["headers", "cookies", "queryString", "params"].contains(list),
            case .object(let object) = leftElement, case .string(let name)? = object["name"],
            case .object(let other) = rightElement
          {
            for (key, value) in object {
              guard let otherValue = other[key] else { continue }
              walk(value, otherValue, key == "value" ? path + [.key(name)] : path + [.key(name), .key(key)], list: nil)
            }
          } else {
            walk(leftElement, rightElement, path + [.index(index)], list: nil)
          }
        }
      case (.object(let left), .object(let right)):
        for (key, value) in left {
          guard let other = right[key] else { continue }
          walk(value, other, path + [.key(key)], list: key)
        }
      default:
        if raw != redacted { changed.insert(LintScanner.describe(path).field) }
      }
    }
    walk(raw, redacted, [], list: nil)
    return changed
  }

  @Test(arguments: [
    ("Authorization", true), ("Set-Cookie", true), ("cookie", true), ("X-Session-Token", true),
    ("x-refresh-token", true), ("session_id", true), ("mytoken", true), ("clientSecret", true),
    ("PASSWORD", true), ("passwd", true), ("api_key", true), ("apiKey", true), ("X-API-Key", true),
    ("oauth_verifier", true), ("x-auth", true), ("authorization_code", true), ("credentials", true),
    ("private_key", true), ("privateKey", true), ("X-Amz-Signature", true), ("author", false),
    ("authority", false), ("co_author", false), ("Accept", false), ("Content-Type", false), ("page", false),
    ("keyboard", false), ("name", false),
  ])
  func namesAUserWouldCallSecretAreSecret(name: String, secret: Bool) {
    #expect(SecretRules.isSecretName(name.lowercased()) == secret)
    let rules = SecretRules(.default)
    #expect((rules.header(name, value: "v") != nil) == secret)
    #expect(rules.key(name, keyPath: []) == secret)
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

  @Test func repeatedValuesAreFoundInOnePassEvenWhenTheyShareAPrefixOrOverlap() {
    var values = EchoSet()
    for value in ["eyJhbGciOi-0001", "eyJhbGciOi-0001-long", "eyJhbGciOi-0002", "abc12345", "c12345xy"] {
      values.insert(value)
    }
    values.prepare()
    #expect(
      values.replacing(in: "a eyJhbGciOi-0001-long b eyJhbGciOi-0002 eyJhbGciOi-0001 abc12345xy")
        == "a REDACTED b REDACTED REDACTED REDACTEDxy")
    #expect(values.replacing(in: "ééé c12345xy ééé") == "ééé REDACTED ééé")
    #expect(values.replacing(in: "eyJhbGciOi-000 nothing here") == nil)
  }

  @Test func markersMatchAnyTextInTheirPlace() {
    #expect(ReplayKey.matches(recorded: "Bearer REDACTED", actual: "Bearer abc"))
    #expect(ReplayKey.matches(recorded: "/users/REDACTED/keys", actual: "/users/x-1/keys"))
    #expect(!ReplayKey.matches(recorded: "/users/REDACTED/keys", actual: "/users/x-1/locks"))
    #expect(ReplayKey.matches(recorded: "a=REDACTED&b=REDACTED", actual: "a=1&b=2"))
    #expect(!ReplayKey.matches(recorded: "a=REDACTED&b=2", actual: "a=1&c=2"))
    #expect(ReplayKey.matches(recorded: "REDACTED", actual: ""))
    #expect(!ReplayKey.matches(recorded: "plain", actual: "plainer"))
  }
}
