import Foundation
import Testing

@testable import DoppelCore

/// The known secret formats' regular expression runs only on text that holds one of their anchors
/// (a HAR file a browser wrote has tens of thousands of strings, almost none with a secret): every
/// format's secrets must hold an anchor, or they would be kept in clear.
@Suite struct SecretFormatAnchorTests {
  /// One secret of each format, in `SecretRules.valueFormats` order.
  static let examples = [
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
    "sk-ant-api03-abcdefghijklmnopqrstuvwx",
    "sk-proj-abcdefghijklmnopqrstuvwx",
    "glpat-abcdefghijklmnopqrst",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "https://hooks.slack.com/services/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",
    "xoxb-123456789012-abcdefghijkl",
    "AIzaSyA-1234567890abcdefghijklmnopqrstu",
    "sk_live_abcdefghij1234",
    "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",
    "AC0123456789abcdef0123456789abcdef",
    "hf_abcdefghijklmnopqrstuvwxyz0123",
    "shpat_0123456789abcdef0123456789abcdef",
    "dop_v1_" + String(repeating: "0123456789abcdef", count: 4),
    "123456789:AAabcdefghijklmnopqrstuvwxyz0123456",
    "DefaultEndpointsProtocol=https;AccountKey=abcdefghijklmnopqrstuvwxyz0123==",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl",
    "Authorization: Bearer abcdefgh12345",
  ]

  @Test func everyFormatHasAnExample() {
    #expect(Self.examples.count == SecretRules.valueFormats.count)
  }

  @Test(arguments: Self.examples.indices)
  func eachFormatsSecretHoldsAnAnchor(_ index: Int) throws {
    let text = "seen in: \(Self.examples[index]) (end)"
    let pattern = try #require(SecretRules.valuePattern)
    let matches = pattern.regex.matches(in: text, range: NSRange(text.startIndex..., in: text))
    let formats = matches.flatMap { match in
      SecretRules.valueFormats.indices.filter { match.range(at: $0 + 1).location != NSNotFound }
    }
    #expect(formats.contains(index), "\(SecretRules.valueKinds[index]): its example is not matched by its own format")
    #expect(SecretRules.mayHoldKnownFormat(text), "\(SecretRules.valueKinds[index]): its example holds no anchor")
  }

  @Test func ordinaryTextHoldsNoAnchor() {
    for text in [
      "text/html; charset=utf-8", "max-age=31536000", "https://www.example.com/static/app.js?v=2",
      "Mon, 28 Mar 2016 10:27:32 GMT", "ACCEPT", "gzip, deflate, br",
    ] {
      #expect(!SecretRules.mayHoldKnownFormat(text), "\(text)")
    }
  }
}
