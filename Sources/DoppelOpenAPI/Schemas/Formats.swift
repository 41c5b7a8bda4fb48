#if OpenAPI
  import Foundation

  /// The `format`s the checker knows. Unknown formats pass, as JSON Schema asks.
  ///
  /// The date, time, uuid, email and ipv4 formats are scanned by hand rather than with regular
  /// expressions: they are checked for every such field of every exchange, and a regular
  /// expression costs microseconds each on Linux.
  enum Formats {
    /// A `format` the checker knows, read once from the schema.
    enum Known: Sendable {
      case dateTime, date, time, uuid, email, uri, ipv4, byte, int32, int64, float

      init?(_ format: String) {
        switch format {
        case "date-time": self = .dateTime
        case "date": self = .date
        case "time": self = .time
        case "uuid": self = .uuid
        case "email": self = .email
        case "uri", "url": self = .uri
        case "ipv4": self = .ipv4
        case "byte": self = .byte
        case "int32": self = .int32
        case "int64": self = .int64
        case "float": self = .float
        default: return nil
        }
      }
    }

    static func string(_ text: String, conformsTo format: String) -> Bool {
      switch format {
      case "date-time": return scan(text) { $0.dateTime() }
      case "date": return scan(text) { $0.date() }
      case "time": return scan(text) { $0.time(offsetRequired: false) }
      case "uuid": return scan(text) { $0.uuid() }
      case "email": return isEmail(text.unicodeScalars)
      case "uri", "url": return scan(text) { $0.uri() }
      case "ipv4": return scan(text) { $0.ipv4() }
      case "byte": return Data(base64Encoded: text) != nil
      default: return true
      }
    }

    /// Whether ASCII text, as its bytes, conforms to `format`; `nil` when only its `String` can
    /// say (``string(_:conformsTo:)``).
    static func ascii(_ bytes: UnsafeBufferPointer<UInt8>, conformsTo format: Known) -> Bool? {
      func scan(_ rule: (inout Scanner) -> Bool) -> Bool {
        var scanner = Scanner(bytes: bytes)
        return rule(&scanner) && scanner.atEnd
      }
      switch format {
      case .dateTime: return scan { $0.dateTime() }
      case .date: return scan { $0.date() }
      case .time: return scan { $0.time(offsetRequired: false) }
      case .uuid: return scan { $0.uuid() }
      case .email: return isEmail(bytes.lazy.map { Unicode.Scalar($0) })
      case .uri: return scan { $0.uri() }
      case .ipv4: return scan { $0.ipv4() }
      case .byte: return nil
      case .int32, .int64, .float: return true
      }
    }

    static func number(_ value: Double, conformsTo format: String) -> Bool {
      switch format {
      case "int32": return value.rounded() == value && value >= Double(Int32.min) && value <= Double(Int32.max)
      case "int64":
        return value.rounded() == value && value >= -9.223_372_036_854_775_808e18
          && value < 9.223_372_036_854_775_808e18
      case "float": return value.isFinite && abs(value) <= Double(Float.greatestFiniteMagnitude)
      default: return true
      }
    }

    /// Whether `rule` consumes the whole of `text`'s UTF-8.
    private static func scan(_ text: String, _ rule: (inout Scanner) -> Bool) -> Bool {
      var text = text
      return text.withUTF8 { bytes in
        var scanner = Scanner(bytes: bytes)
        return rule(&scanner) && scanner.atEnd
      }
    }

    /// `local@domain.tld`: one `@`, something on each side, no white space, and a dot inside the
    /// domain with something on each side of it.
    private static func isEmail(_ scalars: some Sequence<Unicode.Scalar>) -> Bool {
      // One pass over the scalars: no whitespace, exactly one "@" with something before it, and
      // in the domain a dot with something before it and something after it.
      var sawAt = false
      var localIsEmpty = true
      var domainLength = 0
      var dotAfterStart = false
      var valid = false
      for scalar in scalars {
        if scalar.isASCII {
          // Space, tab, line feed, vertical tab, form feed, carriage return.
          if scalar == " " || (0x09...0x0D).contains(scalar.value) { return false }
        } else if scalar.properties.isWhitespace {
          return false
        }
        if scalar == "@" {
          if sawAt || localIsEmpty { return false }
          sawAt = true
          continue
        }
        guard sawAt else {
          localIsEmpty = false
          continue
        }
        if dotAfterStart { valid = true }
        if scalar == ".", domainLength > 0 { dotAfterStart = true }
        domainLength += 1
      }
      return sawAt && valid
    }

    /// Reads ASCII patterns from UTF-8 bytes, front to back.
    private struct Scanner {
      let bytes: UnsafeBufferPointer<UInt8>
      var position = 0

      var atEnd: Bool { position == bytes.count }

      /// The value of `count` ASCII digits, or `nil` (consuming nothing) when they are not there.
      mutating func digits(_ count: Int) -> Int? {
        guard position + count <= bytes.count else { return nil }
        var value = 0
        for offset in 0..<count {
          let byte = bytes[position + offset]
          guard byte >= 0x30, byte <= 0x39 else { return nil }
          value = value * 10 + Int(byte - 0x30)
        }
        position += count
        return value
      }

      /// Consumes `byte` (or, with `alternative`, either) when it is next.
      mutating func take(_ byte: UInt8, or alternative: UInt8? = nil) -> Bool {
        guard position < bytes.count, bytes[position] == byte || bytes[position] == alternative else { return false }
        position += 1
        return true
      }

      /// `2024-02-29`: month 01–12, day 01–31.
      mutating func date() -> Bool {
        guard digits(4) != nil, take(UInt8(ascii: "-")), let month = digits(2), (1...12).contains(month),
          take(UInt8(ascii: "-")), let day = digits(2), (1...31).contains(day)
        else { return false }
        return true
      }

      /// `10:00:00`, fractions of a second, and `Z` or `+02:00` (which `date-time` requires).
      mutating func time(offsetRequired: Bool) -> Bool {
        guard let hour = digits(2), hour <= 23, take(UInt8(ascii: ":")), let minute = digits(2), minute <= 59,
          take(UInt8(ascii: ":")), let second = digits(2), second <= 60
        else { return false }
        if take(UInt8(ascii: ".")) {
          guard digits(1) != nil else { return false }
          while digits(1) != nil {}
        }
        if take(UInt8(ascii: "Z"), or: UInt8(ascii: "z")) { return true }
        if take(UInt8(ascii: "+"), or: UInt8(ascii: "-")) {
          guard let hours = digits(2), hours <= 23, take(UInt8(ascii: ":")), let minutes = digits(2), minutes <= 59
          else { return false }
          return true
        }
        return !offsetRequired
      }

      /// A `date`, `T` (or `t`), and a `time` with its offset.
      mutating func dateTime() -> Bool {
        date() && take(UInt8(ascii: "T"), or: UInt8(ascii: "t")) && time(offsetRequired: true)
      }

      static let uuidGroups = [8, 4, 4, 4, 12]

      /// Hexadecimal digits in groups of 8, 4, 4, 4 and 12, joined by `-`.
      mutating func uuid() -> Bool {
        for (group, length) in Self.uuidGroups.enumerated() {
          if group > 0, !take(UInt8(ascii: "-")) { return false }
          for _ in 0..<length {
            guard position < bytes.count else { return false }
            guard Self.isHex(bytes[position]) else { return false }
            position += 1
          }
        }
        return true
      }

      /// An absolute URI (or IRI): a scheme (a letter, then letters, digits, `+`, `-` or `.`), a
      /// colon, and no space, control character or ASCII character a URI cannot hold
      /// (`"<>\^`{|}`); a `%` starts two hexadecimal digits.
      mutating func uri() -> Bool {
        guard position < bytes.count, Self.isLetter(bytes[position]) else { return false }
        while position < bytes.count, bytes[position] != UInt8(ascii: ":") {
          let byte = bytes[position]
          guard Self.isLetter(byte) || (0x30...0x39).contains(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E
          else { return false }
          position += 1
        }
        guard take(UInt8(ascii: ":")) else { return false }
        while position < bytes.count {
          let byte = bytes[position]
          switch byte {
          case 0x00...0x20, 0x7F, 0x22, 0x3C, 0x3E, 0x5C, 0x5E, 0x60, 0x7B, 0x7C, 0x7D: return false
          case 0x25:
            guard position + 2 < bytes.count, Self.isHex(bytes[position + 1]), Self.isHex(bytes[position + 2])
            else { return false }
            position += 3
          default: position += 1
          }
        }
        return true
      }

      static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

      static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
      }

      /// Four numbers from 0 to 255 joined by dots; a three-digit one starts with 1 or 2.
      mutating func ipv4() -> Bool {
        for part in 0..<4 {
          if part > 0, !take(UInt8(ascii: ".")) { return false }
          let start = position
          var value = 0
          while position - start < 3, let digit = digits(1) { value = value * 10 + digit }
          let length = position - start
          guard length > 0, value <= 255, length < 3 || bytes[start] != UInt8(ascii: "0") else { return false }
        }
        return true
      }
    }
  }
#endif
