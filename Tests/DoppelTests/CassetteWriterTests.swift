import Doppel
import Foundation
import TestSupport
import Testing

/// Several recorders writing one cassette: each `CassetteWriter` stands for a process of its own
/// (the two-process case is in DoppelCLITests, with `doppel record`).
@Suite struct CassetteWriterTests {
  static func entry(_ path: String) throws -> HAREntry {
    try HAREntry(
      request: Request(url: URL(string: "https://api.example.com\(path)")!), response: .text("answer for \(path)"),
      startedAt: Date(timeIntervalSince1970: 1_700_000_000))
  }

  static func paths(_ url: URL) throws -> [String] {
    try Cassette.load(from: url).entries.compactMap { URL(string: $0.request.url)?.path }
  }

  static func leftovers(_ url: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).sorted()
  }

  @Test func twoWritersIntoOneMissingFileKeepEveryEntryInTheOrderTheySaved() throws {
    let url = HARRecordTests.folder().appendingPathComponent("shared.har")
    let first = CassetteWriter(url: url, replacing: false)
    let second = CassetteWriter(url: url, replacing: false)
    try first.record([Self.entry("/a1"), Self.entry("/a2")], redaction: .default)
    try second.record([Self.entry("/b1")], redaction: .default)
    try first.record([Self.entry("/a3")], redaction: .default)
    let final = try second.record([Self.entry("/b2")], redaction: .default)
    #expect(try Self.paths(url) == ["/a1", "/a2", "/b1", "/a3", "/b2"])
    #expect(final == (try Cassette.load(from: url)))
    // The lock file is gone.
    #expect(try Self.leftovers(url) == ["shared.har"])
  }

  @Test func concurrentWritersLoseNothing() async throws {
    let url = HARRecordTests.folder().appendingPathComponent("busy.har")
    let writers = (0..<4).map { _ in CassetteWriter(url: url, replacing: false) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (number, writer) in writers.enumerated() {
        group.addTask {
          for batch in 0..<10 {
            try writer.record([Self.entry("/w\(number)/\(batch)")], redaction: .default)
          }
        }
      }
      try await group.waitForAll()
    }
    let paths = try Self.paths(url)
    #expect(paths.count == 40)
    for number in 0..<4 {
      // Each writer's entries in its own order.
      #expect(paths.filter { $0.hasPrefix("/w\(number)/") } == (0..<10).map { "/w\(number)/\($0)" })
    }
    #expect(try Self.leftovers(url) == ["busy.har"])
  }

  @Test func aReplacingWriterDropsTheOldRecordingButNotWhatOthersWroteSince() throws {
    let url = HARRecordTests.folder().appendingPathComponent("again.har")
    try Cassette(entries: [Self.entry("/old1"), Self.entry("/old2")]).save(to: url)
    let replacing = CassetteWriter(url: url, replacing: true)
    let other = CassetteWriter(url: url, replacing: false)
    try other.record([Self.entry("/other")], redaction: .default)
    try replacing.record([Self.entry("/new")], redaction: .default)
    #expect(try Self.paths(url) == ["/other", "/new"])

    // Untouched since it began, the file is replaced whole, even when it was not a cassette.
    try Data("not a cassette".utf8).write(to: url)
    let again = CassetteWriter(url: url, replacing: true)
    try again.record([], redaction: .default)
    #expect(try Self.paths(url) == [])
  }

  @Test func aWriterPutsBackItsEntriesWhenAnotherReplacedThem() throws {
    let url = HARRecordTests.folder().appendingPathComponent("back.har")
    let early = CassetteWriter(url: url, replacing: true)
    try early.record([Self.entry("/early")], redaction: .default)
    // A second recording that replaces the file starts now (as a second `doppel record` would).
    let late = CassetteWriter(url: url, replacing: true)
    try late.record([Self.entry("/late")], redaction: .default)
    #expect(try Self.paths(url) == ["/late"])
    try early.record([Self.entry("/early2")], redaction: .default)
    #expect(try Self.paths(url) == ["/late", "/early", "/early2"])
    try late.record([], redaction: .default)
    #expect(try Self.paths(url) == ["/late", "/early", "/early2"])
  }

  @Test func aSecretFoundLaterIsRemovedFromEntriesWrittenEarlier() throws {
    let url = HARRecordTests.folder().appendingPathComponent("later.har")
    let writer = CassetteWriter(url: url, replacing: false)
    let other = CassetteWriter(url: url, replacing: false)
    try writer.record(
      [try HAREntry(request: Request(url: URL(string: "https://a.com/id")!), response: .text("id-Token-0042"))],
      redaction: .default)
    try other.record([Self.entry("/other")], redaction: .default)
    // Only now does the value turn out to be a secret.
    try writer.record(
      [try HAREntry(request: Request(url: URL(string: "https://a.com/use?token=id-Token-0042")!), response: .ok)],
      redaction: .default)
    let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    #expect(!text.contains("id-Token-0042"))
    let entries = try Cassette.load(from: url).entries
    #expect(
      entries.map(\.request.url) == [
        "https://a.com/id", "https://api.example.com/other", "https://a.com/use?token=REDACTED",
      ])
    #expect(entries[0].response.content.text == "REDACTED")
  }

  @Test func twoInsertsRecordingInOneProcessShareTheFile() async throws {
    let server = try HARRecordTests.countingServer()
    defer { server.stop() }
    let base = server.baseURL.absoluteString
    let url = HARRecordTests.folder().appendingPathComponent("inserts.har")
    let first = quietBackend()
    let second = quietBackend()
    let one = try first.insertCassette(at: url, record: .once, environment: [:])
    let two = try second.insertCassette(at: url, record: .once, environment: [:])
    _ = try await first.send(.get, "\(base)/one")
    _ = try await second.send(.get, "\(base)/two")
    try two.eject()
    try one.eject()
    #expect(try Self.paths(url) == ["/two", "/one"])
  }
}
