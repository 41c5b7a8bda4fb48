import Foundation

/// Line and column (both from 1, the column counted in Unicode scalars) of a UTF-8 offset.
package struct TextPosition: Sendable, Equatable, CustomStringConvertible {
  package let line: Int
  package let column: Int

  package init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  /// The position of `offset` in `bytes`. For one lookup; a reader that asks for many positions in
  /// the same document keeps a ``TextPositions`` instead.
  package init(offset: Int, in bytes: [UInt8]) {
    self = TextPositions(bytes).position(offset)
  }

  /// `14:7`
  package var description: String { "\(line):\(column)" }
}

/// Finds the line and column of any offset in a document in time independent of the line's
/// length, so a reader can ask for a position per value even in a minified document of many
/// megabytes on one line.
///
/// Built in one pass: where each line starts, and the column at every ``stride``-th byte. A
/// position is then a binary search for the line and a count of at most ``stride`` bytes.
package struct TextPositions: Sendable {
  /// Bytes between two column checkpoints.
  package static let stride = 1024

  private let bytes: [UInt8]
  /// The offset of the first byte of each line (`lineStarts[0]` is 0).
  private let lineStarts: [Int]
  /// The column of the byte at `index * stride`.
  private let checkpoints: [Int]

  package init(_ bytes: [UInt8]) {
    self.bytes = bytes
    var lineStarts = [0]
    var checkpoints: [Int] = []
    checkpoints.reserveCapacity(bytes.count / Self.stride + 1)
    var column = 1
    bytes.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      let raw = UnsafeRawPointer(base)
      var chunkStart = 0
      while chunkStart < buffer.count {
        checkpoints.append(column)
        let chunkEnd = min(chunkStart + Self.stride, buffer.count)
        var index = chunkStart
        while index < chunkEnd {
          // Eight bytes at a time while there is no line break: each byte but a UTF-8
          // continuation byte (10xxxxxx) is a column.
          if index + 8 <= chunkEnd {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let notBreaks = word ^ 0x0A0A_0A0A_0A0A_0A0A
            if (notBreaks &- 0x0101_0101_0101_0101) & ~notBreaks & 0x8080_8080_8080_8080 == 0 {
              let continuations = word & ~(word << 1) & 0x8080_8080_8080_8080
              column += 8 - continuations.nonzeroBitCount
              index += 8
              continue
            }
          }
          let end = min(index + 8, chunkEnd)
          for offset in index..<end {
            let byte = buffer[offset]
            if byte == UInt8(ascii: "\n") {
              lineStarts.append(offset + 1)
              column = 1
            } else if byte & 0xC0 != 0x80 {
              column += 1
            }
          }
          index = end
        }
        chunkStart = chunkEnd
      }
    }
    if bytes.count % Self.stride == 0 { checkpoints.append(column) }
    self.lineStarts = lineStarts
    self.checkpoints = checkpoints
  }

  /// The line of `offset` (clamped to the document), from 1: a binary search, without the
  /// column's count of the bytes before it on its line, which a reader that keeps only lines
  /// (one per value of a minified document) would pay for every value.
  package func line(_ offset: Int) -> Int {
    lineIndex(min(max(0, offset), bytes.count)) + 1
  }

  /// The index in `lineStarts` of the last line start at or before `offset`.
  private func lineIndex(_ offset: Int) -> Int {
    var low = 0
    var high = lineStarts.count - 1
    while low < high {
      let middle = (low + high + 1) / 2
      if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
    }
    return low
  }

  /// The position of `offset` (clamped to the document).
  package func position(_ offset: Int) -> TextPosition {
    let offset = min(max(0, offset), bytes.count)
    let low = lineIndex(offset)
    let checkpoint = offset / Self.stride * Self.stride
    var start = lineStarts[low]
    var column = 1
    if checkpoint > start {
      start = checkpoint
      column = checkpoints[checkpoint / Self.stride]
    }
    for index in start..<offset where bytes[index] & 0xC0 != 0x80 { column += 1 }
    return TextPosition(line: low + 1, column: column)
  }
}

/// ``TextPositions`` built on the first position asked for, for a reader that needs positions
/// only when something is wrong. Not `Sendable`: one reader uses it on one thread.
package final class LazyTextPositions {
  private let bytes: [UInt8]
  private var built: TextPositions?

  package init(_ bytes: [UInt8]) { self.bytes = bytes }

  package func position(_ offset: Int) -> TextPosition {
    if let built { return built.position(offset) }
    let positions = TextPositions(bytes)
    built = positions
    return positions.position(offset)
  }
}

extension CodeLocation {
  /// `position` in the document at `path`, as a location: `fileID` is the file's name.
  package init(file path: String, at position: TextPosition) {
    self.init(file: path, named: Self.fileName(of: path), at: position)
  }

  /// `position` in the document at `path` whose name (``fileName(of:)``) the caller worked out
  /// once for many locations in it.
  package init(file path: String, named name: String, at position: TextPosition) {
    self.init(fileID: name, filePath: path, line: position.line, column: position.column)
  }

  /// The last component of `path`: `doppel.json` for `/app/doppel.json`.
  package static func fileName(of path: String) -> String {
    String(path.split(separator: "/").last ?? Substring(path))
  }
}
