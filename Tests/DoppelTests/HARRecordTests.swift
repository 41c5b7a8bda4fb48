import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import TestHTTPServer
import TestSupport
import Testing

/// Every record mode against a real server on 127.0.0.1.
@Suite struct HARRecordTests {
  /// A server whose answers say how many times their target was asked: `GET /a #2`.
  static func countingServer() throws -> TestHTTPServer {
    let counts = Locked<[String: Int]>([:])
    return try TestHTTPServer.start { request in
      let count = counts.withLock { counts -> Int in
        counts[request.target, default: 0] += 1
        return counts[request.target, default: 0]
      }
      let body = request.body.isEmpty ? "" : " " + request.bodyText
      return .text("\(request.method) \(request.target) #\(count)\(body)", headers: [("X-Count", "\(count)")])
    }
  }

  /// A new, empty folder for one test's cassettes.
  static func folder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-record-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  static let noEnvironment: [String: String] = [:]

  @Test func modeNoneNeedsTheCassette() throws {
    let url = Self.folder().appendingPathComponent("breeds.har")
    #expect(
      throws: DoppelError(
        "The cassette breeds.har does not exist at \(url.path), and the record mode is none. To record it, run: DOPPEL_RECORD=once swift test --filter fetchesBreeds"
      )
    ) {
      try quietBackend().insertCassette(at: url, testFilter: "fetchesBreeds", environment: Self.noEnvironment)
    }
  }

  @Test func modeOnceRecordsAMissingCassetteThenReplaysIt() async throws {
    let server = try Self.countingServer()
    defer { server.stop() }
    let url = Self.folder().appendingPathComponent("once.har")
    let base = server.baseURL.absoluteString

    let recorder = quietBackend()
    let inserted = try recorder.insertCassette(at: url, record: .once, environment: Self.noEnvironment)
    #expect(inserted.isRecording)
    #expect(try await recorder.send(.get, "\(base)/breeds?page=1").body == "GET /breeds?page=1 #1")
    #expect(
      try await recorder.send(
        .post, "\(base)/orders", headers: ["Content-Type": "application/json"], body: Data("{}".utf8)
      )
      .body == "POST /orders #1 {}")
    #expect(inserted.recorded.count == 2)
    try inserted.eject()
    // Ejected, nothing is recorded any more: an unmatched request fails, and the server never
    // sees it (it counts two requests below).
    #expect(await recorder.outcome(.get, "\(base)/after-eject").hasPrefix("URLError "))

    let saved = try Cassette.load(from: url)
    #expect(saved.entries.map(\.request.url) == ["\(base)/breeds?page=1", "\(base)/orders"])
    #expect(saved.entries.map(\.response.content.text) == ["GET /breeds?page=1 #1", "POST /orders #1 {}"])
    #expect(saved.entries[1].request.postData?.text == "{}")
    #expect(saved.entries[1].request.postData?.mimeType == "application/json")
    #expect(saved.entries[0].response.headers.first { $0.name == "X-Count" }?.value == "1")

    let player = quietBackend()
    let replaying = try player.insertCassette(at: url, record: .once, environment: Self.noEnvironment)
    #expect(!replaying.isRecording)
    #expect(try await player.send(.get, "\(base)/breeds?page=1").body == "GET /breeds?page=1 #1")
    try replaying.eject()
    #expect(server.requests.count == 2)
    #expect(try Cassette.load(from: url) == saved)
  }

  @Test(arguments: ["session", "memory"])
  func eachHopOfARedirectIsRecordedAndReplayed(door: String) async throws {
    let server = try TestHTTPServer.start { request in
      switch request.target {
      case "/old": .text("moved", status: 301, headers: [("Location", "/new")])
      case "/new": .text("the new place")
      default: .text("nothing here", status: 404)
      }
    }
    defer { server.stop() }
    let url = Self.folder().appendingPathComponent("redirect.har")
    let base = server.baseURL.absoluteString
    func get(_ backend: Backend, _ target: String) async throws -> (body: String, url: URL?) {
      if door == "session" {
        let (body, response) = try await backend.send(.get, target)
        return (body, response.url)
      }
      let (data, response) = try await backend.respond(to: URLRequest(url: URL(string: target)!))
      return (String(decoding: data, as: UTF8.self), response.url)
    }

    let recorder = quietBackend()
    let inserted = try recorder.insertCassette(at: url, record: .once, environment: Self.noEnvironment)
    let recorded = try await get(recorder, "\(base)/old")
    #expect(recorded.body == "the new place")
    #expect(recorded.url == URL(string: "\(base)/new"))
    #expect(recorder.requests.map(\.url.path) == ["/old", "/new"])
    #expect(recorder.journal.map { $0.response?.status } == [301, 200])
    try inserted.eject()
    #expect(server.requests.map(\.target) == ["/old", "/new"])

    let saved = try Cassette.load(from: url)
    #expect(saved.entries.map(\.request.url) == ["\(base)/old", "\(base)/new"])
    #expect(saved.entries.map(\.response.status) == [301, 200])
    #expect(saved.entries[0].response.headers.first { $0.name == "Location" }?.value == "/new")

    server.stop()
    let player = quietBackend()
    let replaying = try player.insertCassette(at: url, record: .none, environment: Self.noEnvironment)
    let replayed = try await get(player, "\(base)/old")
    #expect(replayed.body == "the new place")
    #expect(replayed.url == URL(string: "\(base)/new"))
    try replaying.eject()
  }

  @Test func aMissInModeNonePrintsTheCommandThatRecordsIt() async throws {
    let url = Self.folder().appendingPathComponent("known.har")
    try Cassette(entries: [
      HAREntry(request: Request(url: URL(string: "http://127.0.0.1:9/known")!), response: .text("recorded"))
    ]).save(to: url)
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let inserted = try backend.insertCassette(at: url, testFilter: "loadsBreeds()", environment: Self.noEnvironment)
    #expect(await backend.outcome(.get, "http://127.0.0.1:9/known") == "200 recorded")
    #expect(await backend.outcome(.get, "http://127.0.0.1:9/other") == "URLError -1008")
    try inserted.eject()
    let message = try #require(issues.all.first?.message)
    #expect(issues.all.count == 1)
    #expect(message.hasPrefix("No stub matched GET http://127.0.0.1:9/other\n"))
    #expect(message.contains("\"known.har entries[0]\" GET http://127.0.0.1:9/known"))
    #expect(
      message.hasSuffix(
        "\nThe cassette known.har (matching method and URL) does not hold this request. To record it, run: DOPPEL_RECORD=newEpisodes swift test --filter 'loadsBreeds()'"
      ))
    // After eject, the backend reports as before.
    _ = await backend.outcome(.get, "http://127.0.0.1:9/after")
    #expect(issues.all.last?.message.contains("does not hold this request") == false)
  }

  @Test func modeNewEpisodesReplaysHitsAndRecordsMisses() async throws {
    let server = try Self.countingServer()
    defer { server.stop() }
    let base = server.baseURL.absoluteString
    let url = Self.folder().appendingPathComponent("episodes.har")
    try Cassette(entries: [
      HAREntry(request: Request(url: URL(string: "\(base)/known")!), response: .text("recorded earlier"))
    ]).save(to: url)

    let backend = quietBackend()
    let inserted = try backend.insertCassette(at: url, record: .newEpisodes, environment: Self.noEnvironment)
    #expect(try await backend.send(.get, "\(base)/known").body == "recorded earlier")
    #expect(try await backend.send(.get, "\(base)/new").body == "GET /new #1")
    try inserted.eject()
    #expect(server.requests.map(\.target) == ["/new"])
    let saved = try Cassette.load(from: url)
    #expect(saved.entries.map(\.response.content.text) == ["recorded earlier", "GET /new #1"])
  }

  @Test func modeAllRecordsEverythingAgain() async throws {
    let server = try Self.countingServer()
    defer { server.stop() }
    let base = server.baseURL.absoluteString
    let url = Self.folder().appendingPathComponent("all.har")
    try Cassette(entries: [
      HAREntry(request: Request(url: URL(string: "\(base)/known")!), response: .text("stale"))
    ]).save(to: url)

    let backend = quietBackend()
    let inserted = try backend.insertCassette(at: url, record: .all, environment: Self.noEnvironment)
    #expect(try await backend.send(.get, "\(base)/known").body == "GET /known #1")
    try inserted.eject()
    #expect(try Cassette.load(from: url).entries.map(\.response.content.text) == ["GET /known #1"])

    // A second use of the file in the same process adds to that recording (a parameterized
    // test's arguments share their cassette).
    let again = quietBackend()
    let second = try again.insertCassette(at: url, record: .all, environment: Self.noEnvironment)
    #expect(try await again.send(.get, "\(base)/other").body == "GET /other #1")
    try second.eject()
    #expect(try Cassette.load(from: url).entries.map(\.response.content.text) == ["GET /known #1", "GET /other #1"])
  }

  @Test func theEnvironmentVariableWinsOverTheCode() async throws {
    let server = try Self.countingServer()
    defer { server.stop() }
    let url = Self.folder().appendingPathComponent("env.har")
    let backend = quietBackend()
    let inserted = try backend.insertCassette(at: url, record: .none, environment: ["DOPPEL_RECORD": "new_episodes"])
    #expect(inserted.mode == .newEpisodes)
    #expect(try await backend.send(.get, "\(server.baseURL.absoluteString)/x").body == "GET /x #1")
    try inserted.eject()
    #expect(try Cassette.load(from: url).entries.count == 1)
    #expect(
      throws: DoppelError(
        "DOPPEL_RECORD=sometimes is not a record mode. Use none, once, newEpisodes or all, or unset DOPPEL_RECORD.")
    ) {
      try quietBackend().insertCassette(at: url, environment: ["DOPPEL_RECORD": "sometimes"])
    }
  }

  @Test func aJournalLimitThatDropsRecordedRequestsIsAnErrorNotASilentLoss() async throws {
    let server = try Self.countingServer()
    defer { server.stop() }
    let url = Self.folder().appendingPathComponent("limited.har")
    let base = server.baseURL.absoluteString
    let recorder = Backend(issueReporter: .ignore, journalLimit: 2)
    let inserted = try recorder.insertCassette(at: url, record: .all, environment: Self.noEnvironment)
    for page in 1...3 { _ = try await recorder.send(.get, "\(base)/breeds?page=\(page)") }
    #expect(
      throws: DoppelError(
        "limited.har: 1 of the requests sent while recording were dropped from the backend's journal (journalLimit: 2) before they could be saved. Record with a backend that has no journal limit."
      )
    ) { try inserted.eject() }
    // What was kept is saved.
    #expect(
      try Cassette.load(from: url).entries.map(\.request.url) == ["\(base)/breeds?page=2", "\(base)/breeds?page=3"])
  }

  @Test func recordModesHaveNames() throws {
    #expect([RecordMode.none, .once, .newEpisodes, .all].map(\.description) == ["none", "once", "newEpisodes", "all"])
    #expect(RecordMode(name: "NewEpisodes") == .newEpisodes)
    #expect(RecordMode(name: "new-episodes") == .newEpisodes)
    #expect(RecordMode(name: "ALL") == .all)
    #expect(RecordMode(name: "sometimes") == nil)
    #expect(try RecordMode.resolved(.once, environment: ["DOPPEL_RECORD": ""]) == .once)
    #expect(try RecordMode.resolved(.once, environment: ["DOPPEL_RECORD": "none"]) == .none)
  }

  @Test func identicalRequestsAreRecordedAndReplayedInOrder() async throws {
    let server = try Self.countingServer()
    defer { server.stop() }
    let url = Self.folder().appendingPathComponent("sequence.har")
    let poll = "\(server.baseURL.absoluteString)/job/7"

    let recorder = quietBackend()
    let recording = try recorder.insertCassette(at: url, record: .once, environment: Self.noEnvironment)
    for _ in 0..<3 { _ = try await recorder.send(.get, poll) }
    try recording.eject()

    let player = quietBackend()
    let replaying = try player.insertCassette(at: url, environment: Self.noEnvironment)
    var answers: [String] = []
    for _ in 0..<4 { answers.append(try await player.send(.get, poll).body) }
    try replaying.eject()
    #expect(answers == ["GET /job/7 #1", "GET /job/7 #2", "GET /job/7 #3", "GET /job/7 #3"])
    #expect(server.requests.count == 3)
  }

  @Test func aRequestThatFailedIsRecordedAndReplaysAsTheSameError() async throws {
    // Port 1 on loopback: nothing listens there (a server started and stopped here would leave a
    // port another test's server may take in the meantime).
    let base = "http://127.0.0.1:1"
    let url = Self.folder().appendingPathComponent("down.har")

    let recorder = quietBackend()
    let recording = try recorder.insertCassette(at: url, record: .once, environment: Self.noEnvironment)
    await expectURLError(.cannotConnectToHost) { _ = try await recorder.send(.get, "\(base)/x") }
    try recording.eject()
    let entry = try #require(try Cassette.load(from: url).entries.first)
    #expect(entry.response.status == 0)
    #expect(entry.response.extra["_error"] == "cannotConnectToHost")

    let player = quietBackend()
    let replaying = try player.insertCassette(at: url, environment: Self.noEnvironment)
    await expectURLError(.cannotConnectToHost) { _ = try await player.send(.get, "\(base)/x") }
    try replaying.eject()
  }

  @Test func aGzipResponseIsRecordedDecodedAndReplayedWithoutItsEncoding() async throws {
    let text = String(repeating: "{\"breed\":\"Abyssinian\"}", count: 20)
    let server = try TestHTTPServer.start { _ in
      TestHTTPServer.Response(
        headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
        body: Gzip.stored(Data(text.utf8)))
    }
    defer { server.stop() }
    let url = Self.folder().appendingPathComponent("gzip.har")
    let address = "\(server.baseURL.absoluteString)/breeds"

    let recorder = quietBackend()
    let recording = try recorder.insertCassette(at: url, record: .once, environment: Self.noEnvironment)
    #expect(try await recorder.send(.get, address).body == text)
    try recording.eject()
    let entry = try #require(try Cassette.load(from: url).entries.first)
    #expect(entry.response.content.text == text)
    #expect(entry.response.content.size == text.utf8.count)
    #expect(entry.response.headers.contains { $0.name.lowercased() == "content-encoding" && $0.value == "gzip" })

    let player = quietBackend()
    let replaying = try player.insertCassette(at: url, environment: Self.noEnvironment)
    let (body, response) = try await player.send(.get, address)
    try replaying.eject()
    #expect(body == text)
    #expect(response.value(forHTTPHeaderField: "Content-Encoding") == nil)
    #expect(response.value(forHTTPHeaderField: "Content-Length") == String(text.utf8.count))
  }
}

/// gzip framing around stored (uncompressed) deflate blocks: enough to serve a gzip response
/// without a compression library.
enum Gzip {
  static func stored(_ data: Data) -> Data {
    var out = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
    var offset = 0
    repeat {
      let count = min(65_535, data.count - offset)
      let final: UInt8 = offset + count == data.count ? 1 : 0
      out.append(final)
      out.append(contentsOf: [
        UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF),
      ])
      out.append(data[offset..<offset + count])
      offset += count
    } while offset < data.count
    out.append(contentsOf: littleEndian(crc32(data)))
    out.append(contentsOf: littleEndian(UInt32(truncatingIfNeeded: data.count)))
    return out
  }

  private static func littleEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
  }

  private static func crc32(_ data: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}
