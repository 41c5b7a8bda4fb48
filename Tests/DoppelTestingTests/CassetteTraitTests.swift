@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import TestHTTPServer
import Testing

@testable import DoppelTesting

/// A cassette written before the tests are discovered, for a test that uses the real trait.
enum PrerecordedCassette {
  static let path: String = {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("doppel-trait-\(UUID().uuidString)/breeds.har")
    let cassette = Cassette(entries: [
      try! HAREntry(request: Request(url: BreedListModel.url), response: .json(Breed.all))
    ])
    try! cassette.save(to: url)
    return url.path
  }()
}

@Suite struct CassetteTraitTests {
  @Test(.doppel(cassette: PrerecordedCassette.path))
  func theTraitReplaysACassetteWithoutTheNetwork() async throws {
    let model = BreedListModel(session: Backend.current.session)
    try await model.load()
    #expect(model.state == .loaded(Breed.all))
  }

  @Test(.doppel(cassette: PrerecordedCassette.path, matching: .methodAndPath))
  func theTraitTakesAMatchingRule() async throws {
    var components = try #require(URLComponents(url: BreedListModel.url, resolvingAgainstBaseURL: false))
    components.host = "localhost"
    components.queryItems = [URLQueryItem(name: "ts", value: "1700000000")]
    let (data, response) = try await Backend.current.session.data(from: try #require(components.url))
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(try JSONDecoder().decode([Breed].self, from: data) == Breed.all)
  }

  @Test func theTraitCarriesTheMatchingRuleAndTheTimingsChoice() {
    let options = DoppelTrait.doppel(cassette: "feed", matching: .ignoringQueryItems(["ts"]), replayingTimings: true)
      .cassette
    #expect(options?.matching == .ignoringQueryItems(["ts"]))
    #expect(options?.replayingTimings == true)
    #expect(DoppelTrait.doppel(cassette: "feed").cassette?.replayingTimings == false)
  }

  /// A new, empty folder for one test's cassettes.
  static func folder() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-trait-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// `.doppel(cassette:…)` keeping its cassettes in `folder` and reading no environment.
  static func trait(
    _ name: String? = nil, record: RecordMode = .none, in folder: URL, environment: [String: String] = [:],
    _ configure: @escaping @Sendable (Backend) async throws -> Void = { _ in }
  ) -> DoppelTrait {
    var trait = DoppelTrait.doppel(cassette: name, record: record, configure)
    trait.cassette?.directory = folder
    trait.cassette?.environment = environment
    return trait
  }

  /// Runs `trait` around `body` as if on a test of its own, collecting what it reports.
  static func run(
    _ trait: DoppelTrait, issues: IssueLog, _ body: @Sendable () async throws -> Void
  ) async throws {
    try await DoppelTrait.$enclosing.withValue(nil) {
      try await trait.attachingNothing.withBackend(
        for: Test.current!, testCase: Test.Case.current, body, report: issues.record)
    }
  }

  static func counting() throws -> TestHTTPServer {
    let count = Locked(0)
    return try TestHTTPServer.start { request in
      let number = count.withLock { count -> Int in
        count += 1
        return count
      }
      return .text("\(request.method) \(request.target) #\(number)")
    }
  }

  @Test func theCassetteLivesNextToTheTestFileAndIsNamedAfterTheTest() throws {
    let test = try #require(Test.current)
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("__Cassettes__/CassetteTraitTests")
    func location(_ name: String?) -> String {
      CassetteOptions(name: name, record: .none, matching: .methodAndURL, redaction: .default).location(for: test).path
    }
    #expect(
      location(nil) == folder.appendingPathComponent("theCassetteLivesNextToTheTestFileAndIsNamedAfterTheTest.har").path
    )
    #expect(location("breeds") == folder.appendingPathComponent("breeds.har").path)
    #expect(location("cats/breeds.har") == folder.appendingPathComponent("cats/breeds.har").path)
    #expect(location("/tmp/elsewhere/breeds") == "/tmp/elsewhere/breeds.har")
  }

  @Test func onlyTheCassetteFormMakesACassette() {
    #expect(DoppelTrait.doppel.cassette == nil)
    #expect(DoppelTrait.doppel().cassette == nil)
    #expect(DoppelTrait.doppel { _ in }.cassette == nil)
    #expect(DoppelTrait.doppel(requireAllStubsUsed: true).cassette == nil)
    #expect(DoppelTrait.doppel(cassette: "breeds").cassette?.name == "breeds")
    #expect(DoppelTrait.doppel(record: .once).cassette?.name == nil)
    #expect(DoppelTrait.doppel(record: .once).cassette?.record == .once)
    #expect(DoppelTrait.doppel(cassette: nil).cassette?.record == RecordMode.none)
  }

  @Test func aMissingCassetteFailsTheTestWithTheCommandThatRecordsIt() async throws {
    let folder = Self.folder()
    let issues = IssueLog()
    let path = folder.appendingPathComponent("aMissingCassetteFailsTheTestWithTheCommandThatRecordsIt.har").path
    await #expect(
      throws: DoppelError(
        "The cassette aMissingCassetteFailsTheTestWithTheCommandThatRecordsIt.har does not exist at \(path), and the record mode is none. To record it, run: DOPPEL_RECORD=once swift test --filter aMissingCassetteFailsTheTestWithTheCommandThatRecordsIt"
      )
    ) {
      try await Self.run(Self.trait(in: folder), issues: issues) { Issue.record("the test ran") }
    }
  }

  @Test func recordsAroundATestThenReplays() async throws {
    let server = try Self.counting()
    defer { server.stop() }
    let folder = Self.folder()
    let address = "\(server.baseURL.absoluteString)/breeds"
    let issues = IssueLog()

    try await Self.run(Self.trait("breeds", record: .once, in: folder), issues: issues) {
      let text = try await Backend.current.session.text(address)
      #expect(text == "GET /breeds #1")
    }
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("breeds.har").path))
    try await Self.run(Self.trait("breeds", in: folder), issues: issues) {
      let text = try await Backend.current.session.text(address)
      #expect(text == "GET /breeds #1")
    }
    #expect(server.requests.count == 1)
    #expect(issues.messages.isEmpty)
  }

  @Test func aMissFailsTheTestWithTheCommandThatRecordsIt() async throws {
    let folder = Self.folder()
    try Cassette().save(to: folder.appendingPathComponent("empty.har"))
    let issues = IssueLog()
    try await Self.run(Self.trait("empty", in: folder), issues: issues) {
      #expect(await Backend.current.session.outcome("https://api.example.com/breeds") == "URLError -1008")
    }
    #expect(issues.messages.count == 1)
    #expect(
      issues.messages.first?.hasSuffix(
        "\nThe cassette empty.har (matching method and URL) does not hold this request. To record it, run: DOPPEL_RECORD=newEpisodes swift test --filter aMissFailsTheTestWithTheCommandThatRecordsIt"
      ) == true)
  }

  @Test func theTestsOwnStubsTakePrecedenceOverTheCassette() async throws {
    let folder = Self.folder()
    try Cassette(entries: [
      HAREntry(request: Request(url: BreedListModel.url), response: .json(Breed.all))
    ]).save(to: folder.appendingPathComponent("breeds.har"))
    let issues = IssueLog()
    let trait = Self.trait("breeds", in: folder) { $0.stub(.get("/breeds.json"), .status(500)) }
    try await Self.run(trait, issues: issues) {
      #expect(await Backend.current.session.outcome(BreedListModel.url.absoluteString) == "500")
    }
    #expect(issues.messages.isEmpty)
  }

  @Test func theEnvironmentChoosesTheModeForARun() async throws {
    let server = try Self.counting()
    defer { server.stop() }
    let folder = Self.folder()
    let issues = IssueLog()
    let trait = Self.trait(in: folder, environment: ["DOPPEL_RECORD": "all"])
    try await Self.run(trait, issues: issues) {
      let text = try await Backend.current.session.text("\(server.baseURL.absoluteString)/x")
      #expect(text == "GET /x #1")
    }
    let saved = try Cassette.load(
      from: folder.appendingPathComponent("theEnvironmentChoosesTheModeForARun.har"))
    #expect(saved.entries.map(\.response.content.text) == ["GET /x #1"])
    #expect(issues.messages.isEmpty)
  }

  @Test func whatWasRecordedIsSavedEvenWhenTheTestThrows() async throws {
    let server = try Self.counting()
    defer { server.stop() }
    let folder = Self.folder()
    struct Stop: Error {}
    await #expect(throws: Stop.self) {
      try await Self.run(Self.trait("partial", record: .once, in: folder), issues: IssueLog()) {
        _ = try await Backend.current.session.text("\(server.baseURL.absoluteString)/first")
        throw Stop()
      }
    }
    #expect(try Cassette.load(from: folder.appendingPathComponent("partial.har")).entries.count == 1)
  }
}
