import Doppel
import Foundation
import TestSupport
import Testing

/// The journal as HAR: what a test saw, to open in developer tools or replay.
struct JournalHARTests {
  @Test func aJournalExportedAsHARReplaysWithTheSameAnswers() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://api.example.com/breeds.json"), .json(["Abyssinian", "Bengal"]))
    backend.stub(.post("https://api.example.com/orders"), .text("ordered", status: 201))
    backend.stub(.get("https://api.example.com/down"), .error(URLError(.timedOut)))
    let urls = [
      (HTTPMethod.get, "https://api.example.com/breeds.json"), (.post, "https://api.example.com/orders"),
      (.get, "https://api.example.com/down"), (.get, "https://api.example.com/missing"),
    ]
    var before: [String] = []
    for (method, url) in urls { before.append(await backend.outcome(method, url, body: method == .post ? "two" : nil)) }
    #expect(
      before == ["200 [\"Abyssinian\",\"Bengal\"]", "201 ordered", "URLError -1001", "URLError -1008"])

    let cassette = try backend.journal.har()
    #expect(cassette.entries.map(\.response.status) == [200, 201, 0, 0])
    #expect(cassette.entries.map { $0.response.extra["_error"] } == [nil, nil, "timedOut", "resourceUnavailable"])
    #expect(cassette.entries[1].request.postData?.text == "two")

    let player = quietBackend()
    try player.replay(cassette)
    var after: [String] = []
    for (method, url) in urls { after.append(await player.outcome(method, url, body: method == .post ? "two" : nil)) }
    #expect(after == before)
  }

  @Test func secretsAreRedactedAndOmittedBodiesSaySo() async throws {
    let backend = quietBackend()
    backend.journalBodyLimit = 10
    backend.stub(.post("https://api.example.com/upload"), .text("stored"))
    _ = try await backend.send(
      .post, "https://api.example.com/upload", headers: ["Authorization": "Bearer s3cr3t-t0ken-value"],
      body: Data(String(repeating: "x", count: 20).utf8))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-journal-har-\(UUID())")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("traffic.har")
    try backend.journal.saveHAR(to: file)
    let saved = try String(contentsOf: file, encoding: .utf8)
    #expect(!saved.contains("s3cr3t"))
    let entry = try #require(try Cassette.load(from: file).entries.first)
    #expect(entry.request.headers.first { $0.name == "Authorization" }?.value == Redaction.marker)
    #expect(
      entry.extra["comment"]
        == "request body not kept by the journal: 20 bytes, SHA-256 d4fc1db665446507dc51b0c9392dd9649291581bfe1b48e241b2b08032b3b647"
    )
  }
}
