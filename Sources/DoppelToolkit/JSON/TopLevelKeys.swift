import Foundation

/// The keys of a JSON document's top-level object, read without reading the values: what tells
/// an OpenAPI document (`openapi`), a GraphQL introspection result (`__schema`, or one under
/// `data`) and a manifest apart, for `doppel serve` and `doppel lint`, which used to parse a whole
/// manifest of megabytes twice for it.
package enum TopLevelKeys {
  /// The top-level object's keys, and those of the object under `nested` (when there is one);
  /// `nil` when the document does not start with an object or stops before it ends. Values are
  /// skipped, not checked: a document that is not JSON further in is the reader's to refuse.
  package static func read(_ data: Data, nested: String? = nil) -> (keys: Set<String>, nestedKeys: Set<String>)? {
    let bytes = [UInt8](data)
    var index = 0
    skipSpace(bytes, &index)
    // A UTF-8 byte order mark, as the manifest reader allows.
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
      index = 3
      skipSpace(bytes, &index)
    }
    var nestedKeys: Set<String> = []
    guard
      let keys = objectKeys(
        bytes, &index,
        onValue: { key, bytes, index in
          guard key == nested else { return skipValue(bytes, &index) }
          skipSpace(bytes, &index)
          guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return skipValue(bytes, &index) }
          guard let inner = objectKeys(bytes, &index, onValue: { _, bytes, index in skipValue(bytes, &index) })
          else { return false }
          nestedKeys = inner
          return true
        })
    else { return nil }
    return (keys, nestedKeys)
  }

  /// The keys of the object at `index` (white space before it skipped), each value handed to
  /// `onValue`, which moves past it (false when it cannot).
  private static func objectKeys(
    _ bytes: [UInt8], _ index: inout Int, onValue: (String, [UInt8], inout Int) -> Bool
  ) -> Set<String>? {
    skipSpace(bytes, &index)
    guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
    index += 1
    var keys: Set<String> = []
    while true {
      skipSpace(bytes, &index)
      guard index < bytes.count else { return nil }
      if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return keys
      }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
        continue
      }
      guard bytes[index] == UInt8(ascii: "\""), let key = string(bytes, &index) else { return nil }
      keys.insert(key)
      skipSpace(bytes, &index)
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
      index += 1
      guard onValue(key, bytes, &index) else { return nil }
    }
  }

  /// The string starting at `index` (its opening quote), decoded; `index` moves past it.
  private static func string(_ bytes: [UInt8], _ index: inout Int) -> String? {
    let start = index
    guard let escaped = skipString(bytes, &index) else { return nil }
    let raw = bytes[start..<index]
    guard escaped else { return String(decoding: raw.dropFirst().dropLast(), as: UTF8.self) }
    // A key written with escapes (`"open\u0061pi"`): decoded as JSON decodes it.
    return try? JSONDecoder().decode(String.self, from: Data(raw))
  }

  /// Moves `index` past the string starting at it (its opening quote): whether it holds an
  /// escape, or `nil` when it does not end.
  private static func skipString(_ bytes: [UInt8], _ index: inout Int) -> Bool? {
    index += 1
    var escaped = false
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if byte == UInt8(ascii: "\\") {
        escaped = true
        index += 1
      } else if byte == UInt8(ascii: "\"") {
        return escaped
      }
    }
    return nil
  }

  /// Moves `index` past one value (any nesting of objects, arrays and strings).
  private static func skipValue(_ bytes: [UInt8], _ index: inout Int) -> Bool {
    skipSpace(bytes, &index)
    var depth = 0
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: "\""):
        guard skipString(bytes, &index) != nil else { return false }
        if depth == 0 { return true }
        continue
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        depth += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if depth == 0 { return true }
        depth -= 1
        if depth == 0 {
          index += 1
          return true
        }
      case UInt8(ascii: ","):
        if depth == 0 { return true }
      default:
        break
      }
      index += 1
    }
    return depth == 0
  }

  private static func skipSpace(_ bytes: [UInt8], _ index: inout Int) {
    while index < bytes.count,
      bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
    {
      index += 1
    }
  }
}
