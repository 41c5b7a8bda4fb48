@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Builds the `JSONValue` that `JSONEncoder` would write for a value and reading it back would give,
/// without writing and reading the bytes: redaction walks every HAR entry (a cassette being saved,
/// the dashboard's journal list) as a `JSONValue`, and the bytes' round trip was half of that.
///
/// What `JSONEncoder`'s default strategies do is kept: `URL` as its absolute string, `Data` as
/// base64, `Date` as seconds since 2001, and a number that is not finite throws
/// `EncodingError.invalidValue`. `JSONValueEncoderTests` checks it against `JSONEncoder`.
struct JSONValueEncoder {
  /// `value` as `JSONValue`, or the error `JSONEncoder` would throw for it.
  static func encode<T: Encodable>(_ value: T) throws -> JSONValue {
    let root = Node()
    try root.encode(value, at: [])
    return root.resolved()
  }

  /// One value being encoded: a plain value, or the object or array its containers fill.
  ///
  /// A class so that a container handed out for a node keeps writing into it; nodes never leave
  /// the one `encode(_:)` call that makes them.
  fileprivate final class Node {
    var value: JSONValue = .null
    var object: [String: Node]?
    var array: [Node]?

    func resolved() -> JSONValue {
      if let object { return .object(object.mapValues { $0.resolved() }) }
      if let array { return .array(array.map { $0.resolved() }) }
      return value
    }

    func encode<T: Encodable>(_ item: T, at path: [any CodingKey]) throws {
      switch item {
      case let string as String: value = .string(string)
      // The integer types other than Int and the floating-point ones come here from the
      // containers' default methods: written here, not through their own `encode(to:)`, which
      // would hand them back to a container.
      case let integer as any BinaryInteger: value = .number(Double(integer))
      case let number as Double: try self.number(number, at: path)
      case let number as Float: try self.number(Double(float: number), at: path)
      case let bool as Bool: value = .bool(bool)
      case let json as JSONValue:
        guard json.numbersAreFinite else { throw Self.notFinite(path) }
        value = json
      case let url as URL: value = .string(url.absoluteString)
      case let data as Data: value = .string(data.base64EncodedString())
      case let date as Date: value = .number(date.timeIntervalSinceReferenceDate)
      default: try item.encode(to: Encoding(node: self, codingPath: path))
      }
    }

    func number(_ number: Double, at path: [any CodingKey]) throws {
      guard number.isFinite else { throw Self.notFinite(path) }
      value = .number(number)
    }

    static func notFinite(_ path: [any CodingKey]) -> EncodingError {
      EncodingError.invalidValue(
        Double.nan, EncodingError.Context(codingPath: path, debugDescription: "A number that is not finite."))
    }

    func asObject() -> Node {
      if object == nil {
        object = [:]
        array = nil
      }
      return self
    }

    func asArray() -> Node {
      if array == nil {
        array = []
        object = nil
      }
      return self
    }

    func child(_ key: String) -> Node {
      let child = Node()
      object?[key] = child
      return child
    }

    func appended() -> Node {
      let child = Node()
      array?.append(child)
      return child
    }
  }

  private struct Encoding: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
      KeyedEncodingContainer(Keyed<Key>(node: node.asObject(), codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
      Unkeyed(node: node.asArray(), codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
      Single(node: node, codingPath: codingPath)
    }
  }

  private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    func encodeNil(forKey key: Key) throws { node.child(key.stringValue).value = .null }
    func encode(_ value: Bool, forKey key: Key) throws { node.child(key.stringValue).value = .bool(value) }
    func encode(_ value: String, forKey key: Key) throws { node.child(key.stringValue).value = .string(value) }
    func encode(_ value: Double, forKey key: Key) throws {
      try node.child(key.stringValue).number(value, at: codingPath + [key])
    }
    func encode(_ value: Float, forKey key: Key) throws {
      try node.child(key.stringValue).number(Double(float: value), at: codingPath + [key])
    }
    func encode(_ value: Int, forKey key: Key) throws { node.child(key.stringValue).value = .number(Double(value)) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
      try node.child(key.stringValue).encode(value, at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
      keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
      KeyedEncodingContainer(
        Keyed<NestedKey>(node: node.child(key.stringValue).asObject(), codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
      Unkeyed(node: node.child(key.stringValue).asArray(), codingPath: codingPath + [key])
    }

    func superEncoder() -> any Encoder { Encoding(node: node.child("super"), codingPath: codingPath) }

    func superEncoder(forKey key: Key) -> any Encoder {
      Encoding(node: node.child(key.stringValue), codingPath: codingPath + [key])
    }
  }

  private struct Unkeyed: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.array?.count ?? 0 }

    func encodeNil() throws { node.appended().value = .null }
    func encode(_ value: Bool) throws { node.appended().value = .bool(value) }
    func encode(_ value: String) throws { node.appended().value = .string(value) }
    func encode(_ value: Double) throws { try node.appended().number(value, at: codingPath) }
    func encode(_ value: Float) throws { try node.appended().number(Double(float: value), at: codingPath) }
    func encode(_ value: Int) throws { node.appended().value = .number(Double(value)) }
    func encode<T: Encodable>(_ value: T) throws { try node.appended().encode(value, at: codingPath) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
      KeyedEncodingContainer(Keyed<NestedKey>(node: node.appended().asObject(), codingPath: codingPath))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
      Unkeyed(node: node.appended().asArray(), codingPath: codingPath)
    }

    func superEncoder() -> any Encoder { Encoding(node: node.appended(), codingPath: codingPath) }
  }

  private struct Single: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    func encodeNil() throws { node.value = .null }
    func encode(_ value: Bool) throws { node.value = .bool(value) }
    func encode(_ value: String) throws { node.value = .string(value) }
    func encode(_ value: Double) throws { try node.number(value, at: codingPath) }
    func encode(_ value: Float) throws { try node.number(Double(float: value), at: codingPath) }
    func encode(_ value: Int) throws { node.value = .number(Double(value)) }
    func encode<T: Encodable>(_ value: T) throws { try node.encode(value, at: codingPath) }
  }
}

extension Double {
  /// `value` as `JSONEncoder` writes it (its shortest form, `0.1`) and reading that back gives,
  /// which is not `Double(value)` (`0.10000000149011612`). Not finite, it stays so.
  fileprivate init(float value: Float) {
    self = value.isFinite ? Double(value.description) ?? Double(value) : Double(value)
  }
}

extension JSONValue {
  /// Whether every number in this value is finite, as `JSONEncoder` requires.
  fileprivate var numbersAreFinite: Bool {
    switch self {
    case .number(let number): number.isFinite
    case .array(let items): items.allSatisfy(\.numbersAreFinite)
    case .object(let fields): fields.values.allSatisfy(\.numbersAreFinite)
    default: true
    }
  }
}
