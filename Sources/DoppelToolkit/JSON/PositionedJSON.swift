import Foundation

/// A JSON value that remembers where it was written, so that a manifest error can point at the
/// exact line and column. Object members keep their order.
package struct PositionedJSON: Sendable {
  package enum Value: Sendable {
    case null
    case bool(Bool)
    /// A number's literal text, kept so it is served as written; ``number(_:)`` is its value.
    case number(String)
    case string(String)
    case array([PositionedJSON])
    case object([Member])
  }

  package struct Member: Sendable {
    package let key: String
    /// Where the key's opening quote is.
    package let keyOffset: Int
    package let value: PositionedJSON
  }

  /// The value, built when first read for a deferred one (see
  /// ``PositionedJSONParser/parse(_:whenEmpty:deferring:)``); a deferred value is rebuilt at
  /// each read, so a reader keeps what it reads.
  package var value: Value {
    switch storage {
    case .built(let value): value
    case .deferred(let document): PositionedJSONParser.deferredValue(at: offset, in: document)
    }
  }
  /// The UTF-8 offset of the value's first byte in the document.
  package let offset: Int
  private let storage: Storage

  private enum Storage: Sendable {
    case built(Value)
    case deferred(DeferredJSONDocument)
  }

  package init(value: Value, offset: Int) {
    storage = .built(value)
    self.offset = offset
  }

  /// A stand-in for the object or array at `offset` of `document`, built when read.
  package init(offset: Int, deferredIn document: DeferredJSONDocument) {
    storage = .deferred(document)
    self.offset = offset
  }

  /// The value of a number literal the parser accepted (out-of-range literals are infinite).
  /// Converted when asked for, so a parse does not convert the many numbers nobody reads.
  package static func number(_ literal: String) -> Double { Double(literal) ?? .nan }

  /// What the value is, for messages: `a string "200"`, `an object`, `null`.
  package var kind: String {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .number(let literal): return "the number \(literal)"
    case .string(let text): return "the string \"\(text.count > 40 ? text.prefix(37) + "…" : text)\""
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  /// The value as a ``JSONValue`` (object key order is dropped).
  package var jsonValue: JSONValue {
    switch value {
    case .null: return .null
    case .bool(let flag): return .bool(flag)
    case .number(let literal): return .number(Self.number(literal))
    case .string(let text): return .string(text)
    case .array(let items): return .array(items.map(\.jsonValue))
    case .object(let members):
      return .object(Dictionary(members.map { ($0.key, $0.value.jsonValue) }, uniquingKeysWith: { _, last in last }))
    }
  }

  /// Compact JSON text with members in their written order and numbers as written.
  package var serialized: String {
    var output = ""
    write(to: &output)
    return output
  }

  /// The same text as ``serialized``, copied from `document` (the bytes the value was parsed
  /// from) without the white space between tokens: one pass over the bytes instead of a walk of
  /// the tree. Scalars, and values with an escape in a string (which ``serialized`` writes its own
  /// way), are serialized from the tree.
  package func compactText(in document: [UInt8]) -> String {
    // Told from the first byte, so that a deferred value is not built.
    guard document.indices.contains(offset),
      document[offset] == UInt8(ascii: "{") || document[offset] == UInt8(ascii: "[")
    else { return serialized }
    let copied = document.withUnsafeBufferPointer { buffer -> String? in
      // First where the value ends, and whether a string in it has an escape.
      var depth = 0
      var inString = false
      var end = offset
      scan: while end < buffer.count {
        let byte = buffer[end]
        end += 1
        if inString {
          if byte == UInt8(ascii: "\"") {
            inString = false
          } else if byte == UInt8(ascii: "\\") {
            return nil
          }
          continue
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 { break scan }
        default: break
        }
      }
      guard depth == 0 else { return nil }
      // Then the bytes without the white space outside strings, straight into the string.
      return String(unsafeUninitializedCapacity: end - offset) { output in
        var count = 0
        var inString = false
        for index in offset..<end {
          let byte = buffer[index]
          if byte == UInt8(ascii: "\"") {
            inString.toggle()
          } else if !inString
            && (byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
              || byte == UInt8(ascii: "\t"))
          {
            continue
          }
          output[count] = byte
          count += 1
        }
        return count
      }
    }
    return copied ?? serialized
  }

  private func write(to output: inout String) {
    switch value {
    case .null: output += "null"
    case .bool(let flag): output += flag ? "true" : "false"
    case .number(let literal): output += literal
    case .string(let text): Self.writeString(text, to: &output)
    case .array(let items):
      output += "["
      for (index, item) in items.enumerated() {
        if index > 0 { output += "," }
        item.write(to: &output)
      }
      output += "]"
    case .object(let members):
      output += "{"
      for (index, member) in members.enumerated() {
        if index > 0 { output += "," }
        Self.writeString(member.key, to: &output)
        output += ":"
        member.value.write(to: &output)
      }
      output += "}"
    }
  }

  private static func writeString(_ text: String, to output: inout String) {
    output += "\""
    appendJSONEscaped(text, to: &output)
    output += "\""
  }
}

/// A parsed document whose values of some keys are built only when read: the bytes they are
/// built from, kept alive by the stand-ins (immutable, so safe to share).
final package class DeferredJSONDocument: Sendable {
  package let bytes: [UInt8]
  /// The keys whose object or array values are deferred.
  package let keys: [String]

  package init(bytes: [UInt8], keys: [String]) {
    self.bytes = bytes
    self.keys = keys
  }
}

/// Appends `text` to `output` escaped to stand inside a JSON string (without the quotes): `"`,
/// `\`, newline, return and tab as their short escapes, other control characters as `\u00XX`.
package func appendJSONEscaped(_ text: String, to output: inout String) {
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": output += "\\\""
    case "\\": output += "\\\\"
    case "\n": output += "\\n"
    case "\r": output += "\\r"
    case "\t": output += "\\t"
    case _ where scalar.value < 0x20:
      let hex = String(scalar.value, radix: 16)
      output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    default: output.unicodeScalars.append(scalar)
    }
  }
}
