import Foundation

/// A strict JSON reader (RFC 8259) that records where each value and key starts.
///
/// `JSONSerialization` and `JSONDecoder` do not say where a value was written; manifest errors
/// must, so the manifest is read with this small recursive-descent parser instead.
package struct PositionedJSONParser {
  /// A syntax error: what is wrong, and the UTF-8 offset where it was found.
  package struct SyntaxError: Error, Sendable {
    package let message: String
    package let offset: Int
  }

  /// Arrays and objects nested deeper than this are refused instead of overflowing the stack.
  package static let maximumDepth = 512

  /// The document, for messages.
  private let bytes: [UInt8]
  /// The same bytes, read without a bounds check per byte: every read is behind `index < count`.
  private let buffer: UnsafeBufferPointer<UInt8>
  private var index = 0
  private var depth = 0
  /// Reused for strings with escapes, so decoding one allocates only the result.
  private var scratch: [UInt8] = []
  /// The members (and elements) of the objects (and arrays) being read, innermost last: each
  /// container collects its own above the enclosing ones' and leaves as one array of exactly its
  /// size, instead of an array regrown member by member.
  private var memberStack: [PositionedJSON.Member] = []
  private var itemStack: [PositionedJSON] = []

  /// Set when values of some keys are deferred: the document their stand-ins build them from.
  private let document: DeferredJSONDocument?
  /// `false` while a deferred value is checked: it is read as strictly, but nothing is built.
  private var building = true

  private init(_ bytes: [UInt8], buffer: UnsafeBufferPointer<UInt8>, document: DeferredJSONDocument?) {
    self.bytes = bytes
    self.buffer = buffer
    self.document = document
  }

  /// Objects with up to this many members look for a repeated key by comparing with each earlier
  /// key; larger ones keep a dictionary.
  private static let linearKeyCheckLimit = 16

  /// Parses a whole document: one value, surrounded by optional white space. A UTF-8 byte order
  /// mark at the start is skipped.
  ///
  /// An object or array that is the value of a key in `deferredKeys` (such as a response's
  /// inline `"json"` body) is checked as strictly as the rest, but its tree is built only when
  /// its ``PositionedJSON/value`` is first read: a manifest of many large bodies, which are
  /// mostly copied as text (``PositionedJSON/compactText(in:)``), is read without building a node
  /// per value of every body.
  package static func parse(
    _ bytes: [UInt8], whenEmpty: String = "the file is empty; a manifest is a JSON object such as {\"stubs\": []}",
    deferring deferredKeys: [String] = []
  ) throws(SyntaxError) -> PositionedJSON {
    let document = deferredKeys.isEmpty ? nil : DeferredJSONDocument(bytes: bytes, keys: deferredKeys)
    let result = bytes.withUnsafeBufferPointer { buffer -> Result<PositionedJSON, SyntaxError> in
      var parser = PositionedJSONParser(bytes, buffer: buffer, document: document)
      return Result { () throws(SyntaxError) in try parser.parseDocument(whenEmpty: whenEmpty) }
    }
    return try result.get()
  }

  /// Builds the deferred value at `offset` of `document`, which was checked when the document
  /// was parsed.
  static func deferredValue(at offset: Int, in document: DeferredJSONDocument) -> PositionedJSON.Value {
    document.bytes.withUnsafeBufferPointer { buffer in
      var parser = PositionedJSONParser(document.bytes, buffer: buffer, document: document)
      parser.index = offset
      // The value parsed once already, so this cannot fail; `null` stands in if it ever did.
      return (try? parser.parseValue())?.value ?? .null
    }
  }

  private mutating func parseDocument(whenEmpty: String) throws(SyntaxError) -> PositionedJSON {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    skipWhitespace()
    guard index < buffer.count else {
      throw SyntaxError(message: whenEmpty, offset: 0)
    }
    let value = try parseValue()
    skipWhitespace()
    if index < buffer.count {
      throw error("unexpected \(found) after the end of the JSON value")
    }
    return value
  }

  // MARK: Values

  private mutating func parseValue() throws(SyntaxError) -> PositionedJSON {
    guard let byte = peek else { throw error("the file ends where a value was expected") }
    let start = index
    switch byte {
    case UInt8(ascii: "{"): return PositionedJSON(value: try parseObject(), offset: start)
    case UInt8(ascii: "["): return PositionedJSON(value: try parseArray(), offset: start)
    case UInt8(ascii: "\""): return PositionedJSON(value: .string(try parseString(keeping: building)), offset: start)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      return PositionedJSON(value: try parseNumber(), offset: start)
    case UInt8(ascii: "t"):
      try expectLiteral("true")
      return PositionedJSON(value: .bool(true), offset: start)
    case UInt8(ascii: "f"):
      try expectLiteral("false")
      return PositionedJSON(value: .bool(false), offset: start)
    case UInt8(ascii: "n"):
      try expectLiteral("null")
      return PositionedJSON(value: .null, offset: start)
    case UInt8(ascii: "'"):
      throw error("strings must be in double quotes, not single quotes")
    default:
      throw error("expected a value (an object, array, string, number, true, false or null), found \(found)")
    }
  }

  private mutating func parseObject() throws(SyntaxError) -> PositionedJSON.Value {
    try enterNesting()
    defer { depth -= 1 }
    index += 1  // {
    let base = memberStack.count
    defer { memberStack.removeLast(memberStack.count - base) }
    // Filled only once the object outgrows the linear check.
    var seen: [String: Int] = [:]
    skipWhitespace()
    if peek == UInt8(ascii: "}") {
      index += 1
      return .object([])
    }
    while true {
      skipWhitespace()
      guard peek == UInt8(ascii: "\"") else {
        if peek == UInt8(ascii: "}") && memberStack.count > base {
          throw error("expected a key after \",\", found \"}\"; JSON does not allow a trailing comma")
        }
        throw error("expected a key in double quotes, found \(found)")
      }
      let keyOffset = index
      let key = try parseString(keeping: true)
      if let first = earlierOffset(of: key, at: keyOffset, from: base, seen: &seen) {
        let position = TextPosition(offset: first, in: bytes)
        throw SyntaxError(
          message: "the key \"\(key)\" appears twice in this object (first at \(position)); keep one", offset: keyOffset
        )
      }
      skipWhitespace()
      guard peek == UInt8(ascii: ":") else {
        throw error("expected \":\" after the key \"\(key)\", found \(found)")
      }
      index += 1
      skipWhitespace()
      let value: PositionedJSON
      if building, let document, peek == UInt8(ascii: "{") || peek == UInt8(ascii: "["), document.keys.contains(key) {
        let start = index
        building = false
        _ = try parseValue()
        building = true
        value = PositionedJSON(offset: start, deferredIn: document)
      } else {
        value = try parseValue()
      }
      // Also while not building: the keys are needed to refuse a repeated one.
      memberStack.append(PositionedJSON.Member(key: key, keyOffset: keyOffset, value: value))
      skipWhitespace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return building ? .object(Array(memberStack[base...])) : .null
      case nil: throw error("the file ends inside an object; a \"}\" is missing")
      default: throw error("expected \",\" or \"}\" after the value of \"\(key)\", found \(found)")
      }
    }
  }

  /// Where `key` was written earlier in the object whose members start at `base` in the member
  /// stack, if it was; otherwise notes it at `offset`. Small objects compare with each earlier
  /// key; from ``linearKeyCheckLimit`` members on, `seen` indexes them all.
  private func earlierOffset(of key: String, at offset: Int, from base: Int, seen: inout [String: Int]) -> Int? {
    let members = memberStack[base...]
    if members.count < Self.linearKeyCheckLimit {
      for member in members where member.key == key { return member.keyOffset }
      return nil
    }
    if seen.isEmpty {
      for member in members { seen[member.key] = member.keyOffset }
    }
    if let first = seen[key] { return first }
    seen[key] = offset
    return nil
  }

  private mutating func parseArray() throws(SyntaxError) -> PositionedJSON.Value {
    try enterNesting()
    defer { depth -= 1 }
    index += 1  // [
    let base = itemStack.count
    defer { itemStack.removeLast(itemStack.count - base) }
    skipWhitespace()
    if peek == UInt8(ascii: "]") {
      index += 1
      return .array([])
    }
    while true {
      skipWhitespace()
      if peek == UInt8(ascii: "]") {
        throw error("expected a value after \",\", found \"]\"; JSON does not allow a trailing comma")
      }
      let item = try parseValue()
      if building { itemStack.append(item) }
      skipWhitespace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return building ? .array(Array(itemStack[base...])) : .null
      case nil: throw error("the file ends inside an array; a \"]\" is missing")
      default: throw error("expected \",\" or \"]\" after an array element, found \(found)")
      }
    }
  }

  private mutating func enterNesting() throws(SyntaxError) {
    depth += 1
    if depth > Self.maximumDepth {
      throw error("arrays and objects are nested more than \(Self.maximumDepth) deep")
    }
  }

  // MARK: Strings

  /// A string; when not `keeping` it, only checked (and `""` returned).
  private mutating func parseString(keeping: Bool) throws(SyntaxError) -> String {
    let start = index
    index += 1  // "
    // Most strings have no escape: one decode of the bytes between the quotes. Those with escapes
    // are assembled as UTF-8 in `scratch`, then decoded once.
    var escaped = false
    var runStart = index
    while index < buffer.count {
      let byte = buffer[index]
      if byte == UInt8(ascii: "\"") {
        defer { index += 1 }
        guard keeping else { return "" }
        guard escaped else { return text(runStart..<index) }
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index]))
        return String(decoding: scratch, as: UTF8.self)
      } else if byte == UInt8(ascii: "\\") {
        if !escaped {
          escaped = true
          scratch.removeAll(keepingCapacity: true)
        }
        if keeping { scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index])) }
        if index + 1 < buffer.count, let simple = Self.simpleEscape(buffer[index + 1]) {
          // \" \\ \n and the like, the most frequent by far, without the general path.
          if keeping { scratch.append(simple) }
          index += 2
        } else {
          let scalar = try parseEscape()
          if keeping { appendUTF8(scalar) }
        }
        runStart = index
      } else if byte < 0x20 {
        let name = byte == 0x0A ? "a line break" : byte == 0x09 ? "a tab" : "the control character U+00\(hex(byte))"
        throw error("\(name) inside a string; write it as an escape (\\n, \\t, \\u00XX), or close the string")
      } else {
        index += 1
      }
    }
    throw SyntaxError(message: "the string that starts here has no closing \"", offset: start)
  }

  /// The byte a one-letter escape (`\n`, `\"`…) stands for, or `nil` for `\u` and invalid ones.
  private static func simpleEscape(_ letter: UInt8) -> UInt8? {
    switch letter {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
    case UInt8(ascii: "b"): 0x08
    case UInt8(ascii: "f"): 0x0C
    case UInt8(ascii: "n"): 0x0A
    case UInt8(ascii: "r"): 0x0D
    case UInt8(ascii: "t"): 0x09
    default: nil
    }
  }

  /// Appends the UTF-8 encoding of `scalar` to `scratch`.
  private mutating func appendUTF8(_ scalar: Unicode.Scalar) {
    let value = scalar.value
    switch value {
    case 0..<0x80:
      scratch.append(UInt8(truncatingIfNeeded: value))
    case 0x80..<0x800:
      scratch.append(0xC0 | UInt8(truncatingIfNeeded: value >> 6))
      scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
    case 0x800..<0x10000:
      scratch.append(0xE0 | UInt8(truncatingIfNeeded: value >> 12))
      scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 6) & 0x3F))
      scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
    default:
      scratch.append(0xF0 | UInt8(truncatingIfNeeded: value >> 18))
      scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 12) & 0x3F))
      scratch.append(0x80 | UInt8(truncatingIfNeeded: (value >> 6) & 0x3F))
      scratch.append(0x80 | UInt8(truncatingIfNeeded: value & 0x3F))
    }
  }

  /// The bytes in `range` as text (the document was checked to be UTF-8).
  private func text(_ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self)
  }

  private mutating func parseEscape() throws(SyntaxError) -> Unicode.Scalar {
    let start = index
    index += 1  // backslash
    guard let byte = peek else { throw error("the file ends inside a string escape") }
    index += 1
    switch byte {
    case UInt8(ascii: "\""): return "\""
    case UInt8(ascii: "\\"): return "\\"
    case UInt8(ascii: "/"): return "/"
    case UInt8(ascii: "b"): return "\u{08}"
    case UInt8(ascii: "f"): return "\u{0C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      let first = try parseHex4(escapeStart: start)
      if (0xD800...0xDBFF).contains(first) {
        guard peek == UInt8(ascii: "\\"), index + 1 < buffer.count, buffer[index + 1] == UInt8(ascii: "u") else {
          throw SyntaxError(
            message:
              "the escape \\u\(hex16(first)) is the first half of a surrogate pair but no \\uDC00–\\uDFFF follows",
            offset: start)
        }
        let secondStart = index
        index += 2
        let second = try parseHex4(escapeStart: secondStart)
        guard (0xDC00...0xDFFF).contains(second) else {
          throw SyntaxError(
            message: "the escape \\u\(hex16(second)) should be the second half of a surrogate pair (\\uDC00–\\uDFFF)",
            offset: secondStart)
        }
        let value = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        return Unicode.Scalar(value) ?? "\u{FFFD}"
      }
      if (0xDC00...0xDFFF).contains(first) {
        throw SyntaxError(
          message: "the escape \\u\(hex16(first)) is the second half of a surrogate pair without a first half",
          offset: start)
      }
      return Unicode.Scalar(first) ?? "\u{FFFD}"
    default:
      let shown = String(decoding: [byte], as: UTF8.self)
      throw SyntaxError(
        message: "\\\(shown) is not a JSON escape; use \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\uXXXX",
        offset: start)
    }
  }

  private mutating func parseHex4(escapeStart: Int) throws(SyntaxError) -> UInt16 {
    var value: UInt16 = 0
    for _ in 0..<4 {
      guard let byte = peek, let digit = Self.hexValue(byte) else {
        throw SyntaxError(message: "\\u must be followed by four hexadecimal digits", offset: escapeStart)
      }
      value = value << 4 | UInt16(digit)
      index += 1
    }
    return value
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  // MARK: Numbers and literals

  private mutating func parseNumber() throws(SyntaxError) -> PositionedJSON.Value {
    let start = index
    func digits() -> Int {
      let first = index
      while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
      return index - first
    }
    if peek == UInt8(ascii: "-") { index += 1 }
    let integerStart = index
    let integerDigits = digits()
    guard integerDigits > 0 else { throw invalidNumber(start) }
    if integerDigits > 1 && buffer[integerStart] == UInt8(ascii: "0") {
      throw SyntaxError(message: "a number cannot start with 0 followed by more digits", offset: start)
    }
    if peek == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { throw invalidNumber(start) }
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      index += 1
      if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
      guard digits() > 0 else { throw invalidNumber(start) }
    }
    return building ? .number(text(start..<index)) : .null
  }

  private mutating func invalidNumber(_ start: Int) -> SyntaxError {
    while let byte = peek, !Self.isDelimiter(byte) { index += 1 }
    let text = String(decoding: bytes[start..<index], as: UTF8.self)
    return SyntaxError(
      message: "\"\(text)\" is not a JSON number (for example 12, -3.5 or 1e3)", offset: start)
  }

  private mutating func expectLiteral(_ literal: String) throws(SyntaxError) {
    let start = index
    for byte in literal.utf8 {
      guard peek == byte else {
        while let byte = peek, !Self.isDelimiter(byte) { index += 1 }
        let word = String(decoding: bytes[start..<max(index, start + 1)], as: UTF8.self)
        throw SyntaxError(
          message:
            "\"\(word)\" is not a JSON value; strings need double quotes, and the literals are true, false and null",
          offset: start)
      }
      index += 1
    }
    if let byte = peek, !Self.isDelimiter(byte) {
      index = start
      while let byte = peek, !Self.isDelimiter(byte) { index += 1 }
      let word = String(decoding: bytes[start..<index], as: UTF8.self)
      throw SyntaxError(
        message:
          "\"\(word)\" is not a JSON value; strings need double quotes, and the literals are true, false and null",
        offset: start)
    }
  }

  // MARK: Helpers

  private var peek: UInt8? { index < buffer.count ? buffer[index] : nil }

  private mutating func skipWhitespace() {
    while index < buffer.count {
      switch buffer[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
      default: return
      }
    }
  }

  private static func isDelimiter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: ","),
      UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"), UInt8(ascii: "\""):
      true
    default: false
    }
  }

  /// What is at the current position, for messages: `"}"`, `the end of the file`.
  private var found: String {
    guard index < bytes.count else { return "the end of the file" }
    var end = index + 1
    while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
    let text = String(decoding: bytes[index..<end], as: UTF8.self)
    switch text {
    case "\n", "\r": return "a line break"
    case "\t": return "a tab"
    default: return "\"\(text)\""
    }
  }

  private func error(_ message: String) -> SyntaxError { SyntaxError(message: message, offset: index) }

  private func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return digits.count == 1 ? "0" + digits : digits
  }

  private func hex16(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
  }
}
