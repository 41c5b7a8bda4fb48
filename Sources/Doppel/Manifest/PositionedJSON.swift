/// A JSON value that remembers where it was written, so that a manifest error can point at the
/// exact line and column. Object members keep their order.
package struct PositionedJSON: Sendable {
  package enum Value: Sendable {
    case null
    case bool(Bool)
    /// The number's value and its literal text, kept so it is served as written.
    case number(Double, literal: String)
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

  package let value: Value
  /// The UTF-8 offset of the value's first byte in the document.
  package let offset: Int

  /// What the value is, for messages: `a string "200"`, `an object`, `null`.
  package var kind: String {
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .number(_, let literal): return "the number \(literal)"
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
    case .number(let number, _): return .number(number)
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

  private func write(to output: inout String) {
    switch value {
    case .null: output += "null"
    case .bool(let flag): output += flag ? "true" : "false"
    case .number(_, let literal): output += literal
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
    output += "\""
  }
}
