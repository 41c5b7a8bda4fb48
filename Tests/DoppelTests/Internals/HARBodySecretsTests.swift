import Foundation
import TestSupport
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// Issue 29: every kind of secret `doppel record` once wrote in clear, in bodies of every encoding,
/// is redacted, and linted exactly where it would be redacted.
@Suite struct HARBodySecretsTests {
  // MARK: Names

  @Test(arguments: [
    ("pwd", true), ("user_pwd", true), ("pass", true), ("userPass", true), ("passphrase", true),
    ("key_passphrase", true), ("passcode", true), ("otp", true), ("otpCode", true), ("totp", true),
    ("refresh", true), ("x-refresh", true), ("X-CSRF", true), ("X-CSRF-Token", true), ("X-XSRF-Token", true),
    ("csrfmiddlewaretoken", true), ("_csrf", true), ("passenger", false), ("compass", false), ("bypass", false),
    ("passport_country", false), ("footprint", false), ("hotpot", false), ("refresh_rate", false),
    ("autoRefreshSeconds", false), ("code", false), ("state", false),
  ])
  func passwordLikeNamesAreSecretAndTheirLookalikesAreNot(name: String, secret: Bool) {
    #expect(SecretRules.isSecretName(name) == secret)
    let rules = SecretRules(.default)
    #expect(rules.key(name, keyPath: []) == secret)
    // `Refresh` is an HTTP header, not a token.
    #expect((rules.header(name, value: "v") != nil) == (secret && name != "refresh"))
  }

  @Test func oauthCodeAndStateAreSecretOnlyAsParameters() {
    let rules = SecretRules(.default)
    #expect(rules.parameter("code") && rules.parameter("STATE"))
    #expect(!rules.key("code", keyPath: []) && !rules.key("state", keyPath: []))
    #expect(!SecretRules(.default.keeping(names: ["state"])).parameter("state"))
    #expect(!SecretRules(.default.excluding(.secretNames)).parameter("code"))
  }

  // MARK: Redaction and lint, kind by kind

  /// The cassette's JSON with every body decoded, as a reader of the file could see it.
  static func everythingReadable(_ data: Data) throws -> String {
    var text = String(decoding: data, as: UTF8.self)
    for entry in try Cassette(data: data, file: "x").entries {
      for body in [entry.request.postData?.text, entry.response.content.text].compactMap({ $0 }) {
        guard var bytes = Data(base64Encoded: body).map([UInt8].init) else { continue }
        if let format = CompressedBody.format(of: bytes, contentEncoding: "", mimeType: ""),
          let decoded = try? CompressedBody.decode(bytes, format)
        {
          bytes = decoded
        }
        text += String(decoding: bytes, as: UTF8.self)
      }
    }
    return text
  }

  @Test func everyKindIsRedactedInBodiesOfEveryEncoding() throws {
    let raw = PlantedSecrets.plantedCassette
    #expect(try Self.everythingReadable(raw).contains("bi-Pass-0114"))
    let cassette = try Cassette(data: raw, file: "planted.har")
    let saved = try cassette.encoded()
    let readable = try Self.everythingReadable(saved)
    for secret in PlantedSecrets.secrets { #expect(!readable.contains(secret), "\(secret) was written") }
    let entries = try Cassette(data: saved, file: "saved.har").entries
    #expect(
      entries[0].request.postData?.text
        == #"{"otp":"REDACTED","passphrase":"REDACTED","pwd":"REDACTED","refresh":"REDACTED"}"#)
    #expect(entries[1].request.postData?.text == "user=ann&pwd=REDACTED&passphrase=REDACTED")
    #expect(entries[2].response.content.text == "REDACTED REDACTED REDACTED")
    #expect(entries[3].response.headers.first?.value == "https://ann:REDACTED@b.com/x")
    #expect(entries[3].response.content.text == "see https://ann:REDACTED@b.com/y")
    #expect(entries[4].request.url == "https://a.com/cb?code=REDACTED&state=REDACTED")
    #expect(
      entries[5].response.content.text
        == #"<html><head><meta name="csrf-token" content="REDACTED"><meta name="viewport" content="width=device-width"></head><input type=hidden name=authenticity_token value=REDACTED></html>"#
    )
    #expect(entries[5].response.headers.first?.value == "REDACTED")
    // Binary stays binary, the text runs redacted.
    let binary = try #require(entries[6].response.content.text.flatMap { Data(base64Encoded: $0) })
    #expect(
      Array(binary) == [0, 0xFF, 1] + Array("password=REDACTED".utf8) + [0, 0xFE] + Array("REDACTED".utf8) + [0xFF])
    #expect(entries[7].response.content.text == Data(#"{"password":"REDACTED"}"#.utf8).base64EncodedString())
    // Gzip stays gzip (stored blocks), with its secret redacted.
    let gzip = try #require(entries[8].response.content.text.flatMap { Data(base64Encoded: $0) })
    #expect(
      try CompressedBody.decode([UInt8](gzip), .gzip)
        == Array(
          (#"{"note":""# + String(repeating: "the quick brown fox ", count: 20)
            + #"","password":"REDACTED","user":"ann"}"#)
            .utf8))
    // Brotli cannot be scanned: its digest instead.
    #expect(
      entries[9].response.content.text
        == "doppel-redacted: sha256 \(SHA256.hex(HARCompressionTests.bytes("i4CAYnItT3BhcXVlAw=="))) length 13")
    #expect(entries[9].response.content.encoding == nil)
    // Saved again, nothing changes; and it lints clean.
    #expect(try Cassette(data: saved, file: "x").encoded() == saved)
    #expect(try CassetteLint.scan(saved, file: "saved.har") == [])
  }

  /// A gzip stream of `count` zero bytes in about `count / 160` bytes: a literal, then copies of
  /// 258 bytes at distance 1 in one fixed-Huffman block (13 bits each).
  static func bomb(zeros count: Int) -> [UInt8] {
    var bytes: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
    var buffer = 0
    var filled = 0
    func put(_ value: Int, _ width: Int) {
      buffer |= value << filled
      filled += width
      while filled >= 8 {
        bytes.append(UInt8(buffer & 0xFF))
        buffer >>= 8
        filled -= 8
      }
    }
    /// A Huffman code, most significant bit first.
    func code(_ value: Int, _ width: Int) {
      for shift in stride(from: width - 1, through: 0, by: -1) { put((value >> shift) & 1, 1) }
    }
    put(1, 1)  // the last block
    put(1, 2)  // fixed Huffman codes
    code(0x30, 8)  // literal 0
    for _ in 0..<((count - 1) / 258) {
      code(0xC5, 8)  // length symbol 285: 258 bytes
      code(0, 5)  // distance symbol 0: distance 1
    }
    code(0, 7)  // end of block
    put(0, 7)
    return bytes + [UInt8](repeating: 0, count: 8)
  }

  @Test func aDecompressionBombIsWrittenAsADigestWithoutBeingInflatedWhole() throws {
    let bomb = Self.bomb(zeros: 40 << 20)
    #expect(bomb.count < 300_000)
    #expect(throws: Inflate.Failure.tooLarge) { try CompressedBody.decode(bomb, .gzip) }
    let entry = try HAREntry(
      request: Request(url: URL(string: "https://a.com/bomb")!),
      response: .data(Data(bomb), headers: ["Content-Type": "application/gzip"]))
    #expect(
      Redaction.default.redact(entry).response.content.text
        == Redaction.unscannableBodyDigest(of: Data(bomb)))
    // Within the limit, the same stream decodes.
    #expect(
      try Inflate.decode(Self.bomb(zeros: 1 + 258 * 4), from: 10, limit: 2_000).output
        == [UInt8](repeating: 0, count: 1 + 258 * 4))
  }

  @Test func moreKeyFormatsAreKnown() {
    let keys = [
      "sk-proj-Abc123def456GHI789jkl012MNO345pqr", "sk-svcacct-Abc123def456GHI789jkl012MNO345pqr",
      "sk-Abc123def456GHI789jkl012MNO345pqrSTU", "sk-ant-api03-Abc123def456GHI789jkl012-MNO345",
      "glpat-Abc123def456GHI789jk", "npm_Abc123def456GHI789jkl012MNO345pqrSTU",
      "gho_abcdefghijklmnopqrstuvwxyz0123456789", "ghs_abcdefghijklmnopqrstuvwxyz0123456789",
      "xoxp-123456789012-abcdefghijkl",
    ]
    for key in keys { #expect(Redaction.default.redact(line: "a \(key) b") == "a REDACTED b", "\(key)") }
    // Look-alikes stay.
    for text in ["sk-some-long-product-slug-name-here", "task-ant-api03", "glpat-short"] {
      #expect(Redaction.default.redact(line: text) == text)
    }
  }

  @Test func jsonPairsInsideOtherTextAreRedacted() {
    #expect(
      Redaction.default.redact(
        line: #"<script>window.state = {"csrfToken": "ct-0001", "user": "ann", "otp":"ot-0002"};</script>"#)
        == #"<script>window.state = {"csrfToken": "REDACTED", "user": "ann", "otp":"REDACTED"};</script>"#)
    #expect(
      Redaction.default.redact(line: #"log: "state": "CA", "code": "E42", "passenger": "Ann \"Pass\" Lee""#)
        == #"log: "state": "CA", "code": "E42", "passenger": "Ann \"Pass\" Lee""#)
  }

  @Test(.timeLimit(.minutes(1))) func adversarialMarkupTakesLinearTime() {
    let unterminated = String(repeating: #"<meta name="csrf-token" content="x"#, count: 20_000)
    // As in HTML, a quoted value runs to the next quote; what matters here is that it ends.
    #expect(Redaction.default.redact(line: unterminated).utf8.count < unterminated.utf8.count)
    let quotes = String(repeating: #""a": "#, count: 40_000) + "\""
    #expect(Redaction.default.redact(line: quotes).utf8.count == quotes.utf8.count)
    let urls = String(repeating: "https://a:b", count: 40_000)
    #expect(Redaction.default.redact(line: urls).utf8.count == urls.utf8.count)
  }

  @Test func requestLinesAreRedacted() {
    #expect(
      Redaction.default.redact(line: "GET /cb?sessionid=s-0001abcd&code=c-0002&page=2 → 200")
        == "GET /cb?sessionid=REDACTED&code=REDACTED&page=2 → 200")
    #expect(
      Redaction.default.redact(line: "GET /x → 404 no stub matched (closest: GET https://ann:pw-0003@a.com/x)")
        == "GET /x → 404 no stub matched (closest: GET https://ann:REDACTED@a.com/x)")
    #expect(Redaction.disabled.redact(line: "GET /cb?code=c-0002 → 200") == "GET /cb?code=c-0002 → 200")
  }
}
