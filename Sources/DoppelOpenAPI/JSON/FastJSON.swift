#if OpenAPI
  import Doppel

  /// Parses the JSON body of a message being checked straight into a ``JSONTape``, for the common
  /// case: ASCII, well formed, no key twice in an object, nested at most 512 deep.
  ///
  /// It gives up (returns `nil`) on anything else, and the caller then parses with the positioned
  /// parser, which says what is wrong and where. So a body gets exactly the value (or the error) the
  /// positioned parser would give, and the bodies every test sends cost one pass with no positions.
  package struct FastJSON {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    private var nodes: [JSONTape.Node] = []
    /// The hashes of the keys of the objects being read, innermost last.
    private var keyHashes: [UInt64] = []

    /// The body as a ``JSONValue``.
    package static func parse(_ bytes: [UInt8]) -> JSONValue? {
      tape(bytes).map { $0.value(0) }
    }

    /// The body laid out for the checker (see ``JSONTape``).
    package static func tape(_ bytes: [UInt8]) -> JSONTape? {
      let nodes = bytes.withUnsafeBufferPointer { buffer -> [JSONTape.Node]? in
        var parser = FastJSON(bytes: buffer)
        // A node per eight bytes is about what bodies of objects with short values need.
        parser.nodes.reserveCapacity(buffer.count / 8 + 4)
        parser.skipWhitespace()
        guard parser.value() else { return nil }
        parser.skipWhitespace()
        return parser.index == buffer.count ? parser.nodes : nil
      }
      guard let nodes else { return nil }
      var tape = JSONTape()
      tape.nodes = nodes
      tape.bytes = bytes
      return tape
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

    private mutating func value() -> Bool {
      guard let byte = peek else { return false }
      switch byte {
      case UInt8(ascii: "{"): return container(.object)
      case UInt8(ascii: "["): return container(.array)
      case UInt8(ascii: "\""): return string(key: false)
      case UInt8(ascii: "t"): return literal("true", .bool, true)
      case UInt8(ascii: "f"): return literal("false", .bool, false)
      case UInt8(ascii: "n"): return literal("null", .null, false)
      default: return number()
      }
    }

    /// An object or an array, from its opening bracket: its node, then its members' or items'.
    private mutating func container(_ kind: JSONTape.Kind) -> Bool {
      depth += 1
      defer { depth -= 1 }
      guard depth <= 512 else { return false }
      let isObject = kind == .object
      let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
      index += 1
      let start = nodes.count
      nodes.append(JSONTape.Node(kind: kind, flag: false, first: 0, second: 0, payload: 0))
      var count = 0
      skipWhitespace()
      if peek == close {
        index += 1
        nodes[start].first = nodes.count
        return true
      }
      let firstHash = keyHashes.count
      while true {
        skipWhitespace()
        if isObject {
          guard peek == UInt8(ascii: "\""), string(key: true) else { return false }
          keyHashes.append(nodes[nodes.count - 1].payload)
          skipWhitespace()
          guard peek == UInt8(ascii: ":") else { return false }
          index += 1
          skipWhitespace()
        }
        guard value() else { return false }
        count += 1
        skipWhitespace()
        switch peek {
        case UInt8(ascii: ","): index += 1
        case close:
          index += 1
          nodes[start].first = nodes.count
          nodes[start].second = count
          guard isObject else { return true }
          // A key written twice is an error the positioned parser reports (as is, rarely, two
          // keys with the same hash: left to it too, which is always right).
          defer { keyHashes.removeLast(count) }
          return !hasRepeatedHash(from: firstHash)
        default: return false
        }
      }
    }

    /// Whether two of the key hashes from `first` on are the same.
    private func hasRepeatedHash(from first: Int) -> Bool {
      let count = keyHashes.count - first
      if count < 2 { return false }
      return keyHashes.withUnsafeBufferPointer { all in
        let hashes = UnsafeBufferPointer(rebasing: all[first...])
        if count <= 32 {
          for index in 1..<count {
            let hash = hashes[index]
            for other in 0..<index where hashes[other] == hash { return true }
          }
          return false
        }
        var seen = Set<UInt64>(minimumCapacity: count)
        for hash in hashes where !seen.insert(hash).inserted { return true }
        return false
      }
    }

    /// A string without escapes; anything else is left to the positioned parser. A key gets its
    /// hash.
    private mutating func string(key: Bool) -> Bool {
      index += 1
      let start = index
      var hash = JSONTape.hashSeed
      while index < bytes.count {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") { break }
        // Escapes, control characters and non-ASCII text go the careful way.
        if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return false }
        // Only keys are hashed (a value's loop has no multiplication to wait for).
        if key { hash = JSONTape.hash(hash, byte) }
        index += 1
      }
      guard index < bytes.count else { return false }
      nodes.append(JSONTape.Node(kind: .string, flag: true, first: start, second: index, payload: key ? hash : 0))
      index += 1
      return true
    }

    private mutating func literal(_ word: StaticString, _ kind: JSONTape.Kind, _ flag: Bool) -> Bool {
      let count = word.utf8CodeUnitCount
      guard index + count <= bytes.count else { return false }
      for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
      index += count
      nodes.append(JSONTape.Node(kind: kind, flag: flag, first: 0, second: 0, payload: 0))
      return true
    }

    /// 10^0 through 10^15, each exact in a Double.
    private static let powersOfTen: [Double] = (0...15).map { exponent in
      (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    /// A number as JSON writes it (the positioned parser's rules); its value as `Double` reads it.
    private mutating func number() -> Bool {
      let start = index
      func digits() -> Int {
        let first = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        return index - first
      }
      let negative = peek == UInt8(ascii: "-")
      if negative { index += 1 }
      let integerStart = index
      let integerDigits = digits()
      guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return false }
      var fractionDigits = 0
      var exponent = false
      if peek == UInt8(ascii: ".") {
        index += 1
        fractionDigits = digits()
        guard fractionDigits > 0 else { return false }
      }
      if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
        index += 1
        if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { return false }
        exponent = true
      }
      let value: Double
      if !exponent && integerDigits + fractionDigits <= 15 {
        // At most 15 digits are exact in a Double, as is a power of ten up to 10^22, so one
        // division rounds correctly: the value `Double(_:)` reads, without making text for it.
        var magnitude = 0
        for offset in integerStart..<index where bytes[offset] != UInt8(ascii: ".") {
          magnitude = magnitude * 10 + Int(bytes[offset] &- 0x30)
        }
        let unsigned = Double(magnitude) / Self.powersOfTen[fractionDigits]
        value = negative ? -unsigned : unsigned
      } else {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        value = Double(text) ?? .nan
      }
      nodes.append(JSONTape.Node(kind: .number, flag: false, first: 0, second: 0, payload: value.bitPattern))
      return true
    }
  }
#endif
