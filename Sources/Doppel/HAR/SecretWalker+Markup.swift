/// Secrets that text holds by its structure: the password of a URL's user information, the value
/// of an HTML `<meta>` or `<input>` whose name is secret (a CSRF token in a page), and a
/// `"name": "value"` pair of JSON inside text that is not JSON as a whole (a script's state in a
/// page, a fragment in a binary body).
extension SecretWalker {
  /// Replaces `PASSWORD` in `scheme://user:PASSWORD@host`, wherever a URL is in the text.
  mutating func userInformation(_ string: String, _ place: Place) -> String {
    guard string.contains("://") else { return string }
    var text = RedactedText(string)
    let bytes = text.bytes
    var index = 0
    while index + 3 <= bytes.count {
      guard bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
        bytes[index + 2] == UInt8(ascii: "/")
      else {
        index += 1
        continue
      }
      // The authority: up to the first `/`, `?`, `#`, `@` or character that ends a URL.
      let start = index + 3
      var end = start
      var colon: Int?
      while end < bytes.count, !"/?#@\"'<>\\ ".utf8.contains(bytes[end]), bytes[end] > 0x20 {
        if colon == nil, bytes[end] == UInt8(ascii: ":") { colon = end }
        end += 1
      }
      if end < bytes.count, bytes[end] == UInt8(ascii: "@"), let colon, colon + 1 < end {
        if !text.isMarker((colon + 1)..<end) {
          text.redact((colon + 1)..<end)
          let raw = String(decoding: bytes[(colon + 1)..<end], as: UTF8.self)
          found(.urlPassword, place, secrets: [raw, raw.removingPercentEncoding ?? raw])
        }
      }
      index = end
    }
    return text.text(else: string)
  }

  /// Replaces the `content` of `<meta name="…">` and the `value` of `<input name="…">` when the
  /// name is secret (``SecretRules/parameter(_:)``): `<meta name="csrf-token" content="…">`.
  mutating func markup(_ string: String, _ place: Place) -> String {
    guard string.utf8.contains(UInt8(ascii: "<")) else { return string }
    var text = RedactedText(string)
    let bytes = text.bytes
    var index = 0
    while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
      index = open
      var cursor = index + 1
      while cursor < bytes.count, Self.isLetter(bytes[cursor]) { cursor += 1 }
      let tag = String(decoding: bytes[(index + 1)..<cursor], as: UTF8.self).lowercased()
      guard tag == "meta" || tag == "input" else {
        index = cursor
        continue
      }
      let (attributes, end) = Self.attributes(bytes, from: cursor)
      index = end
      let key = tag == "meta" ? ["name", "property"] : ["name"]
      guard let nameRange = attributes.first(where: { key.contains($0.name) })?.value,
        let valueRange = attributes.first(where: { $0.name == (tag == "meta" ? "content" : "value") })?.value,
        !valueRange.isEmpty, valueRange.lowerBound >= text.copied
      else { continue }
      let name = String(decoding: bytes[nameRange], as: UTF8.self)
      guard rules.parameter(name), !text.isMarker(valueRange) else { continue }
      text.redact(valueRange)
      found(.secretHTMLField(name), place, secrets: [String(decoding: bytes[valueRange], as: UTF8.self)])
    }
    return text.text(else: string)
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
  }

  /// A tag's attributes (lower-cased names, the ranges of their values without quotes) from
  /// `start`, and where the tag ends.
  private static func attributes(_ bytes: [UInt8], from start: Int) -> (
    [(name: String, value: Range<Int>)], end: Int
  ) {
    var found: [(name: String, value: Range<Int>)] = []
    var index = start
    func skipSpace() {
      while index < bytes.count, bytes[index] <= 0x20 || bytes[index] == UInt8(ascii: "/") { index += 1 }
    }
    while true {
      skipSpace()
      guard index < bytes.count, bytes[index] != UInt8(ascii: ">"), bytes[index] != UInt8(ascii: "<") else { break }
      let nameStart = index
      while index < bytes.count, bytes[index] > 0x20, !"=>/<".utf8.contains(bytes[index]) { index += 1 }
      let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
        if index == nameStart { index += 1 }
        continue
      }
      index += 1
      while index < bytes.count, bytes[index] <= 0x20 { index += 1 }
      guard index < bytes.count else { break }
      let quote = bytes[index]
      if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
        let valueStart = index + 1
        // Unterminated, the quote ends nothing after it either: the scan stops here.
        guard let close = bytes[valueStart...].firstIndex(of: quote) else {
          index = bytes.count
          break
        }
        found.append((name, valueStart..<close))
        index = close + 1
      } else {
        let valueStart = index
        while index < bytes.count, bytes[index] > 0x20, bytes[index] != UInt8(ascii: ">") { index += 1 }
        found.append((name, valueStart..<index))
      }
    }
    return (found, min(index + 1, bytes.count))
  }

  /// Replaces the value of each `"name": "value"` pair whose name is a secret JSON key
  /// (``SecretRules/key(_:keyPath:)``), in text that is not JSON as a whole.
  mutating func quotedPairs(_ string: String, _ place: Place) -> String {
    guard string.utf8.contains(UInt8(ascii: "\"")), string.utf8.contains(UInt8(ascii: ":")) else { return string }
    var text = RedactedText(string)
    let bytes = text.bytes
    var index = 0
    while let quote = bytes[index...].firstIndex(of: UInt8(ascii: "\"")) {
      index = quote
      guard let nameEnd = Self.closingQuote(bytes, after: index) else { break }
      var cursor = nameEnd + 1
      while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
      guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else {
        // The closing quote may open the next string.
        index = nameEnd
        continue
      }
      cursor += 1
      while cursor < bytes.count, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor += 1 }
      guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\""),
        let valueEnd = Self.closingQuote(bytes, after: cursor)
      else {
        index = cursor
        continue
      }
      let name = String(decoding: bytes[(index + 1)..<nameEnd], as: UTF8.self)
      let value = (cursor + 1)..<valueEnd
      if !value.isEmpty, !text.isMarker(value), rules.key(name, keyPath: nil) {
        text.redact(value)
        found(.secretJSONField(name), place, secrets: [String(decoding: bytes[value], as: UTF8.self)])
      }
      index = valueEnd + 1
    }
    return text.text(else: string)
  }

  /// The `"` that closes the string opened at `open`, skipping escaped characters; `nil` at a line
  /// end or the end of the text.
  private static func closingQuote(_ bytes: [UInt8], after open: Int) -> Int? {
    var index = open + 1
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: "\""): return index
      case UInt8(ascii: "\\"): index += 2
      case 0x0A, 0x0D: return nil
      default: index += 1
      }
    }
    return nil
  }
}

/// Text being redacted in one pass: its bytes, and the redacted text built so far, so a scanner
/// only says which ranges to replace with ``Redaction/marker``, in order.
struct RedactedText {
  let bytes: [UInt8]
  private var output: [UInt8] = []
  /// Where the part not yet copied to the output begins.
  private(set) var copied = 0

  static let marker = Array(Redaction.marker.utf8)

  init(_ string: String) { bytes = Array(string.utf8) }

  /// Whether `range` holds the marker already (redacted before).
  func isMarker(_ range: Range<Int>) -> Bool { bytes[range].elementsEqual(Self.marker) }

  /// Replaces `range` (at or after everything replaced before) with the marker.
  mutating func redact(_ range: Range<Int>) {
    output += bytes[copied..<range.lowerBound]
    output += Self.marker
    copied = range.upperBound
  }

  /// The text with its ranges replaced; `original` when none was.
  func text(else original: String) -> String {
    guard copied > 0 else { return original }
    return String(decoding: output + bytes[copied...], as: UTF8.self)
  }
}
