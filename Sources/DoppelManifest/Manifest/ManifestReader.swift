import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Reads typed values out of a parsed manifest, turning every mismatch into an error that names
/// the file, the line and column, the key path and the fix.
struct ManifestReader {
  /// The manifest file as named in messages (its path).
  let displayPath: String
  /// The absolute path, for stub locations.
  let filePath: String
  /// The file's name, for stub locations (worked out once, not for each stub).
  private let fileName: String
  /// The directory relative paths (fixture files) are resolved against.
  let directory: URL
  let bytes: [UInt8]
  private let positions: TextPositions
  /// The problems found so far (see ``collecting(_:)``).
  let log = ManifestProblemLog()
  /// Fixture files already found, by the path the manifest gives: thousands of stubs often share
  /// a few files, and each is looked up on disk once.
  let fixtureFiles = FixtureFileCache()
  /// For a stub read from the admin API: what it may reach (see ``StubReach``); `nil` for a
  /// manifest file, whose files are found in its own folder.
  var reach: StubReach?

  init(url: URL, bytes: [UInt8]) {
    // As the caller wrote it: a relative file URL (`URL(fileURLWithPath: "doppel.json")`) stays relative.
    displayPath = url.relativePath
    filePath = url.path
    fileName = CodeLocation.fileName(of: filePath)
    directory = url.deletingLastPathComponent()
    self.bytes = bytes
    positions = TextPositions(bytes)
  }

  func position(_ offset: Int) -> TextPosition { positions.position(offset) }

  /// `/path/doppel.json:14:7: stubs[2].response: message`
  func error(at offset: Int, _ path: ManifestKeyPath, _ message: String) -> ManifestProblem {
    ManifestProblem(
      offset: offset, message: "\(displayPath):\(position(offset)): \(path.isRoot ? "" : "\(path): ")\(message)")
  }

  func error(_ node: PositionedJSON, _ path: ManifestKeyPath, _ message: String) -> ManifestProblem {
    error(at: node.offset, path, message)
  }

  /// A problem that is only that a stub from the admin API reaches beyond what the server allows
  /// (``DoppelError/Fault/beyondReach``).
  func beyondReach(_ node: PositionedJSON, _ path: ManifestKeyPath, _ message: String) -> ManifestProblem {
    var problem = error(at: node.offset, path, message)
    problem.fault = .beyondReach
    return problem
  }

  /// A problem a JSON schema cannot describe: values each well formed that contradict each other
  /// (a minimum above a maximum), a regular expression ICU does not compile
  /// (``DoppelError/Fault/unusable``).
  func unusable(_ node: PositionedJSON, _ path: ManifestKeyPath, _ message: String) -> ManifestProblem {
    var problem = error(at: node.offset, path, message)
    problem.fault = .unusable
    return problem
  }

  /// A source location for a stub declared at `offset`, so near-miss reports point into the manifest.
  func location(_ offset: Int) -> CodeLocation {
    CodeLocation(file: filePath, named: fileName, at: position(offset))
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
  ) throws(ManifestProblem) -> Fields {
    guard case .object(let members) = node.value else {
      throw error(node, path, "expected \(what) (a JSON object), found \(node.kind).")
    }
    let unknown = members.filter { !known.contains($0.key) }.map { member in
      error(
        at: member.keyOffset, path,
        "unknown key \"\(member.key)\".\(Suggestion.didYouMean(member.key, in: known)) The keys of \(what) are: \(known.joined(separator: ", "))."
      )
    }
    if let first = unknown.first {
      // Every unknown key is reported; the object is not read further.
      for other in unknown.dropFirst() { record(other) }
      throw first
    }
    return Fields(node: node, path: path, members: members)
  }

  /// The two fields of an object whose only keys, `keys` (two of them, such as a chunking's
  /// `size` and `every`), must both be there; `missing` is the error when one is not.
  func bothFields(
    _ node: PositionedJSON, _ path: ManifestKeyPath, keys: [String], what: String, missing: String
  ) throws(ManifestProblem) -> (PositionedJSON, PositionedJSON) {
    let fields = try object(node, path, known: keys, what: what)
    guard keys.count == 2, let first = fields[keys[0]], let second = fields[keys[1]] else {
      throw error(node, path, missing)
    }
    return (first, second)
  }

  /// An error unless at most one of `keys` is present.
  func requireAtMostOne(_ keys: [String], in fields: Fields, _ reason: String) throws(ManifestProblem) {
    let present = fields.present(keys)
    guard present.count > 1 else { return }
    throw error(
      at: fields.keyOffset(present[1]), fields.path,
      "\"\(present[0])\" and \"\(present[1])\" cannot be used together: \(reason)")
  }

  // MARK: Scalars

  func string(_ node: PositionedJSON, _ path: ManifestKeyPath, what: String = "a string") throws(ManifestProblem)
    -> String
  {
    guard case .string(let text) = node.value else {
      var fix = ""
      if case .number(let literal) = node.value { fix = " Write it in double quotes: \"\(literal)\"." }
      throw error(node, path, "expected \(what), found \(node.kind).\(fix)")
    }
    return text
  }

  func nonEmptyString(_ node: PositionedJSON, _ path: ManifestKeyPath, what: String) throws(ManifestProblem) -> String {
    let text = try string(node, path, what: what)
    guard !text.isEmpty else { throw error(node, path, "expected \(what), found an empty string.") }
    return text
  }

  func bool(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> Bool {
    guard case .bool(let flag) = node.value else {
      throw error(node, path, "expected true or false, found \(node.kind).")
    }
    return flag
  }

  func array(_ node: PositionedJSON, _ path: ManifestKeyPath, of what: String) throws(ManifestProblem)
    -> [PositionedJSON]
  {
    guard case .array(let items) = node.value else {
      throw error(node, path, "expected an array of \(what), found \(node.kind).")
    }
    return items
  }

  /// `{"name": "value"}` or `{"name": ["a", "b"]}`, as ordered pairs (a name repeats for each value).
  func stringPairs(
    _ node: PositionedJSON, _ path: ManifestKeyPath, what: String, allowArrays: Bool
  ) throws(ManifestProblem) -> [(String, String)] {
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
}

/// The fixture files a manifest reader has found, by the path the manifest gives. A class so that
/// the reader's methods stay non-mutating; a reader and its cache live on one thread for one load.
final class FixtureFileCache {
  var found: [String: URL] = [:]
}
