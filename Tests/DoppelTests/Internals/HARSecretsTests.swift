import Foundation
import TestHTTPServer
import TestSupport
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The rules recording redacts by (`SecretRules`, `SecretWalker`, the linter's scanner and replay
/// keys), one by one; `RedactionTests` shows them through the public API, recording from a real
/// upstream.
@Suite struct HARSecretsTests {
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
