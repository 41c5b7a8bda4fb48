import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Backend {
  /// Replays the cassette at `url` and, when `record` says so, records the requests it does not
  /// hold from the real server: the whole record-and-replay cycle in one call. Call
  /// ``InsertedCassette/eject()`` when done, which saves what was recorded.
  ///
  /// ```swift
  /// let cassette = try backend.insertCassette(at: fixtures.appending(path: "breeds.har"), record: .once)
  /// defer { try? cassette.eject() }
  /// ```
  ///
  /// The `.doppel(cassette:)` test trait in `DoppelTesting` does this around a test.
  ///
  /// What happens by mode (`DOPPEL_RECORD` in `environment`, when set, wins over `record`):
  /// - ``RecordMode/none``: replay. The cassette must exist. A request it does not hold fails;
  ///   the issue reported for it ends with the command that records it.
  /// - ``RecordMode/once``: replay when the file exists, otherwise record every request.
  /// - ``RecordMode/newEpisodes``: replay what the cassette holds; record the rest.
  /// - ``RecordMode/all``: record every request; the old recording is replaced.
  ///
  /// Recording sets ``unmatchedPolicy`` to ``UnmatchedPolicy/passthrough``: requests no stub
  /// matches go to the real server through a plain `URLSession`, and `eject()` appends them to
  /// the cassette, redacted, in the order they were sent. Several inserts of the same file in
  /// one process (the arguments of a parameterized test) share one recording.
  ///
  /// - Parameters:
  ///   - url: the cassette file (`.har`).
  ///   - record: the mode, unless `DOPPEL_RECORD` is set.
  ///   - matching: what a request must share with a recorded one.
  ///   - replayingTimings: whether replayed responses take as long as they did when recorded (see
  ///     ``Backend/replay(_:matching:replayingTimings:name:fileID:filePath:line:column:)``).
  ///   - redaction: the secrets replaced before anything is saved.
  ///   - testFilter: the name `swift test --filter` takes to run the test using the cassette,
  ///     for the command that messages print.
  ///   - environment: where `DOPPEL_RECORD` is read.
  ///   - fileID: the file that inserts the cassette, for diagnostics; leave the default.
  ///   - filePath: the full path of that file, for the test failure's location; leave the default.
  ///   - line: the line of the call; leave the default.
  ///   - column: the column of the call; leave the default.
  /// - Throws: ``DoppelError`` when `DOPPEL_RECORD` is not a mode, when the cassette does not exist
  ///   in mode `none` (the message prints the command that records it), or when it cannot be read.
  public func insertCassette(
    at url: URL, record: RecordMode = .none, matching: Cassette.Matching = .methodAndURL,
    replayingTimings: Bool = false, redaction: Redaction = .default, testFilter: String? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) throws -> InsertedCassette {
    let mode = try RecordMode.resolved(record, environment: environment)
    let shelf = try CassetteShelf.shared.take(url, mode: mode)
    let command = { (mode: RecordMode) in
      "\(RecordMode.environmentVariable)=\(mode) swift test" + (testFilter.map { " --filter \(Self.quoted($0))" } ?? "")
    }
    let name = url.lastPathComponent
    if mode == .none && !shelf.exists {
      throw DoppelError.cassette(
        "The cassette \(name) does not exist at \(url.path), and the record mode is none. To record it, run: \(command(.once))"
      )
    }
    let recording = mode == .all || mode == .newEpisodes || (mode == .once && !shelf.exists)
    // Replay unless every request is being recorded.
    if !recording || mode == .newEpisodes {
      try replay(
        shelf.cassette, matching: matching, replayingTimings: replayingTimings, name: name, fileID: fileID,
        filePath: filePath, line: line, column: column)
    }
    let previousPolicy = unmatchedPolicy
    let previousReporter = issueReporter
    if recording {
      unmatchedPolicy = .passthrough
    } else {
      // Point each miss at the command that records it.
      let hint =
        "\nThe cassette \(name) (matching \(matching)) does not hold this request. To record it, run: \(command(.newEpisodes))"
      issueReporter = IssueReporter { issue in
        if issue.isUnmatchedRequest {
          previousReporter.report(issue.with(message: issue.message + hint))
        } else {
          previousReporter.report(issue)
        }
      }
    }
    return InsertedCassette(
      url: url, mode: mode, isRecording: recording, redaction: redaction, backend: self,
      journalStart: journalAppended, restore: (previousPolicy, previousReporter))
  }

  private static func quoted(_ filter: String) -> String {
    let plain = filter.allSatisfy { $0.isLetter || $0.isNumber || "_./-".contains($0) }
    return plain ? filter : "'" + filter.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}

/// A cassette in use by a backend: what ``Backend/insertCassette(at:record:matching:replayingTimings:redaction:testFilter:environment:fileID:filePath:line:column:)``
/// returns. ``eject()`` saves what was recorded.
public final class InsertedCassette: Sendable {
  /// The cassette file.
  public let url: URL
  /// The mode in effect, after `DOPPEL_RECORD`.
  public let mode: RecordMode
  /// Whether requests the cassette does not hold go to the real server and are recorded.
  public let isRecording: Bool
  private let redaction: Redaction
  private let backend: Backend
  private let journalStart: Int
  private let restore: Locked<Restore?>

  private struct Restore {
    let policy: UnmatchedPolicy
    let reporter: IssueReporter
  }

  init(
    url: URL, mode: RecordMode, isRecording: Bool, redaction: Redaction, backend: Backend, journalStart: Int,
    restore: (UnmatchedPolicy, IssueReporter)
  ) {
    self.url = url
    self.mode = mode
    self.isRecording = isRecording
    self.redaction = redaction
    self.backend = backend
    self.journalStart = journalStart
    self.restore = Locked(Restore(policy: restore.0, reporter: restore.1))
  }

  /// The exchanges recorded so far by this insert, redacted, in the order the requests were sent.
  /// Requests still waiting for their answer are not included.
  public var recorded: [HAREntry] {
    redaction.redact(Cassette(entries: unredacted)).entries
  }

  /// The exchanges recorded so far, as they were: kept in memory only.
  private var unredacted: [HAREntry] {
    guard isRecording else { return [] }
    let started = Date()
    return backend.journal(since: journalStart).entries.compactMap { entry -> HAREntry? in
      guard !entry.isMatched else { return nil }
      if let response = entry.response {
        return try? HAREntry(request: entry.request, response: response, startedAt: started)
      }
      if let error = entry.error { return HAREntry(request: entry.request, error: error) }
      return nil
    }
  }

  /// Saves what was recorded (redacted) and gives the backend back its unmatched policy and issue
  /// reporter. Calling it again does nothing.
  ///
  /// In mode `once` (recording) and `all` the file is written even when nothing was recorded, so
  /// the next run replays; in `newEpisodes` only when something new was recorded.
  ///
  /// Another process may record into the same file at the same time (parallel test processes, or
  /// a test and `doppel record`): the file is locked while it is written (`<file>.har.lock`, removed
  /// afterwards), read again when it changed, and written with every entry it holds plus the new
  /// ones, so no one's recording is lost. Each recorder's entries keep their order; recorders'
  /// batches follow in the order they were saved.
  ///
  /// - Throws: ``DoppelError`` when the cassette cannot be written, or when the backend's
  ///   ``Backend/journalLimit`` dropped requests before they could be saved (what was kept is
  ///   saved first).
  public func eject() throws {
    guard
      let previous = restore.withLock({ state -> Restore? in
        defer { state = nil }
        return state
      })
    else { return }
    let entries = unredacted
    backend.unmatchedPolicy = previous.policy
    backend.issueReporter = previous.reporter
    guard isRecording else { return }
    try CassetteShelf.shared.record(entries, into: url, mode: mode, redaction: redaction)
    let lost = backend.journal(since: journalStart).dropped
    if lost > 0 {
      throw DoppelError.cassette(
        "\(url.lastPathComponent): \(lost) of the requests sent while recording were dropped from the backend's journal (journalLimit: \(backend.journalLimit ?? 0)) before they could be saved. Record with a backend that has no journal limit."
      )
    }
  }
}

/// The cassettes in use in this process, by file, so that several tests (or the arguments of one
/// parameterized test) using the same file share one recording instead of overwriting each other.
final class CassetteShelf: Sendable {
  static let shared = CassetteShelf()

  struct Slot: Sendable {
    /// Whether the file existed when the process first used it.
    var exists: Bool
    /// What the file held then (empty in mode `all`), and since the last save what it holds.
    var cassette: Cassette
    /// Writes what this process records into the file, merged with what others write.
    let writer: CassetteWriter
  }

  private let slots = Locked<[String: Slot]>([:])

  /// The cassette at `url` as this process knows it: read from disk on first use.
  func take(_ url: URL, mode: RecordMode) throws -> Slot {
    let key = url.standardizedFileURL.path
    if let slot = slots.withLock({ $0[key] }) { return slot }
    let exists = FileManager.default.fileExists(atPath: key)
    var slot = Slot(
      exists: exists, cassette: Cassette(),
      writer: CassetteWriter(url: URL(fileURLWithPath: key), replacing: mode == .all))
    if exists && mode != .all { slot.cassette = try Cassette.load(from: url) }
    return slots.withLock { slots in
      if let existing = slots[key] { return existing }
      slots[key] = slot
      return slot
    }
  }

  /// Adds `entries` (unredacted) to what this process recorded into `url`, and writes the file.
  func record(_ entries: [HAREntry], into url: URL, mode: RecordMode, redaction: Redaction) throws {
    let key = url.standardizedFileURL.path
    try slots.withLock { slots in
      var slot =
        slots[key]
        ?? Slot(
          exists: false, cassette: Cassette(), writer: CassetteWriter(url: URL(fileURLWithPath: key), replacing: false))
      if entries.isEmpty && mode == .newEpisodes && slot.exists { return }
      slot.cassette = try slot.writer.record(entries, redaction: redaction)
      slot.exists = true
      slots[key] = slot
    }
  }
}
