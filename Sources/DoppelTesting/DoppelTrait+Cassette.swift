#if canImport(Testing)
  import Doppel
  import Foundation
  import Testing

  /// What `.doppel(cassette:record:matching:replayingTimings:redaction:_:)` asks of a test's backend.
  struct CassetteOptions: Sendable {
    var name: String?
    var record: RecordMode
    var matching: Cassette.Matching
    var replayingTimings = false
    var redaction: Redaction
    /// Where cassettes named after tests live instead of next to the test file (for Doppel's
    /// own tests).
    var directory: URL?
    /// Where `DOPPEL_RECORD` is read instead of the process environment (for Doppel's own tests).
    var environment: [String: String]?

    /// The cassette's file: `name` when it is an absolute path, otherwise
    /// `<folder of the test file>/__Cassettes__/<test file name>/<name or test name>.har`.
    func location(for test: Test) -> URL {
      var file = name ?? CassetteOptions.testName(test)
      if !file.hasSuffix(".har") { file += ".har" }
      if file.hasPrefix("/") { return URL(fileURLWithPath: file) }
      let source = URL(fileURLWithPath: test.sourceLocation.filePath)
      let folder =
        directory
        ?? source.deletingLastPathComponent()
        .appendingPathComponent("__Cassettes__", isDirectory: true)
        .appendingPathComponent(source.deletingPathExtension().lastPathComponent, isDirectory: true)
      return folder.appendingPathComponent(file)
    }

    /// The test function's name without its argument labels: `fetchesBreeds`.
    static func testName(_ test: Test) -> String {
      String(test.name.prefix { $0 != "(" })
    }
  }

  extension DoppelTrait {
    /// Runs `body` with the trait's cassette inserted in `backend`, then ejects it, saving what was
    /// recorded. Without a cassette, just runs `body`.
    func withCassette(
      _ backend: Backend, for test: Test, _ body: @Sendable () async throws -> Void
    ) async throws {
      guard let options = cassette else { return try await body() }
      let location = test.sourceLocation
      let inserted = try backend.insertCassette(
        at: options.location(for: test), record: options.record, matching: options.matching,
        replayingTimings: options.replayingTimings, redaction: options.redaction,
        testFilter: CassetteOptions.testName(test),
        environment: options.environment ?? ProcessInfo.processInfo.environment,
        fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
      do {
        try await body()
      } catch {
        // The test's own failure comes first; still save what was recorded.
        do {
          try inserted.eject()
        } catch let ejectError {
          reportIssue("\(ejectError)", at: nil)
        }
        throw error
      }
      try inserted.eject()
    }
  }

  extension Trait where Self == DoppelTrait {
    /// Gives each test its own `Backend` that replays a recorded cassette, and records the
    /// requests the cassette does not hold when `record` (or `DOPPEL_RECORD`) says so.
    ///
    /// ```swift
    /// @Test(.doppel(cassette: "breeds"))
    /// func fetchesBreeds() async throws {
    ///   let model = BreedListModel(session: Backend.current.session)
    ///   try await model.load()
    ///   #expect(model.breeds.count == 67)
    /// }
    /// ```
    ///
    /// The cassette is the HAR file `__Cassettes__/<test file name>/<cassette>.har` in the test
    /// file's folder; with `cassette` `nil` (`.doppel(record: .once)`) it is named after the test
    /// function. An absolute path is used as is. Record one with
    /// `DOPPEL_RECORD=once swift test --filter fetchesBreeds`, which the failure of a missing
    /// cassette prints. When the test ends, what was recorded is saved, redacted.
    ///
    /// Stubs declared by `configure` take precedence over the cassette's, so a test can replay a
    /// recording and still make one endpoint fail.
    ///
    /// - Parameters:
    ///   - cassette: the cassette's name (or absolute path); `nil` names it after the test.
    ///   - record: when to record (see `RecordMode`); `DOPPEL_RECORD`, when set, wins.
    ///   - matching: what a request must share with a recorded one, such as `.methodAndPath` or
    ///     `.ignoringQueryItems(["ts"])` (see `Cassette.Matching`).
    ///   - replayingTimings: whether replayed responses take as long as they did when recorded, on
    ///     the backend's clock.
    ///   - redaction: the secrets replaced before the cassette is saved.
    ///   - configure: declares more stubs; it may also set the backend's other properties.
    public static func doppel(
      cassette: String? = nil, record: RecordMode = .none, matching: Cassette.Matching = .methodAndURL,
      replayingTimings: Bool = false, redaction: Redaction = .default,
      _ configure: @escaping @Sendable (Backend) async throws -> Void = { _ in }
    ) -> Self {
      var trait = DoppelTrait(requireAllStubsUsed: nil, unmatched: nil, configure: configure)
      trait.cassette = CassetteOptions(
        name: cassette, record: record, matching: matching, replayingTimings: replayingTimings, redaction: redaction)
      return trait
    }
  }
#endif
