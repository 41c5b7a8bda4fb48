#if OpenAPI
  import Doppel

  /// Parses the JSON body of a message being checked straight into a ``JSONValue``, for the common
  /// case: ASCII, well formed, no key twice in an object, nested at most 512 deep.
  ///
  /// It gives up (returns `nil`) on anything else, and the caller then parses with the positioned
  /// parser, which says what is wrong and where. So a body gets exactly the value (or the error) the
  /// positioned parser would give, and the bodies every test sends cost one pass with no positions.
  struct FastJSON {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    static func parse(_ bytes: [UInt8]) -> JSONValue? {
      bytes.withUnsafeBufferPointer { buffer in
        var parser = FastJSON(bytes: buffer)
        parser.skipWhitespace()
        guard let value = parser.value() else { return nil }
        parser.skipWhitespace()
        return parser.index == buffer.count ? value : nil
      }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
      while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x09, 0x0A, 0x0D: index += 1
        default: return
        }
      }
    }

    private mutating func value() -> JSONValue? {
      guard let byte = peek else { return nil }
      switch byte {
      case UInt8(ascii: "{"): return object()
      case UInt8(ascii: "["): return array()
      case UInt8(ascii: "\""): return string().map(JSONValue.string)
      case UInt8(ascii: "t"): return literal("true", .bool(true))
      case UInt8(ascii: "f"): return literal("false", .bool(false))
      case UInt8(ascii: "n"): return literal("null", .null)
      default: return number()
      }
    }

    private mutating func object() -> JSONValue? {
      depth += 1
      defer { depth -= 1 }
      guard depth <= 512 else { return nil }
      index += 1
      var members = [String: JSONValue](minimumCapacity: 16)
      skipWhitespace()
      if peek == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      while true {
        skipWhitespace()
        guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { return nil }
        index += 1
        skipWhitespace()
        guard let member = value() else { return nil }
        // A key written twice is an error the positioned parser reports.
        guard members.updateValue(member, forKey: key) == nil else { return nil }
        skipWhitespace()
        switch peek {
        case UInt8(ascii: ","): index += 1
        case UInt8(ascii: "}"):
          index += 1
          return .object(members)
        default: return nil
        }
      }
    }

    private mutating func array() -> JSONValue? {
      depth += 1
      defer { depth -= 1 }
      guard depth <= 512 else { return nil }
      index += 1
      var items: [JSONValue] = []
      skipWhitespace()
      if peek == UInt8(ascii: "]") {
        index += 1
        return .array(items)
      }
      while true {
        skipWhitespace()
        guard let item = value() else { return nil }
        items.append(item)
        skipWhitespace()
        switch peek {
        case UInt8(ascii: ","): index += 1
        case UInt8(ascii: "]"):
          index += 1
          return .array(items)
        default: return nil
        }
      }
    }

    /// A string without escapes; anything else is left to the positioned parser.
    private mutating func string() -> String? {
      index += 1
      let start = index
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") {
          let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
          index += 1
          return text
        }
        // Escapes, control characters and non-ASCII text go the careful way.
        if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return nil }
        index += 1
      }
      return nil
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count else { return nil }
      for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
      index += count
      return value
    }

    /// A number as JSON writes it (the positioned parser's rules); its value as `Double` reads it.
    private mutating func number() -> JSONValue? {
      let start = index
      func digits() -> Int {
        let first = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        return index - first
      }
      if peek == UInt8(ascii: "-") { index += 1 }
      let integerStart = index
      let integerDigits = digits()
      guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
      if peek == UInt8(ascii: ".") {
        index += 1
        guard digits() > 0 else { return nil }
      }
      if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
        index += 1
        if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { return nil }
      }
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      return .number(Double(text) ?? .nan)
    }
  }
#endif
