import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A coding key for any JSON object key, so each HAR object can read the keys it knows and keep
/// every other one.
struct HARKey: CodingKey, Hashable {
  let stringValue: String
  let intValue: Int?

  init(_ string: String) {
    stringValue = string
    intValue = nil
  }

  init?(stringValue: String) { self.init(stringValue) }

  init?(intValue: Int) {
    stringValue = String(intValue)
    self.intValue = intValue
  }
}

extension KeyedDecodingContainer where K == HARKey {
  /// A field the HAR object must have.
  func required<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T {
    try decode(T.self, forKey: HARKey(key))
  }

  /// A field the HAR object may leave out (or set to `null`).
  func optional<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T? {
    try decodeIfPresent(T.self, forKey: HARKey(key))
  }

  /// Every field not in `known`, kept as JSON so that a rewrite preserves it.
  func extra(excluding known: Set<String>) throws -> [String: JSONValue] {
    var extra: [String: JSONValue] = [:]
    for key in allKeys where !known.contains(key.stringValue) {
      extra[key.stringValue] = try decode(JSONValue.self, forKey: key)
    }
    return extra
  }
}

extension KeyedEncodingContainer where K == HARKey {
  mutating func encode<T: Encodable>(_ value: T, for key: String) throws {
    try encode(value, forKey: HARKey(key))
  }

  mutating func encodeIfPresent<T: Encodable>(_ value: T?, for key: String) throws {
    try encodeIfPresent(value, forKey: HARKey(key))
  }

  /// Writes the kept fields; a kept field never replaces a known one.
  mutating func encode(extra: [String: JSONValue], known: Set<String>) throws {
    for (key, value) in extra where !known.contains(key) {
      try encode(value, forKey: HARKey(key))
    }
  }
}
