#if Server
  import Doppel
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  /// The journal's answered entries as `GET requests` describes them, redacted, kept by entry
  /// number: redacting an entry (its URL, headers, body and near-miss report) costs a hundred times
  /// more than reading it, and the dashboard reads the same newest entries again at each filter and
  /// each page load, and every kept entry at each search for a text.
  struct JournalDescriptions {
    /// The most descriptions kept: 20,000 (twice the journal's default limit). Past it, those of
    /// entries the journal dropped go; when none did, all go.
    static let capacity = 20_000

    /// A description, with what tells its entry from another given the same number after the
    /// journal was cleared: when it was received, its method and its URL.
    struct Kept {
      var receivedAt: Date
      var method: String
      var url: URL
      var description: JSONValue
    }

    var kept: [Int: Kept] = [:]

    /// The description of entry `index` when it is kept and is that of `entry`.
    func description(of entry: JournalEntry, index: Int) -> JSONValue? {
      guard let found = kept[index], found.receivedAt == entry.receivedAt,
        found.method == entry.request.method.rawValue, found.url == entry.request.url
      else { return nil }
      return found.description
    }

    /// Keeps `description` as that of `entry`, entry `index`; `kept` is the number of the oldest
    /// entry the journal keeps (the ones below it are let go first when the cache is full).
    mutating func keep(_ description: JSONValue, of entry: JournalEntry, index: Int, oldestKept: Int) {
      if kept.count >= Self.capacity, kept[index] == nil {
        kept = kept.filter { $0.key >= oldestKept }
        if kept.count >= Self.capacity { kept.removeAll(keepingCapacity: true) }
      }
      kept[index] = Kept(
        receivedAt: entry.receivedAt, method: entry.request.method.rawValue, url: entry.request.url,
        description: description)
    }
  }

  /// The pass of ``AdminController/describeAhead(_:then:)`` under way, if any.
  struct DescribingAhead {
    var running = false
    /// What to call when the pass under way ends.
    var waiting: [@Sendable () -> Void] = []
  }

  extension AdminController {
    /// Describes the journal's newest entries (as many as one text search looks at,
    /// ``requestTextScan``) that are not described yet, newest first, on a thread of its own: the
    /// dashboard's next filter or search then reads kept descriptions instead of redacting on the
    /// server's event loop, where its time would hold up the stubs' answers.
    ///
    /// Called when the dashboard reads its list (`GET requests?last=`). One pass at a time; a call
    /// during a pass waits for it. `then` is called when the pass ends. A pass starts only while
    /// the controller and the backend exist, and once started it runs to its end (at most
    /// ``requestTextScan`` entries, a few seconds) even if the server stops meanwhile.
    func describeAhead(_ backend: Backend, then: (@Sendable () -> Void)? = nil) {
      let starts = describingAhead.withLock { ahead in
        if let then { ahead.waiting.append(then) }
        if ahead.running { return false }
        ahead.running = true
        return true
      }
      guard starts else { return }
      DispatchQueue.global(qos: .utility).async { [weak self, weak backend] in
        self?.describeNewest(backend)
        let waiting = self?.describingAhead.withLock { ahead in
          ahead.running = false
          defer { ahead.waiting = [] }
          return ahead.waiting
        }
        for call in waiting ?? [] { call() }
      }
    }

    /// The pass of ``describeAhead(_:then:)``: a window of the journal at a time, newest first.
    private func describeNewest(_ backend: Backend?) {
      guard let backend else { return }
      let oldestKept = backend.droppedJournalEntries
      let appended = backend.journalAppended
      let start = max(oldestKept, appended - Self.requestTextScan)
      var end = appended
      while end > start {
        let from = max(start, end - Self.requestWindow)
        let window = backend.journal(since: from, maximum: end - from)
        guard !window.entries.isEmpty else { return }
        for (offset, entry) in window.entries.enumerated().reversed() {
          _ = describeForList(entry, index: window.first + offset, oldestKept: oldestKept)
        }
        end = from
      }
    }

    /// Entry `index` as the journal's list shows it (``describe(_:index:unmatchedStatus:redaction:)``,
    /// redacted as the admin API's journal is), described once when it has been answered.
    func describeForList(_ entry: JournalEntry, index: Int, oldestKept: Int = 0) -> JSONValue {
      if let known = descriptions.withLock({ $0.description(of: entry, index: index) }) { return known }
      let described = Self.describe(
        entry, index: index, unmatchedStatus: unmatchedStatus, redaction: settings.journalRedaction ?? .default)
      // A request still being answered gets its status and maybe an error later.
      if entry.response != nil || entry.error != nil {
        descriptions.withLock { $0.keep(described, of: entry, index: index, oldestKept: oldestKept) }
      }
      return described
    }
  }
#endif
