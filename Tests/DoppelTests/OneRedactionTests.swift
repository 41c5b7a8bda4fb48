import Doppel
import Foundation
import TestSupport
import Testing

/// Issue 44, point 5: one redaction everywhere. Every planted secret of the shared corpus
/// (``PlantedSecrets/all``) stays out of a cassette, the journal's HAR, the near-miss report (the
/// issue, the error, the journal's copy that attachments and the 404 body show) and the request
/// log's line; `doppel lint` flags exactly the entries that redaction changes.
@Suite struct OneRedactionTests {
  static func entries() throws -> [HAREntry] {
    try PlantedSecrets.all.map { try HAREntry(request: $0.request, response: $0.response) }
  }

  static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

  @Test func noPlantedSecretReachesACassette() throws {
    let saved = try Cassette(entries: Self.entries()).encoded()
    #expect(PlantedSecrets.leaks(in: Self.text(saved)) == [])
    // Without redaction every one is there, so the corpus tests something.
    let raw = Self.text(try Cassette(entries: Self.entries()).encoded(redaction: .disabled))
    #expect(PlantedSecrets.all.flatMap(\.secrets).filter { !raw.contains($0) } == [])
  }

  @Test func lintFlagsExactlyTheEntriesRedactionChanges() throws {
    let entries = try Self.entries() + [HAREntry(request: PlantedSecrets.ordinary, response: .text("ok"))]
    let raw = try Cassette(entries: entries).encoded(redaction: .disabled)
    let flagged = Set(try CassetteLint.scan(raw, file: "planted.har").compactMap(\.entry))
    let changed = Set(entries.indices.filter { Redaction.default.redact(entries[$0]) != entries[$0] })
    #expect(flagged == changed)
    #expect(flagged == Set(PlantedSecrets.all.indices))
    #expect(try CassetteLint.scan(Cassette(entries: entries).encoded(), file: "redacted.har") == [])
  }

  @Test func eachNewKindIsNamedByLint() throws {
    let raw = try Cassette(entries: Self.entries()).encoded(redaction: .disabled)
    let kinds = Set(try CassetteLint.scan(raw, file: "p.har").map(\.kind.description))
    for kind in [
      "secret multipart field \"password\"", "secret XML field \"password\"", "Slack webhook", "SendGrid API key",
      "Twilio key", "Hugging Face token", "Shopify token", "DigitalOcean token", "Telegram bot token",
      "Azure storage key", "secret query parameter \"access_token\"", "secret query parameter \"id_token\"",
      "high-entropy value under \"X-Functions-Key\"", "high-entropy value under \"subscription_key\"",
      "high-entropy value under \"masterKey\"", "high-entropy value under \"AccessKey\"",
      "high-entropy value under \"upload_key\"", "high-entropy value under \"signing_key\"",
    ] {
      #expect(kinds.contains(kind), "lint names no \(kind) in \(kinds.sorted())")
    }
  }

  @Test func ordinaryIdsUnderKeyLikeNamesAreKept() throws {
    let entry = try HAREntry(request: PlantedSecrets.ordinary, response: .text("ok"))
    #expect(Redaction.default.redact(entry) == entry)
  }

  @Test func theJournalsHARShowsNoPlantedSecret() async throws {
    let backend = quietBackend()
    for planted in PlantedSecrets.all {
      backend.stub(.method(planted.request.method) && .url(planted.request.url.absoluteString), planted.response)
    }
    // The redirect to the `Location` is followed, and matches no stub: its report is redacted too.
    for planted in PlantedSecrets.all { _ = try? await backend.respond(to: planted.request.urlRequest) }
    #expect(backend.journal.filter { !$0.isMatched }.count == 1)
    let har = Self.text(try backend.journal.har().encoded(redaction: .disabled))
    #expect(PlantedSecrets.leaks(in: har) == [])
  }

  /// A backend whose one stub per planted request wants a header the request lacks: every request
  /// is a near miss, whose report shows that stub and the request.
  @Test func nearMissReportsShowNoPlantedSecret() async throws {
    let collected = Collected()
    let backend = collected.backend
    for planted in PlantedSecrets.all {
      backend.stub(
        .method(planted.request.method) && .url(planted.request.url.absoluteString)
          && .header("X-Api-Key", "sk-proj-Stub0Wanted1This2Key3Instead4"), .ok)
    }
    var errors: [String] = []
    for planted in PlantedSecrets.all {
      do {
        _ = try await backend.respond(to: planted.request.urlRequest)
      } catch {
        errors.append("\(error)")
      }
    }
    let reports = backend.journal.compactMap(\.unmatchedReport)
    #expect(reports.count == PlantedSecrets.all.count)
    #expect(collected.messages.count == PlantedSecrets.all.count)
    let everything = (reports + collected.messages + errors).joined(separator: "\n")
    #expect(PlantedSecrets.leaks(in: everything) == [])
    #expect(!everything.contains("Stub0Wanted1This2Key3Instead4"))
    // The journal's HAR of the same requests, the unmatched ones as errors.
    #expect(PlantedSecrets.leaks(in: Self.text(try backend.journal.har().encoded(redaction: .disabled))) == [])
  }

  @Test func aSecretHeaderShowsItsNameAndLengthAndThatTheValuesDiffer() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://api.example/me") && .header("Authorization", "Bearer good-Token-1234"), .ok)
    var request = URLRequest(url: URL(string: "https://api.example/me?access_token=qt-Token-9911#id_token=ft-9912")!)
    request.setValue("Bearer bad-Token-987654", forHTTPHeaderField: "Authorization")
    _ = try? await backend.respond(to: request)
    let report = try #require(backend.journal.first?.unmatchedReport)
    #expect(
      report.hasPrefix(
        "No stub matched GET https://api.example/me?access_token=REDACTED#id_token=REDACTED\nClosest stubs:\n"))
    #expect(
      report.contains(
        "✗ header Authorization expected <redacted: 22 chars>, got <redacted: 23 chars> (the values differ)"))
    #expect(report.contains("GET https://api.example/me, Authorization: <redacted: 22 chars>"))
    for secret in ["good-Token-1234", "bad-Token-987654", "qt-Token-9911", "ft-9912"] {
      #expect(!report.contains(secret), "the report shows \(secret):\n\(report)")
    }
  }

  @Test func aNearMissOnAJSONPasswordShowsThatTheBodyDiffers() async throws {
    let backend = quietBackend()
    backend.stub(.post("https://api.example/login") && .jsonBody(["user": "ann", "password": "right-Pass-77"]), .ok)
    var request = URLRequest(url: URL(string: "https://api.example/login")!)
    request.httpMethod = "POST"
    request.httpBody = Data(#"{"user": "ann", "password": "wrong-Pass-88"}"#.utf8)
    _ = try? await backend.respond(to: request)
    let report = try #require(backend.journal.first?.unmatchedReport)
    #expect(report.contains(#"  body: "{"password":"REDACTED","user":"ann"}""#), "\(report)")
    #expect(!report.contains("right-Pass-77") && !report.contains("wrong-Pass-88"), "\(report)")
  }

  @Test func theRequestLogLineShowsNoPlantedSecret() {
    for planted in PlantedSecrets.all {
      let line = Redaction.default.redact(line: "\(planted.request.method) \(planted.request.url.absoluteString) → 200")
      #expect(PlantedSecrets.leaks(in: line) == [], "\(line)")
    }
  }
}
