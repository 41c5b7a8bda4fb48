import Foundation

/// Reads typed values out of a parsed manifest, turning every mismatch into an error that names
/// the file, the line and column, the key path and the fix.
struct ManifestReader {
  /// The manifest file as named in messages (its path).
  let displayPath: String
  /// The file's name, for stub locations: `doppel.json`.
  let fileName: String
  /// The directory relative paths (fixture files) are resolved against.
  let directory: URL
  let bytes: [UInt8]
  private let lineStarts: [Int]

  init(url: URL, bytes: [UInt8]) {
    displayPath = url.path
    fileName = url.lastPathComponent
    directory = url.deletingLastPathComponent()
    self.bytes = bytes
    lineStarts = TextPosition.lineStarts(bytes)
  }

  func position(_ offset: Int) -> TextPosition { TextPosition(offset: offset, in: bytes, lineStarts: lineStarts) }

  /// `/path/doppel.json:14:7: stubs[2].response: message`
  func error(at offset: Int, _ path: ManifestKeyPath, _ message: String) -> DoppelError {
    DoppelError("\(displayPath):\(position(offset)): \(path.isRoot ? "" : "\(path): ")\(message)")
  }

  func error(_ node: PositionedJSON, _ path: ManifestKeyPath, _ message: String) -> DoppelError {
    error(at: node.offset, path, message)
  }

  /// A source location for a stub declared at `offset`, so near-miss reports point into the manifest.
  func location(_ offset: Int) -> CodeLocation {
    let position = position(offset)
    return CodeLocation(fileID: fileName, filePath: displayPath, line: position.line, column: position.column)
  }

  // MARK: Objects

  /// The members of an object, checked against the keys this kind of object may have.
  struct Fields {
    let node: PositionedJSON
    let path: ManifestKeyPath
    let members: [PositionedJSON.Member]

    subscript(key: String) -> PositionedJSON? { members.first { $0.key == key }?.value }

    func path(_ key: String) -> ManifestKeyPath { path + key }

    func keyOffset(_ key: String) -> Int { members.first { $0.key == key }?.keyOffset ?? node.offset }

    /// The keys present among `keys`, in the order they were written.
    func present(_ keys: [String]) -> [String] { members.map(\.key).filter(keys.contains) }
  }

  func object(
    _ node: PositionedJSON, _ path: ManifestKeyPath, known: [String], what: String
  ) throws(DoppelError) -> Fields {
    guard case .object(let members) = node.value else {
      throw error(node, path, "expected \(what) (a JSON object), found \(node.kind).")
    }
    for member in members where !known.contains(member.key) {
      throw error(
        at: member.keyOffset, path,
        "unknown key \"\(member.key)\".\(Suggestion.didYouMean(member.key, in: known)) The keys of \(what) are: \(known.joined(separator: ", "))."
      )
    }
    return Fields(node: node, path: path, members: members)
  }

  /// An error unless at most one of `keys` is present.
  func requireAtMostOne(_ keys: [String], in fields: Fields, _ reason: String) throws(DoppelError) {
    let present = fields.present(keys)
    guard present.count > 1 else { return }
    throw error(
      at: fields.keyOffset(present[1]), fields.path,
      "\"\(present[0])\" and \"\(present[1])\" cannot be used together: \(reason)")
  }

  // MARK: Scalars

  func string(_ node: PositionedJSON, _ path: ManifestKeyPath, what: String = "a string") throws(DoppelError) -> String
  {
    guard case .string(let text) = node.value else {
      var fix = ""
      if case .number(_, let literal) = node.value { fix = " Write it in double quotes: \"\(literal)\"." }
      throw error(node, path, "expected \(what), found \(node.kind).\(fix)")
    }
    return text
  }

  func nonEmptyString(_ node: PositionedJSON, _ path: ManifestKeyPath, what: String) throws(DoppelError) -> String {
    let text = try string(node, path, what: what)
    guard !text.isEmpty else { throw error(node, path, "expected \(what), found an empty string.") }
    return text
  }

  func integer(
    _ node: PositionedJSON, _ path: ManifestKeyPath, in range: ClosedRange<Int>, what: String
  ) throws(DoppelError) -> Int {
    switch node.value {
    case .number(let value, _) where Int(exactly: value).map(range.contains) == true:
      return Int(exactly: value) ?? range.lowerBound
    case .string(let text) where Int(text).map(range.contains) == true:
      throw error(node, path, "expected \(what), found \(node.kind). Write the number without quotes: \(text).")
    default:
      throw error(node, path, "expected \(what), found \(node.kind).")
    }
  }

  func bool(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(DoppelError) -> Bool {
    guard case .bool(let flag) = node.value else {
      throw error(node, path, "expected true or false, found \(node.kind).")
    }
    return flag
  }

  func array(_ node: PositionedJSON, _ path: ManifestKeyPath, of what: String) throws(DoppelError) -> [PositionedJSON] {
    guard case .array(let items) = node.value else {
      throw error(node, path, "expected an array of \(what), found \(node.kind).")
    }
    return items
  }

  /// `{"name": "value"}` or `{"name": ["a", "b"]}`, as ordered pairs (a name repeats for each value).
  func stringPairs(
    _ node: PositionedJSON, _ path: ManifestKeyPath, what: String, allowArrays: Bool
  ) throws(DoppelError) -> [(String, String)] {
    guard case .object(let members) = node.value else {
      throw error(node, path, "expected \(what) (a JSON object), found \(node.kind).")
    }
    var pairs: [(String, String)] = []
    let expected = allowArrays ? "a string or an array of strings" : "a string"
    for member in members {
      let memberPath = path + member.key
      switch member.value.value {
      case .string(let text):
        pairs.append((member.key, text))
      case .array(let items) where allowArrays:
        for (index, item) in items.enumerated() {
          pairs.append((member.key, try string(item, memberPath + index)))
        }
      default:
        _ = try string(member.value, memberPath, what: expected)
      }
    }
    return pairs
  }

  /// A duration: a number of seconds (`0.25`) or a string with a unit (`"250ms"`, `"1.5s"`).
  func duration(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(DoppelError) -> Duration {
    let fix = "Write a number of seconds (0.25) or a string with a unit: \"250ms\" or \"1.5s\"."
    switch node.value {
    case .number(let seconds, _) where seconds >= 0 && seconds.isFinite:
      return .seconds(seconds)
    case .string(let text):
      let milliseconds = text.hasSuffix("ms")
      let digits = milliseconds ? text.dropLast(2) : text.hasSuffix("s") ? text.dropLast() : ""
      guard digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(digits) else {
        throw error(node, path, "\(node.kind) is not a duration. \(fix)")
      }
      return milliseconds ? .milliseconds(value) : .seconds(value)
    default:
      throw error(node, path, "expected a duration, found \(node.kind). \(fix)")
    }
  }
}
