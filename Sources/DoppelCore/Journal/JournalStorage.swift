@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// The backend's journal: its entries in order, at most `limit` of them when a limit is set, and
/// at most `byteLimit` bytes (bodies, URLs and header fields, with what is held beside the
/// entries, but always the newest entry) when that is set.
///
/// Entries are numbered from 0 since the journal was last cleared; a ``JournalSlot`` names an entry
/// by that number, so it stays valid while older entries are dropped.
///
/// The entries live in chunks of ``chunkCapacity``, each allocated once at its full size but the
/// first, which grows with the journal (a backend that journals five requests holds room for
/// about five): growing the journal past the first chunk adds a chunk and never copies an entry, and the memory a chunk takes is small enough
/// for the allocator to reuse after the journal is cleared (one big array would be copied at every
/// doubling, and each new doubling maps and faults in fresh pages). Dropping is O(1) amortised: a
/// chunk goes when its last entry is dropped, so at most one chunk of dropped entries is kept.
struct JournalStorage {
  /// Entries per chunk. Small enough that a chunk stays below the allocator's threshold for
  /// mapping memory of its own, large enough that the list of chunks stays short.
  static let chunkCapacity = 512

  /// The most entries kept, or `nil` for no limit.
  let limit: Int?
  /// The most bytes kept, or `nil` for no limit; the newest entry is kept whatever its size.
  var byteLimit: Int? {
    didSet {
      // Bytes are counted only while there is a limit (counting them costs every request): when
      // one is set, the kept entries are counted once.
      if oldValue == nil, byteLimit != nil { bytes = all.reduce(0) { $0 + $1.journaledBytes } }
      if byteLimit == nil { bytes = 0 }
      dropOverByteLimit()
    }
  }
  /// The bytes held beside the entries that count against ``byteLimit`` too (the backend's
  /// WebSocket events): entries are dropped while the two together pass it.
  var bytesBeside = 0 {
    didSet { dropOverByteLimit() }
  }
  /// The bytes the kept entries hold (see ``JournalEntry/journaledBytes``) while there is a
  /// ``byteLimit``; 0 without one.
  private(set) var bytes = 0
  /// Every chunk is full but the last; `chunks[..<firstChunk]` were dropped and are empty, waiting
  /// for the list to be compacted.
  private var chunks: [[JournalEntry]] = []
  /// The first chunk holding kept entries.
  private var firstChunk = 0
  /// `chunks[firstChunk][..<head]` were dropped.
  private var head = 0
  /// How many entries are kept.
  private(set) var count = 0
  /// How many entries were dropped since the journal was last cleared.
  private(set) var dropped = 0
  /// The near-miss reports of dropped unmatched requests: a limit never hides a failure.
  private(set) var droppedUnmatchedReports: [String] = []
  /// Changes when the journal is cleared, so that a slot from before is ignored.
  private(set) var generation = 0

  init(limit: Int?) { self.limit = limit }

  /// The entries kept, oldest first.
  var all: [JournalEntry] { entries(fromKept: 0) }

  /// How many entries the first chunk has room for now, for tests.
  var firstChunkCapacity: Int { chunks.first?.capacity ?? 0 }

  /// The newest entry.
  var last: JournalEntry? { count > 0 ? chunks[chunks.count - 1].last : nil }

  /// How many entries were ever appended since the journal was last cleared (kept or dropped).
  var appended: Int { dropped + count }

  /// Appends `entry`, dropping the oldest when over the limit, and returns where it lives.
  mutating func append(_ entry: consuming JournalEntry) -> JournalSlot {
    if chunks.isEmpty {
      // The first chunk grows as entries come: most backends (one per test) journal a handful of
      // requests, and thousands of them alive at once (a suite's parallel tests) must not each
      // hold a full chunk.
      chunks.append([])
    } else if chunks[chunks.count - 1].count == Self.chunkCapacity {
      var chunk: [JournalEntry] = []
      chunk.reserveCapacity(Self.chunkCapacity)
      chunks.append(chunk)
    }
    if byteLimit != nil { bytes += entry.journaledBytes }
    chunks[chunks.count - 1].append(entry)
    count += 1
    let slot = JournalSlot(index: appended - 1, generation: generation)
    if let limit, count > limit { dropOldest() }
    dropOverByteLimit()
    return slot
  }

  /// Replaces the entry in `slot`, unless it was dropped or the journal was cleared since.
  mutating func update(_ slot: JournalSlot, with entry: JournalEntry) {
    guard slot.generation == generation else { return }
    let kept = slot.index - dropped
    guard kept >= 0, kept < count else { return }
    let (chunk, offset) = position(ofKept: kept)
    if byteLimit != nil { bytes += entry.journaledBytes - chunks[chunk][offset].journaledBytes }
    // Completed later, but received when the entry was made.
    var entry = entry
    entry.receivedAt = chunks[chunk][offset].receivedAt
    chunks[chunk][offset] = entry
    dropOverByteLimit()
  }

  /// The entries appended at or after number `start` that are still kept, and how many of those
  /// were dropped.
  func entries(since start: Int) -> (entries: [JournalEntry], dropped: Int) {
    let first = max(start - dropped, 0)
    let lost = max(dropped - start, 0)
    return (entries(fromKept: first), lost)
  }

  /// Forgets every entry; returns the entries, so the caller can free them outside its lock.
  mutating func removeAll() -> [[JournalEntry]] {
    let removed = chunks
    chunks = []
    firstChunk = 0
    head = 0
    count = 0
    bytes = 0
    dropped = 0
    droppedUnmatchedReports = []
    generation += 1
    return removed
  }

  /// The chunk and offset of the kept entry number `kept` (0 is the oldest kept).
  @inline(__always)
  private func position(ofKept kept: Int) -> (chunk: Int, offset: Int) {
    let index = head + kept
    return (firstChunk + index / Self.chunkCapacity, index % Self.chunkCapacity)
  }

  /// At most `maximum` entries appended at or after number `start` that are still kept, with the
  /// number of the first one returned and how many from `start` on were dropped.
  func entries(since start: Int, maximum: Int) -> (entries: [JournalEntry], first: Int, dropped: Int) {
    let first = max(start - dropped, 0)
    return (entries(fromKept: first, maximum: maximum), dropped + first, max(dropped - start, 0))
  }

  /// The kept entries from number `first` (0 is the oldest kept) on, at most `maximum` of them.
  private func entries(fromKept first: Int, maximum: Int = .max) -> [JournalEntry] {
    guard first < count, maximum > 0 else { return [] }
    var result: [JournalEntry] = []
    var remaining = min(count - first, maximum)
    result.reserveCapacity(remaining)
    var (chunk, offset) = position(ofKept: first)
    while chunk < chunks.count && remaining > 0 {
      let end = min(chunks[chunk].count, offset + remaining)
      result.append(contentsOf: chunks[chunk][offset..<end])
      remaining -= end - offset
      chunk += 1
      offset = 0
    }
    return result
  }

  /// What a dropped entry's place holds until its chunk goes: nothing of the request it was.
  private static let droppedEntry = JournalEntry(request: Request(url: URL(string: "about:blank")!))

  /// Drops the oldest entries while what is kept passes ``byteLimit``, keeping the newest.
  private mutating func dropOverByteLimit() {
    guard let byteLimit else { return }
    while bytes + bytesBeside > byteLimit && count > 1 { dropOldest() }
  }

  private mutating func dropOldest() {
    if let report = chunks[firstChunk][head].unmatchedReport { droppedUnmatchedReports.append(report) }
    if byteLimit != nil { bytes -= chunks[firstChunk][head].journaledBytes }
    // Let go of the entry now: a dropped entry's bodies must not stay alive until its chunk goes.
    chunks[firstChunk][head] = Self.droppedEntry
    head += 1
    count -= 1
    dropped += 1
    guard head == Self.chunkCapacity else { return }
    // The whole chunk was dropped: free it, and compact the list once it is half empty.
    chunks[firstChunk] = []
    firstChunk += 1
    head = 0
    if firstChunk >= chunks.count - firstChunk {
      chunks.removeFirst(firstChunk)
      firstChunk = 0
    }
  }
}
