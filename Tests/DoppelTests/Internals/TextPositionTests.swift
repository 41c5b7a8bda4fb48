import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// Positions in errors are exact however long the line: the column counts Unicode scalars from 1.
@Suite struct TextPositionTests {
  /// The position of every offset, counted the slow way.
  private func expected(_ bytes: [UInt8], _ offset: Int) -> TextPosition {
    var line = 1
    var column = 1
    for byte in bytes[..<offset] {
      if byte == UInt8(ascii: "\n") {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
    }
    return TextPosition(line: line, column: column)
  }

  @Test func everyOffsetOfALongLineWithMultiByteCharacters() {
    // Longer than several checkpoints, with characters of 2, 3 and 4 bytes across their edges.
    var text = ""
    for index in 0..<900 { text += index % 7 == 0 ? "é" : index % 11 == 0 ? "€" : index % 13 == 0 ? "🐈" : "a" }
    text += "\n" + text + "\n\n" + String(repeating: "x", count: TextPositions.stride) + "\n"
    let bytes = Array(text.utf8)
    let positions = TextPositions(bytes)
    for offset in 0...bytes.count {
      #expect(positions.position(offset) == expected(bytes, offset), "offset \(offset)")
    }
  }
}
