import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Reads a HAR document the way manifests are read: strict JSON with positions, then the HAR types
/// decoded from it, so every problem is `file:line:column: JSON path: what is wrong. The fix.`
struct HARReading {
  let file: String
  let har: HARFile
  private let root: PositionedJSON
  /// Built on the first position asked for: a file that loads needs none.
  private let positions: LazyTextPositions

  init(data: Data, file: String) throws(DoppelError) {
    let bytes = [UInt8](data)
    let positions = LazyTextPositions(bytes)
    self.file = file
    self.positions = positions
    if let offset = UTF8Validation.firstInvalidByte(in: bytes) {
      throw DoppelError.cassette(
        "\(file):\(positions.position(offset)): the file is not UTF-8 text: the byte 0x\(UTF8Validation.hex(bytes[offset])) at byte offset \(offset) is not valid UTF-8. A HAR file is UTF-8 JSON; export the capture again.",
        at: CodeLocation(file: file, at: positions.position(offset)))
    }
    do {
      root = try PositionedJSONParser.parse(
        bytes, whenEmpty: "the file is empty; a HAR file is a JSON object such as {\"log\": {\"entries\": []}}")
    } catch {
      throw DoppelError.cassette(
        "\(file):\(positions.position(error.offset)): malformed JSON: \(error.message). A HAR file is one JSON document; check that the export finished and that the file was not cut short.",
        at: CodeLocation(file: file, at: positions.position(error.offset)))
    }
    do {
      har = try HARTreeReader.file(root)
    } catch {
      let path = HARTreeReader.path(to: error.offset, in: root)
      throw DoppelError.cassette(
        "\(file):\(positions.position(error.offset)): \(path.isEmpty ? "" : path + ": ")\(error.message)",
        at: CodeLocation(file: file, at: positions.position(error.offset)))
    }
  }

  /// `file:line:column` of the value at `field` inside entry `index` (`response.content.text`),
  /// or of the closest enclosing value that exists.
  func place(entry index: Int, field: String) -> String {
    var node = root
    for key in ["log", "entries"] { node = member(key, of: node) ?? node }
    guard case .array(let entries) = node.value, entries.indices.contains(index) else { return file }
    node = entries[index]
    for key in field.split(separator: ".") {
      guard let next = member(String(key), of: node) else { break }
      node = next
    }
    return "\(file):\(positions.position(node.offset))"
  }

  private func member(_ key: String, of node: PositionedJSON) -> PositionedJSON? {
    guard case .object(let members) = node.value else { return nil }
    return members.last { $0.key == key }?.value
  }
}
