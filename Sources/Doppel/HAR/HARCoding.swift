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

/// Turns a decoding failure into a message that names the file, the JSON path of the fault, and
/// the fix.
enum HARDecodingFailure {
  static func message(_ error: any Error, file: String) -> String {
    guard let error = error as? DecodingError else {
      return "\(file): could not be read as HAR: \(error). Check that it is a complete HAR 1.2 export."
    }
    switch error {
    case .keyNotFound(let key, let context):
      let place = path(context.codingPath)
      return
        "\(file): \(place.isEmpty ? "the top level" : place) has no \"\(key.stringValue)\", which HAR 1.2 requires. Add it, or export the capture again."
    case .typeMismatch(let type, let context):
      return
        "\(file): \(path(context.codingPath)) should be \(describe(type)). Fix the value, or export the capture again."
    case .valueNotFound(let type, let context):
      return
        "\(file): \(path(context.codingPath)) is null but should be \(describe(type)). Fix the value, or export the capture again."
    case .dataCorrupted(let context):
      if context.codingPath.isEmpty {
        return
          "\(file): is not valid JSON. A HAR file is one JSON document; check that the export finished and that the file was not cut short."
      }
      return "\(file): \(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
      return "\(file): could not be read as HAR: \(error)."
    }
  }

  /// `log.entries[3].response.content.encoding`.
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

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: return "a string"
    case is Int.Type, is Double.Type: return "a number"
    case is Bool.Type: return "true or false"
    case is [Any].Type: return "an array"
    default:
      let name = String(describing: type)
      if name.hasPrefix("Array") { return "an array" }
      return "an object"
    }
  }
}
