import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Writes what one recorder recorded into a cassette file that other recorders (other processes, or
/// other writers in this one) may be writing at the same time, so that no one's entries are lost.
///
/// Each write holds a lock on `<file>.lock` (see ``FileLock``), reads the file again when someone
/// else changed it since this writer last saw it, and writes it back atomically with:
/// 1. every entry it holds, in its order, except this writer's own, which are replaced by their
///    current form (redaction of later entries may have changed them), and, at the first write of a
///    writer that replaces the cassette, except the entries the file held when the recording
///    began;
/// 2. then this writer's entries that are not in the file yet, in the order they were recorded.
///
/// So the file holds each recorder's entries in its own order, the recorders' batches in the order
/// their writes took the lock. A writer recognizes its entries by their exact JSON; a writer that
/// finds nothing to change does not write.
package final class CassetteWriter: Sendable {
  /// The cassette file.
  package let url: URL
  private let state: Locked<State>

  private struct State {
    /// Everything this writer was given, unredacted (in memory only), in order.
    var recorded: [HAREntry] = []
    /// This writer's entries as last written (their JSON), in the same order.
    var written: [Data] = []
    /// When replacing, the file as it was when the recording began; `nil` after the first write.
    var stale: Stale?
    /// The file as this writer last wrote or read it, so that it need not read it again.
    var known: Known?
  }

  private struct Stale {
    let identity: FileIdentity?
    let entries: [Data: Int]
  }

  private struct Known {
    let identity: FileIdentity
    let har: HARFile
    let prints: [Data]
  }

  /// A writer for the cassette at `url`. With `replacing`, the entries the file holds now are
  /// dropped at the first write (entries others write after this point are kept).
  package init(url: URL, replacing: Bool) {
    self.url = url
    var state = State()
    if replacing {
      let identity = FileIdentity(path: url.path)
      var entries: [Data: Int] = [:]
      if identity != nil, let cassette = try? Cassette.load(from: url) {
        for entry in cassette.entries { entries[Self.fingerprint(entry), default: 0] += 1 }
      }
      state.stale = Stale(identity: identity, entries: entries)
    }
    self.state = Locked(state)
  }

  /// Adds `entries` (newly recorded, in order) to this writer's and writes the cassette, its own
  /// entries redacted with `redaction` (all of them together, so that a secret found in one is
  /// removed from the others), merged with what the file holds. Writing nothing new still creates
  /// a missing file, or drops what it held when replacing.
  ///
  /// - Returns: the cassette as the file now holds it.
  /// - Throws: ``DoppelError`` when the file cannot be locked, read or written.
  @discardableResult
  package func record(_ entries: [HAREntry], redaction: Redaction) throws -> Cassette {
    try state.withLock { state in
      state.recorded += entries
      let mine = try redaction.redacted(Cassette(entries: state.recorded)).entries
      let prints = mine.map(Self.fingerprint)
      do {
        try FileManager.default.createDirectory(
          at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      } catch {
        throw DoppelError.cassette(
          "Could not write the cassette \(url.path): \((error as NSError).localizedDescription). Check that the folder is writable."
        )
      }
      let har = try FileLock.withLock(url.path + ".lock", guarding: "the cassette \(url.path)") {
        try merge(mine, prints, &state)
      }
      state.written = prints
      state.stale = nil
      return Cassette(har: har)
    }
  }

  /// Holding the lock: the file's entries with this writer's put in, written when that changes
  /// anything.
  private func merge(_ mine: [HAREntry], _ prints: [Data], _ state: inout State) throws -> HARFile {
    let identity = FileIdentity(path: url.path)
    var har = HARFile()
    var onDisk: [Data] = []
    var replacedWhole = false
    if let identity {
      if let known = state.known, known.identity == identity {
        har = known.har
        onDisk = known.prints
      } else if let stale = state.stale, stale.identity == identity {
        // Untouched since the recording began: all of it is replaced.
        replacedWhole = true
      } else {
        do {
          har = try Cassette.load(from: url).har
        } catch {
          throw DoppelError.cassette(
            "Could not add the recording to the cassette \(url.path): another program changed it, and it cannot be read now: \(error) Fix or delete the file, then record again."
          )
        }
        onDisk = har.log.entries.map(Self.fingerprint)
      }
    }

    var stale = state.stale?.entries ?? [:]
    var own: [Data: [Int]] = [:]
    for (index, print) in state.written.enumerated() { own[print, default: []].append(index) }
    var placed = Set<Int>()
    var entries: [HAREntry] = []
    var kept: [Data] = []
    for (entry, print) in zip(har.log.entries, onDisk) {
      if let index = own[print]?.first {
        own[print]?.removeFirst()
        placed.insert(index)
        entries.append(mine[index])
        kept.append(prints[index])
      } else if let count = stale[print], count > 0 {
        stale[print] = count - 1
      } else {
        entries.append(entry)
        kept.append(print)
      }
    }
    for index in mine.indices where !placed.contains(index) {
      entries.append(mine[index])
      kept.append(prints[index])
    }
    har.log.entries = entries
    if let identity, !replacedWhole, kept == onDisk {
      // Nothing to change: the file stays as it is.
      state.known = Known(identity: identity, har: har, prints: kept)
      return har
    }
    let data = try har.encoded()
    do {
      try data.write(to: url, options: .atomic)
    } catch {
      throw DoppelError.cassette(
        "Could not write the cassette \(url.path): \((error as NSError).localizedDescription). Check that the folder is writable."
      )
    }
    if let written = FileIdentity(path: url.path) {
      state.known = Known(identity: written, har: har, prints: kept)
    }
    return har
  }

  /// An entry's exact JSON, keys sorted: how a writer recognizes its entries in the file.
  private static func fingerprint(_ entry: HAREntry) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(entry)) ?? Data()
  }
}
