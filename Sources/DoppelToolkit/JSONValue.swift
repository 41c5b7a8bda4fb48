import Foundation

/// A JSON document as a value, written with Swift literals:
/// `["sku": "A1", "quantity": 2, "gift": false, "tags": ["new"]]`.
///
/// Numbers compare by value (`2 == 2.0`); object keys compare regardless of order.
public enum JSONValue: Sendable, Hashable, CustomStringConvertible, Codable,
  ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByStringLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByNilLiteral
{
  /// `null`
  case null
  /// `true` or `false`
  case bool(Bool)
  /// A number.
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object.
  case object([String: JSONValue])

  /// Creates an object from a literal.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
  }
  /// Creates an array from a literal.
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  /// Creates a string from a literal.
  public init(stringLiteral value: String) { self = .string(value) }
  /// Creates a number from a literal.
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  /// Creates a number from a literal.
  public init(floatLiteral value: Double) { self = .number(value) }
  /// Creates a Boolean from a literal.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// Creates `null`.
  public init(nilLiteral: ()) { self = .null }

  /// Parses JSON bytes.
  public init(parsing data: Data) throws {
    try Self.checkNesting(data)
    self = try JSONDecoder().decode(JSONValue.self, from: data)
  }

  /// The deepest nesting of arrays and objects ``init(parsing:)`` reads: Foundation's own limit.
  static let maximumNesting = 512

  /// Throws for JSON that nests arrays and objects deeper than ``maximumNesting``. Foundation's
  /// decoder (swift-corelibs-foundation, Swift 6.3.1) crashes on such input instead of throwing,
  /// and this initializer reads bodies that come from outside: requests to the stub server and
  /// its admin API, cassettes, WebSocket messages.
  private static func checkNesting(_ data: Data) throws {
    var depth = 0
    var inString = false
    var escaped = false
    for byte in data {
      if inString {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""): inString = true
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        depth += 1
        if depth > maximumNesting {
          throw DecodingError.dataCorrupted(
            DecodingError.Context(
              codingPath: [],
              debugDescription:
                "The JSON nests arrays and objects more than \(maximumNesting) deep. Flatten it."))
        }
      case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
      default: break
      }
    }
  }

  /// Converts any `Encodable` value through `encoder`.
  public init<T: Encodable>(encoding value: T, encoder: JSONEncoder = JSONEncoder()) throws {
    self = try JSONValue(parsing: encoder.encode(value))
  }

  /// Decodes any JSON value.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// Encodes the value as JSON.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value):
      // A whole number is written as an integer up to 64 bits (a typed client decoding an int64
      // bound must not meet `9.223372036854776e+18`); beyond, in floating-point form.
      if value.rounded() == value, value >= -0x1p63, value < 0x1p63 {
        try container.encode(Int64(value))
      } else if value.rounded() == value, value >= 0, value < 0x1p64 {
        try container.encode(UInt64(value))
      } else {
        try container.encode(value)
      }
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// Compact JSON with sorted keys.
  public var description: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "<unencodable>"
  }

  /// Whether every part of `subset` is in this value: objects may have extra keys (recursively);
  /// arrays must have the same length with each element containing the subset's element; other
  /// values must be equal.
  public func contains(_ subset: JSONValue) -> Bool {
    switch (self, subset) {
    case (.object(let whole), .object(let part)):
      return part.allSatisfy { key, value in whole[key].map { $0.contains(value) } ?? false }
    case (.array(let whole), .array(let part)):
      return whole.count == part.count && zip(whole, part).allSatisfy { $0.contains($1) }
    default:
      return self == subset
    }
  }
}
