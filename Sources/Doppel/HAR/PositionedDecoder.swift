/// A `Decoder` over a ``PositionedJSON`` tree, so that HAR types keep their `Codable` code while
/// every problem is reported where it was written: the offset of the faulty value, its JSON path
/// and what is wrong. Numbers are range-checked before they are converted.
struct PositionedDecoder: Decoder {
  /// A value that does not fit: the offset of the value (or of the object missing a key), its path
  /// and what is wrong, with the fix.
  struct Problem: Error, Sendable {
    let offset: Int
    let path: String
    let message: String
  }

  /// Whole numbers read into `Int` are within ±2^53, where every integer is exact in a JSON
  /// number.
  static let largestWhole = 9_007_199_254_740_992.0

  let node: PositionedJSON
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  init(_ node: PositionedJSON, codingPath: [any CodingKey] = []) {
    self.node = node
    self.codingPath = codingPath
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let members) = node.value else {
      throw problem(
        codingPath.isEmpty
          ? "expected a HAR document (a JSON object such as {\"log\": {\"entries\": []}})" : "expected an object", node)
    }
    return KeyedDecodingContainer(Keyed<Key>(decoder: self, members: members))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let items) = node.value else { throw problem("expected an array", node) }
    return Unkeyed(decoder: self, items: items)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

  /// `expected a string, found the number 1. Fix the value, or export the capture again.`
  func problem(_ expected: String, _ node: PositionedJSON, path: [any CodingKey]? = nil, why: String = "")
    -> Problem
  {
    Problem(
      offset: node.offset, path: Self.path(path ?? codingPath),
      message: "\(expected), found \(node.kind)\(why). Fix the value, or export the capture again.")
  }

  /// `log.entries[3].response.status`.
  static func path(_ codingPath: [any CodingKey]) -> String {
    var result = ""
    for key in codingPath {
      if let index = key.intValue {
        result += "[\(index)]"
      } else {
        result += result.isEmpty ? key.stringValue : "." + key.stringValue
      }
    }
    return result
  }

  // MARK: Scalars

  func decode<T: Decodable>(_ type: T.Type, at node: PositionedJSON, path: [any CodingKey]) throws -> T {
    switch type {
    case is String.Type:
      guard case .string(let text) = node.value, let value = text as? T else {
        throw problem("expected a string", node, path: path)
      }
      return value
    case is Int.Type:
      guard case .number(let number, _) = node.value else { throw problem("expected a whole number", node, path: path) }
      guard number.isFinite, number.rounded(.towardZero) == number else {
        throw problem("expected a whole number", node, path: path, why: ", which is not a whole number")
      }
      guard abs(number) <= Self.largestWhole, let value = Int(exactly: number) as? T else {
        throw problem(
          "expected a whole number from -9007199254740992 to 9007199254740992", node, path: path,
          why: ", which is too large")
      }
      return value
    case is Double.Type:
      guard case .number(let number, _) = node.value else { throw problem("expected a number", node, path: path) }
      guard number.isFinite, let value = number as? T else {
        throw problem("expected a number", node, path: path, why: ", which is too large for a number")
      }
      return value
    case is Bool.Type:
      guard case .bool(let flag) = node.value, let value = flag as? T else {
        throw problem("expected true or false", node, path: path)
      }
      return value
    case is JSONValue.Type:
      guard let value = node.jsonValue as? T else { throw problem("expected a JSON value", node, path: path) }
      return value
    default:
      return try T(from: PositionedDecoder(node, codingPath: path))
    }
  }

  // MARK: Containers

  private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: PositionedDecoder
    let members: [PositionedJSON.Member]
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    private func member(_ key: Key) -> PositionedJSON? {
      // The last of repeated keys wins, as in JSONDecoder (the parser refuses repeats anyway).
      members.last { $0.key == key.stringValue }?.value
    }

    private func required(_ key: Key) throws -> PositionedJSON {
      guard let node = member(key) else {
        let place = codingPath.isEmpty ? "the document" : "this object"
        throw Problem(
          offset: decoder.node.offset, path: PositionedDecoder.path(codingPath),
          message:
            "\(place) has no \"\(key.stringValue)\", which HAR 1.2 requires. Add it, or export the capture again.")
      }
      return node
    }

    func decodeNil(forKey key: Key) throws -> Bool {
      if case .null = try required(key).value { return true }
      return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      try decoder.decode(type, at: try required(key), path: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
      -> KeyedDecodingContainer<NestedKey>
    {
      try PositionedDecoder(try required(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      try PositionedDecoder(try required(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder {
      PositionedDecoder(try required(key), codingPath: codingPath + [key])
    }
  }

  private struct Unkeyed: UnkeyedDecodingContainer {
    let decoder: PositionedDecoder
    let items: [PositionedJSON]
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(decoder: PositionedDecoder, items: [PositionedJSON]) {
      self.decoder = decoder
      self.items = items
    }

    private mutating func next() throws -> (PositionedJSON, [any CodingKey]) {
      guard !isAtEnd else {
        throw Problem(
          offset: decoder.node.offset, path: PositionedDecoder.path(codingPath),
          message: "the array has fewer elements than expected. Export the capture again.")
      }
      defer { currentIndex += 1 }
      return (items[currentIndex], codingPath + [HARKey(intValue: currentIndex) ?? HARKey("")])
    }

    mutating func decodeNil() throws -> Bool {
      guard !isAtEnd, case .null = items[currentIndex].value else { return false }
      currentIndex += 1
      return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
      let (node, path) = try next()
      return try decoder.decode(type, at: node, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
      -> KeyedDecodingContainer<NestedKey>
    {
      let (node, path) = try next()
      return try PositionedDecoder(node, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
      let (node, path) = try next()
      return try PositionedDecoder(node, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
      let (node, path) = try next()
      return PositionedDecoder(node, codingPath: path)
    }
  }

  private struct Single: SingleValueDecodingContainer {
    let decoder: PositionedDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
      if case .null = decoder.node.value { return true }
      return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
      try decoder.decode(type, at: decoder.node, path: codingPath)
    }
  }
}
