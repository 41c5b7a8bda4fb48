import Foundation

/// Where a field named by a lint finding (``CassetteLint/Finding/field``) was written in a JSON
/// file, so that `doppel lint` can print `file:line:column`. `package`: for the tool only.
package enum JSONLocation {
  /// The line and column (from 1) of the value at `field` (`entries[2].request.headers.Authorization`,
  /// `stubs[0].response.headers.Authorization`), or `nil` when the document does not parse or the
  /// field is not found.
  ///
  /// A key names an object member or, in a list of `{"name": …, "value": …}` pairs (HAR headers,
  /// cookies, query strings), the pair of that name. A path starting with `entries` is looked up
  /// under `log` when the document has no top-level `entries`.
  /// The line of each entry of a HAR document (`log.entries`, or `entries` at the top), in
  /// order; empty when the document does not parse.
  package static func entryLines(in data: Data) -> [Int] {
    let bytes = [UInt8](data)
    guard let root = try? PositionedJSONParser.parse(bytes),
      let entries = member("entries", of: member("log", of: root) ?? root), case .array(let items) = entries.value
    else { return [] }
    let positions = TextPositions(bytes)
    return items.map { positions.position($0.offset).line }
  }

  package static func position(of field: String, in data: Data) -> (line: Int, column: Int)? {
    let bytes = [UInt8](data)
    guard let root = try? PositionedJSONParser.parse(bytes) else { return nil }
    var current = root
    var tokens = tokenize(field)
    if case .key("entries")? = tokens.first, member("entries", of: current) == nil, member("log", of: current) != nil {
      tokens.insert(.key("log"), at: 0)
    }
    var inPair = false
    for token in tokens {
      inPair = false
      switch token {
      case .key(let key):
        if let value = member(key, of: current) {
          current = value
        } else if let pair = pair(named: key, in: current) {
          current = pair
          inPair = true
        } else {
          return nil
        }
      case .index(let index):
        guard case .array(let items) = current.value, items.indices.contains(index) else { return nil }
        current = items[index]
      }
    }
    // A pair is shown at its value.
    if inPair, let value = member("value", of: current) { current = value }
    let position = TextPosition(offset: current.offset, in: bytes)
    return (position.line, position.column)
  }

  private enum Token {
    case key(String)
    case index(Int)
  }

  /// `a.b[2].c` → `a`, `b`, `[2]`, `c`.
  private static func tokenize(_ field: String) -> [Token] {
    var tokens: [Token] = []
    for segment in field.split(separator: ".", omittingEmptySubsequences: true) {
      var rest = Substring(segment)
      if let bracket = rest.firstIndex(of: "["), bracket != rest.startIndex {
        tokens.append(.key(String(rest[..<bracket])))
        rest = rest[bracket...]
      } else if !rest.hasPrefix("[") {
        tokens.append(.key(String(rest)))
        continue
      }
      while rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
        if let index = Int(rest[rest.index(after: rest.startIndex)..<close]) { tokens.append(.index(index)) }
        rest = rest[rest.index(after: close)...]
      }
    }
    return tokens
  }

  private static func member(_ key: String, of value: PositionedJSON) -> PositionedJSON? {
    guard case .object(let members) = value.value else { return nil }
    return members.last { $0.key == key }?.value
  }

  private static func pair(named name: String, in value: PositionedJSON) -> PositionedJSON? {
    guard case .array(let items) = value.value else { return nil }
    return items.first { item in
      guard case .string(let itemName)? = member("name", of: item)?.value else { return false }
      return itemName == name
    }
  }
}
