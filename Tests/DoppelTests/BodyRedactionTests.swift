import Doppel
import Foundation
import TestSupport
import Testing

/// What recording redacts in bodies, through the public API: keeping a body that cannot be
/// scanned is an opt-in, lint flags each kind of secret where redaction would, and a `Refresh`
/// header is not taken for a secret.
@Suite struct BodyRedactionTests {
  @Test func keepingUnscannableBodiesIsAnOptIn() throws {
    let redaction = Redaction.default.excluding(.unscannableBodies)
    let saved = try Cassette(data: PlantedSecrets.plantedCassette, file: "p").encoded(redaction: redaction)
    #expect(try Cassette(data: saved, file: "x").entries[9].response.content.text == "i4CAYnItT3BhcXVlAw==")
    #expect(try CassetteLint.scan(saved, file: "kept.har", redaction: redaction) == [])
    #expect(
      try CassetteLint.scan(saved, file: "kept.har").map(\.description) == [
        "kept.har: entries[9].response.content.text: body that cannot be scanned for secrets"
      ])
    // A gzip body beyond the limit decoded, or malformed, cannot be scanned either.
    var broken = HARCompressionTests.gzip
    broken[20] ^= 0x55
    let entry = try HAREntry(
      request: Request(url: URL(string: "https://a.com/")!),
      response: .data(Data(broken), headers: ["Content-Type": "application/gzip"]))
    #expect(Redaction.default.redact(entry).response.content.text?.hasPrefix("doppel-redacted: sha256 ") == true)
    #expect(redaction.redact(entry) == entry)
  }

  @Test func lintFlagsEveryKindWhereRedactionWould() throws {
    let findings = try CassetteLint.scan(PlantedSecrets.plantedCassette, file: "planted.har")
    #expect(
      findings.map(\.description) == [
        "planted.har: entries[0].request.postData.text: secret JSON field \"otp\"",
        "planted.har: entries[0].request.postData.text: secret JSON field \"passphrase\"",
        "planted.har: entries[0].request.postData.text: secret JSON field \"pwd\"",
        "planted.har: entries[0].request.postData.text: secret JSON field \"refresh\"",
        "planted.har: entries[1].request.postData.text: secret query parameter \"pwd\"",
        "planted.har: entries[1].request.postData.text: secret query parameter \"passphrase\"",
        "planted.har: entries[2].response.content.text: OpenAI API key",
        "planted.har: entries[2].response.content.text: Anthropic API key",
        "planted.har: entries[2].response.content.text: GitLab token",
        "planted.har: entries[3].response.content.text: password in a URL",
        "planted.har: entries[3].response.headers.Location: password in a URL",
        "planted.har: entries[4].request.queryString.code: secret query parameter \"code\"",
        "planted.har: entries[4].request.queryString.state: secret query parameter \"state\"",
        "planted.har: entries[4].request.url: secret query parameter \"code\"",
        "planted.har: entries[4].request.url: secret query parameter \"state\"",
        "planted.har: entries[5].response.content.text: secret HTML field \"csrf-token\"",
        "planted.har: entries[5].response.content.text: secret HTML field \"authenticity_token\"",
        "planted.har: entries[5].response.headers.X-CSRF: secret header X-CSRF",
        "planted.har: entries[6].response.content.text: secret query parameter \"password\"",
        "planted.har: entries[6].response.content.text: GitHub token",
        "planted.har: entries[7].response.content.text: secret JSON field \"password\"",
        "planted.har: entries[8].response.content.text: secret JSON field \"password\"",
        "planted.har: entries[9].response.content.text: body that cannot be scanned for secrets",
      ])
  }

  @Test func theRefreshHeaderIsKept() throws {
    let entry = try HAREntry(
      request: Request(url: URL(string: "https://a.com/")!),
      response: .text("wait", headers: ["Refresh": "5; url=/next", "X-Refresh": "rf-0001abcd"]))
    #expect(
      Redaction.default.redact(entry).response.headers.filter { $0.name.contains("Refresh") }.map(\.value) == [
        "5; url=/next", "REDACTED",
      ])
  }
}
