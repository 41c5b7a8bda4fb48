/// The backend's journal: its entries in order, at most `limit` of them when a limit is set.
///
/// Entries are numbered from 0 since the journal was last cleared; a ``JournalSlot`` names an entry
/// by that number, so it stays valid while older entries are dropped. Dropping is amortised O(1):
/// dropped entries stay in the array until they are as many as the live ones, then go in one move,
/// so the array never holds more than about twice the limit.
struct JournalStorage {
  /// The most entries kept, or `nil` for no limit.
  let limit: Int?
  private var entries: [JournalEntry] = []
  /// `entries[..<head]` were dropped and wait for the next compaction.
  private var head = 0
  /// How many entries were dropped since the journal was last cleared.
  private(set) var dropped = 0
  /// The near-miss reports of dropped unmatched requests: a limit never hides a failure.
  private(set) var droppedUnmatchedReports: [String] = []
  /// Changes when the journal is cleared, so that a slot from before is ignored.
  private(set) var generation = 0

  init(limit: Int?) { self.limit = limit }

  /// The entries kept, oldest first.
  var all: [JournalEntry] { head == 0 ? entries : Array(entries[head...]) }

  /// How many entries are kept.
  var count: Int { entries.count - head }

  /// The newest entry.
  var last: JournalEntry? { head < entries.count ? entries.last : nil }

  /// How many entries were ever appended since the journal was last cleared (kept or dropped).
  var appended: Int { dropped + count }

  /// Appends `entry`, dropping the oldest when over the limit, and returns where it lives.
  mutating func append(_ entry: JournalEntry) -> JournalSlot {
    entries.append(entry)
    let slot = JournalSlot(index: appended - 1, generation: generation)
    if let limit, count > limit { dropOldest() }
    return slot
  }

  /// Replaces the entry in `slot`, unless it was dropped or the journal was cleared since.
  mutating func update(_ slot: JournalSlot, with entry: JournalEntry) {
    guard slot.generation == generation else { return }
    let index = slot.index - dropped + head
    guard index >= head, index < entries.count else { return }
    entries[index] = entry
  }

  /// The entries appended at or after number `start` that are still kept, and how many of those
  /// were dropped.
  func entries(since start: Int) -> (entries: [JournalEntry], dropped: Int) {
    let first = max(start - dropped, 0)
    let lost = max(dropped - start, 0)
    guard first < count else { return ([], lost) }
    return (Array(entries[(head + first)...]), lost)
  }

  /// Forgets every entry; returns the entries, so the caller can free them outside its lock.
  mutating func removeAll() -> [JournalEntry] {
    let removed = entries
    entries = []
    head = 0
    dropped = 0
    droppedUnmatchedReports = []
    generation += 1
    return removed
  }

  private mutating func dropOldest() {
    if let report = entries[head].unmatchedReport { droppedUnmatchedReports.append(report) }
    head += 1
    dropped += 1
    if head >= entries.count - head {
      entries.removeFirst(head)
      head = 0
    }
  }
}
