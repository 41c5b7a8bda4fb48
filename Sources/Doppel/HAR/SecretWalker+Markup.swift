/// Secrets that text holds by its structure: the password of a URL's user information, the value
/// of an HTML `<meta>` or `<input>` whose name is secret (a CSRF token in a page), and a
/// `"name": "value"` pair of JSON inside text that is not JSON as a whole (a script's state in a
/// page, a fragment in a binary body).
extension SecretWalker {
  /// Replaces `PASSWORD` in `scheme://user:PASSWORD@host`, wherever a URL is in the text.
  mutating func userInformation(_ string: String, _ place: Place) -> String {
    guard string.contains("://") else { return string }
    let bytes = Array(string.utf8)
    let marker = Array(Redaction.marker.utf8)
    var output: [UInt8] = []
    var copied = 0
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
        let password = bytes[(colon + 1)..<end]
        if !password.elementsEqual(marker) {
          output += bytes[copied...colon]
          output += marker
          copied = end
          let raw = String(decoding: password, as: UTF8.self)
          found(.urlPassword, place, secrets: [raw, raw.removingPercentEncoding ?? raw])
        }
      }
      index = end
    }
    guard copied > 0 else { return string }
    output += bytes[copied...]
    return String(decoding: output, as: UTF8.self)
  }

  /// Replaces the `content` of `<meta name="…">` and the `value` of `<input name="…">` when the
  /// name is secret (``SecretRules/parameter(_:)``): `<meta name="csrf-token" content="…">`.
  mutating func markup(_ string: String, _ place: Place) -> String {
    guard string.utf8.contains(UInt8(ascii: "<")) else { return string }
    let bytes = Array(string.utf8)
    let marker = Array(Redaction.marker.utf8)
    var output: [UInt8] = []
    var copied = 0
    var index = 0
    while index < bytes.count {
      guard bytes[index] == UInt8(ascii: "<") else {
        index += 1
        continue
      }
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
        !valueRange.isEmpty, valueRange.lowerBound >= copied
      else { continue }
      let name = String(decoding: bytes[nameRange], as: UTF8.self)
      let value = bytes[valueRange]
      guard rules.parameter(name), !value.elementsEqual(marker) else { continue }
      output += bytes[copied..<valueRange.lowerBound]
      output += marker
      copied = valueRange.upperBound
      found(.secretHTMLField(name), place, secrets: [String(decoding: value, as: UTF8.self)])
    }
    guard copied > 0 else { return string }
    output += bytes[copied...]
    return String(decoding: output, as: UTF8.self)
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
    let bytes = Array(string.utf8)
    let marker = Array(Redaction.marker.utf8)
    var output: [UInt8] = []
    var copied = 0
    var index = 0
    while index < bytes.count {
      guard bytes[index] == UInt8(ascii: "\"") else {
        index += 1
        continue
      }
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
      let value = bytes[(cursor + 1)..<valueEnd]
      if !value.isEmpty, !value.elementsEqual(marker), rules.key(name, keyPath: nil) {
        output += bytes[copied...cursor]
        output += marker
        copied = valueEnd
        found(.secretJSONField(name), place, secrets: [String(decoding: value, as: UTF8.self)])
      }
      index = valueEnd + 1
    }
    guard copied > 0 else { return string }
    output += bytes[copied...]
    return String(decoding: output, as: UTF8.self)
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
