#if OpenAPI
  import Doppel
  import Foundation
  import Yams

  /// A value of an OpenAPI document (YAML or JSON) with the line it was written on, so that a
  /// violation can say where in the document the rule it broke is. Object members keep their order.
  struct DocumentNode: Sendable {
    enum Value: Sendable {
      case null
      case bool(Bool)
      /// The number's value and its text as written.
      case number(Double, literal: String)
      case string(String)
      case array([DocumentNode])
      case object([Member])
    }

    struct Member: Sendable {
      let key: String
      /// The line the key is on (from 1).
      let line: Int
      let value: DocumentNode
    }

    let value: Value
    /// The line the value starts on (from 1).
    let line: Int
    /// Where each key of a large object is among its members (its first place), so that a lookup
    /// costs the same in `components.schemas` with thousands of members as in a small object:
    /// each `$ref` is looked up, and a scan made reading a document take time that grew with its
    /// size times its number of components.
    private let index: MemberIndex?

    /// Objects with more members than this are indexed; a scan of a few is as fast.
    private static let indexedMembers = 12

    /// The places of an object's keys. A class, so that copies of a node share one.
    private final class MemberIndex: Sendable {
      let places: [String: Int]
      init(_ members: [Member]) {
        places = Dictionary(members.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
      }
    }

    init(value: Value, line: Int) {
      self.value = value
      self.line = line
      if case .object(let members) = value, members.count > Self.indexedMembers {
        index = MemberIndex(members)
      } else {
        index = nil
      }
    }

    /// The first member named `key`.
    private func member(_ key: String) -> Member? {
      guard case .object(let members) = value else { return nil }
      if let index { return index.places[key].map { members[$0] } }
      return members.first { $0.key == key }
    }

    subscript(key: String) -> DocumentNode? { member(key)?.value }

    /// The line of `key`'s member, or the node's own line.
    func line(of key: String) -> Int { member(key)?.line ?? line }

    var members: [Member] {
      guard case .object(let members) = value else { return [] }
      return members
    }

    var items: [DocumentNode]? {
      guard case .array(let items) = value else { return nil }
      return items
    }

    var string: String? {
      guard case .string(let text) = value else { return nil }
      return text
    }

    /// Not inlined: Swift 6.3.1's optimizer crashes on it in release builds (CopyPropagation,
    /// "Found outside of lifetime use") when it is inlined after an optional chain.
    var number: Double? {
      @inline(never) get {
        numberValue
      }
    }

    private var numberValue: Double? {
      guard case .number(let number, _) = value else { return nil }
      return number
    }

    var bool: Bool? {
      guard case .bool(let flag) = value else { return nil }
      return flag
    }

    var isObject: Bool {
      if case .object = value { return true }
      return false
    }

    /// The value as JSON.
    var json: JSONValue {
      switch value {
      case .null: .null
      case .bool(let flag): .bool(flag)
      case .number(let number, _): .number(number)
      case .string(let text): .string(text)
      case .array(let items): .array(items.map(\.json))
      case .object(let members):
        .object(Dictionary(members.map { ($0.key, $0.value.json) }, uniquingKeysWith: { _, last in last }))
      }
    }

    /// The node a JSON pointer (`/components/schemas/Breed`, without the `#`) names.
    func resolve(pointer: String) -> DocumentNode? {
      var node = self
      for token in pointer.split(separator: "/", omittingEmptySubsequences: true) {
        let key =
          String(token).removingPercentEncoding?.replacingOccurrences(of: "~1", with: "/")
          .replacingOccurrences(of: "~0", with: "~") ?? String(token)
        if let items = node.items {
          guard let index = Int(key), items.indices.contains(index) else { return nil }
          node = items[index]
        } else {
          guard let next = node[key] else { return nil }
          node = next
        }
      }
      return node
    }
  }

  // MARK: Reading

  extension DocumentNode {
    /// Reads a YAML or JSON document. JSON is read with the package's positioned parser (exact
    /// positions, strict syntax); anything else as YAML, of which JSON is a subset.
    static func parse(_ data: Data, file: String) throws(OpenAPIError) -> DocumentNode {
      let bytes = [UInt8](data)
      let firstSignificant = bytes.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
      guard firstSignificant != nil else {
        throw OpenAPIError(
          file: file, line: 1,
          "the file is empty. An OpenAPI document starts with `openapi: 3.1.0` (YAML) or {\"openapi\": \"3.1.0\"} (JSON)."
        )
      }
      if firstSignificant == UInt8(ascii: "{") || file.lowercased().hasSuffix(".json") {
        do {
          let parsed = try PositionedJSONParser.parse(bytes)
          return DocumentNode(json: parsed, positions: TextPositions(bytes))
        } catch {
          let position = TextPosition(offset: error.offset, in: bytes)
          throw OpenAPIError(
            file: file, line: position.line, column: position.column, "\(error.message). Fix the JSON syntax there.")
        }
      }
      guard let text = String(data: data, encoding: .utf8) else {
        throw OpenAPIError(file: file, line: 1, "the file is not UTF-8 text. Save it as UTF-8.")
      }
      do {
        guard let node = try Yams.compose(yaml: text, Self.resolver) else {
          throw OpenAPIError(file: file, line: 1, "the document is empty. Start it with `openapi: 3.1.0`.")
        }
        // Yams resolves an alias to the value its anchor names, so a few lines of anchors that
        // alias each other stand for billions of values. Without aliases a document holds fewer
        // values than bytes; the budget allows that, and a generous amount more.
        var budget = bytes.count + Self.aliasAllowance
        return try DocumentNode(yaml: node, file: file, depth: 0, budget: &budget)
      } catch let error as OpenAPIError {
        throw error
      } catch let error as YamlError {
        throw Self.describe(error, file: file)
      } catch {
        throw OpenAPIError(file: file, line: 1, "the YAML could not be read: \(error). Fix the YAML syntax.")
      }
    }

    private static func describe(_ error: YamlError, file: String) -> OpenAPIError {
      switch error {
      case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
        .composer(_, let problem, let mark, _):
        return OpenAPIError(
          file: file, line: mark.line, column: mark.column,
          "the YAML is malformed: \(problem). Fix the indentation or quoting there.")
      case .duplicatedKeysInMapping(let duplicates, _):
        return OpenAPIError(
          file: file, line: 1,
          "the YAML repeats the key \(duplicates.map { "\"\($0)\"" }.joined(separator: ", ")) in one mapping. Keep one of them."
        )
      default:
        return OpenAPIError(file: file, line: 1, "the YAML could not be read: \(error). Fix the YAML syntax.")
      }
    }

    /// The tags a plain scalar may resolve to that this reader tells apart: Yams' default rules,
    /// in its order, without timestamps, merge keys and `=` (read as strings either way). Each rule
    /// is a regular expression tried on every plain scalar, keys included, so the three left out
    /// were a tenth of the time a description split over thousands of YAML files took to read.
    private static let resolver = Resolver.basic.appending(.bool).appending(.int).appending(.float).appending(.null)

    /// YAML nested deeper than this is refused instead of overflowing the stack.
    static let maximumDepth = 256

    /// How many values a YAML document may hold beyond one per byte of its text: what its aliases
    /// (`*name`) may add before it is refused as an alias bomb instead of filling the memory.
    static let aliasAllowance = 100_000

    private init(yaml node: Yams.Node, file: String, depth: Int, budget: inout Int) throws(OpenAPIError) {
      let line = node.mark?.line ?? 1
      guard depth < Self.maximumDepth else {
        throw OpenAPIError(
          file: file, line: line, "the YAML nests deeper than \(Self.maximumDepth) levels. Flatten it with $ref.")
      }
      budget -= 1
      guard budget >= 0 else {
        throw OpenAPIError(
          file: file, line: line,
          "the YAML's aliases (*name) stand for more values than the file could hold written out, so it is refused before it fills the memory. Write the values out once, or use $ref."
        )
      }
      switch node {
      case .scalar(let scalar):
        let name = node.tag.description
        if name == Tag.Name.null.rawValue {
          self.init(value: .null, line: line)
        } else if name == Tag.Name.bool.rawValue, let flag = node.bool {
          self.init(value: .bool(flag), line: line)
        } else if name == Tag.Name.int.rawValue || name == Tag.Name.float.rawValue,
          let number = node.float ?? node.int.map(Double.init)
        {
          self.init(value: .number(number, literal: scalar.string), line: line)
        } else {
          self.init(value: .string(scalar.string), line: line)
        }
      case .mapping(let mapping):
        var members: [Member] = []
        for (key, value) in mapping {
          guard let name = key.scalar?.string else {
            throw OpenAPIError(
              file: file, line: key.mark?.line ?? line, "a mapping key is not a plain string. Write it as a string.")
          }
          members.append(
            Member(
              key: name, line: key.mark?.line ?? line,
              value: try DocumentNode(yaml: value, file: file, depth: depth + 1, budget: &budget)))
        }
        self.init(value: .object(members), line: line)
      case .sequence(let sequence):
        var items: [DocumentNode] = []
        for item in sequence {
          items.append(try DocumentNode(yaml: item, file: file, depth: depth + 1, budget: &budget))
        }
        self.init(value: .array(items), line: line)
      case .alias:
        // Yams resolves every alias while it composes the document, so this is not expected; should
        // one arrive unresolved, it is refused rather than read as nothing.
        throw OpenAPIError(
          file: file, line: line,
          "a YAML alias (*name) that was not resolved to its anchor (&name). Put the anchor before the alias, or write the value out."
        )
      }
    }

    private init(json: PositionedJSON, positions: TextPositions) {
      func line(_ offset: Int) -> Int { positions.line(offset) }
      let value: Value
      switch json.value {
      case .null: value = .null
      case .bool(let flag): value = .bool(flag)
      case .number(let literal): value = .number(PositionedJSON.number(literal), literal: literal)
      case .string(let text): value = .string(text)
      case .array(let items): value = .array(items.map { DocumentNode(json: $0, positions: positions) })
      case .object(let members):
        value = .object(
          members.map {
            Member(
              key: $0.key, line: line($0.keyOffset),
              value: DocumentNode(json: $0.value, positions: positions))
          })
      }
      self.init(value: value, line: line(json.offset))
    }
  }
#endif
