import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The journal's storage (`JournalStorage`): order, slots and reads across the chunks it grows by,
/// which only a journal longer than one chunk shows and no public call can size.
@Suite struct JournalStorageTests {
  @Test("the journal keeps order, slots and reads across its storage chunks, with and without a limit")
  func acrossChunks() {
    let chunk = JournalStorage.chunkCapacity
    func entry(_ n: Int) -> JournalEntry {
      JournalEntry(request: Request(url: URL(string: "https://api.example.com/items/\(n)")!))
    }
    for limit in [nil, chunk + 7, 2 * chunk] as [Int?] {
      var storage = JournalStorage(limit: limit)
      let total = 5 * chunk + 3
      var slots: [JournalSlot] = []
      for n in 0..<total { slots.append(storage.append(entry(n))) }
      let kept = limit ?? total
      #expect(storage.count == kept)
      #expect(storage.dropped == total - kept)
      #expect(storage.all.map(\.request.path) == (total - kept..<total).map { "/items/\($0)" })
      #expect(storage.last?.request.path == "/items/\(total - 1)")
      let since = storage.entries(since: total - chunk - 1)
      #expect(since.entries.map(\.request.path) == (total - chunk - 1..<total).map { "/items/\($0)" })
      #expect(since.dropped == 0)
      #expect(storage.entries(since: 0).dropped == total - kept)
      // A kept slot is updated in place; a dropped one is ignored.
      storage.update(slots[total - kept], with: entry(-1))
      storage.update(slots[total - chunk - 2], with: entry(-2))
      #expect(storage.all.first?.request.path == "/items/-1")
      #expect(storage.all[kept - chunk - 2].request.path == "/items/-2")
      if kept < total { storage.update(slots[0], with: entry(-3)) }
      #expect(!storage.all.contains { $0.request.path == "/items/-3" })
      _ = storage.removeAll()
      #expect(storage.count == 0 && storage.dropped == 0 && storage.last == nil)
      storage.update(slots[total - 1], with: entry(-4))
      #expect(storage.all.isEmpty)
    }
  }
}
