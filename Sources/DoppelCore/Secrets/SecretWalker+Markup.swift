@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Secrets that text holds by its structure: the password of a URL's user information, the value
/// of an HTML `<meta>` or `<input>` whose name is secret (a CSRF token in a page), an XML element
/// or attribute whose name is secret (`<password>…</password>`), a multipart form part whose name
/// is secret, and a `"name": "value"` pair of JSON inside text that is not JSON as a whole (a
/// script's state in a page, a fragment in a binary body).
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
  /// name is secret (``SecretRules/parameter(_:)``): `<meta name="csrf-token" content="…">`; and,
  /// in any other element, the text of an element and the value of an attribute whose name is a
  /// secret key (``SecretRules/key(_:keyPath:)``: `<password>…</password>`, `<a:Token>…</a:Token>`)
  /// or is like a key's and holds a high-entropy value.
  mutating func markup(_ string: String, _ place: Place) -> String {
    guard string.utf8.contains(UInt8(ascii: "<")) else { return string }
    var text = RedactedText(string)
    let bytes = text.bytes
    var index = 0
    var cdataEnd: Int?
    while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
      index = open
      var cursor = index + 1
      guard cursor < bytes.count, Self.isLetter(bytes[cursor]) else {
        index = cursor
        continue
      }
      while cursor < bytes.count, Self.isNameByte(bytes[cursor]) { cursor += 1 }
      let name = String(decoding: bytes[(index + 1)..<cursor], as: UTF8.self)
      let (attributes, end) = Self.attributes(bytes, from: cursor)
      // A tag cut short by another `<`: that one is looked at next.
      index = end > 0 && bytes[end - 1] == UInt8(ascii: "<") ? end - 1 : end
      let tag = name.lowercased()
      guard tag == "meta" || tag == "input" else {
        element(name, attributes, end: end, &text, &cdataEnd, place)
        continue
      }
      let key = tag == "meta" ? ["name", "property"] : ["name"]
      guard let nameRange = attributes.first(where: { key.contains($0.name) })?.value,
        let valueRange = attributes.first(where: { $0.name == (tag == "meta" ? "content" : "value") })?.value,
        !valueRange.isEmpty, valueRange.lowerBound >= text.copied
      else { continue }
      let fieldName = String(decoding: bytes[nameRange], as: UTF8.self)
      guard rules.parameter(fieldName), !text.isMarker(valueRange) else { continue }
      text.redact(valueRange)
      found(.secretHTMLField(fieldName), place, secrets: [String(decoding: bytes[valueRange], as: UTF8.self)])
    }
    return text.text(else: string)
  }

  private static func isLetter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
  }

  /// A byte of an XML name: a letter, a digit, `_`, `-`, `.` or `:` (ASCII only).
  private static func isNameByte(_ byte: UInt8) -> Bool {
    isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "_-.:".utf8.contains(byte)
  }

  /// The secret attributes of an element other than `<meta>` and `<input>`, then its text when
  /// its name is secret and the text runs up to its closing tag (`<password>…</password>`, also
  /// in a CDATA section). `end` is where its start tag ends.
  private mutating func element(
    _ tag: String, _ attributes: [(name: String, value: Range<Int>)], end: Int, _ text: inout RedactedText,
    _ cdataEnd: inout Int?, _ place: Place
  ) {
    let bytes = text.bytes
    for attribute in attributes where !attribute.value.isEmpty && attribute.value.lowerBound >= text.copied {
      let local = Self.localName(attribute.name)
      guard !text.isMarker(attribute.value), let kind = xmlKind(local, bytes[attribute.value]) else { continue }
      text.redact(attribute.value)
      found(kind, place, secrets: [String(decoding: bytes[attribute.value], as: UTF8.self)])
    }
    // The text: after a start tag that is not self-closing, up to the next `<`.
    guard end >= 2, end <= bytes.count, bytes[end - 1] == UInt8(ascii: ">"), bytes[end - 2] != UInt8(ascii: "/")
    else { return }
    var start = end
    var stop = bytes[start...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
    let cdata = Array("<![CDATA[".utf8)
    var after = stop
    if bytes[stop...].starts(with: cdata) {
      start = stop + cdata.count
      // The last `]]>` found, or the end when none was: searched again only past it, so that many
      // sections without an end cost one pass.
      if cdataEnd.map({ $0 < start }) ?? true {
        cdataEnd = Self.find(Array("]]>".utf8), in: bytes, from: start) ?? bytes.count
      }
      guard let close = cdataEnd, close < bytes.count else { return }
      stop = close
      after = close + 3
    }
    let closing = Array("</\(tag)".utf8)
    guard bytes[after...].starts(with: closing), start < stop, start >= text.copied else { return }
    let range = start..<stop
    let value = bytes[range]
    guard !value.allSatisfy({ $0 <= 0x20 }), !text.isMarker(range),
      let kind = xmlKind(Self.localName(tag), value)
    else { return }
    text.redact(range)
    found(kind, place, secrets: [String(decoding: value, as: UTF8.self)])
  }

  /// What an XML field `name` holding `value` is, when secret.
  private mutating func xmlKind(_ name: String, _ value: ArraySlice<UInt8>) -> Kind? {
    if rules.key(name, keyPath: nil) { return .secretXMLField(name) }
    if isKeyLike(name), SecretRules.isHighEntropy(String(decoding: value, as: UTF8.self)) {
      return .highEntropyValue(name)
    }
    return nil
  }

  /// `ns:Password` → `Password`.
  private static func localName(_ name: String) -> String {
    name.split(separator: ":").last.map(String.init) ?? name
  }

  /// Where `needle` first is in `bytes` from `start`.
  private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard let first = needle.first, needle.count <= bytes.count else { return nil }
    var index = start
    while index + needle.count <= bytes.count {
      guard let next = bytes[index...].firstIndex(of: first), next + needle.count <= bytes.count else { return nil }
      if bytes[next..<(next + needle.count)].elementsEqual(needle) { return next }
      index = next + 1
    }
    return nil
  }

  /// Replaces the value of each part of a `multipart/form-data` body whose name is secret
  /// (``SecretRules/parameter(_:)``) or like a key's with a high-entropy value:
  /// `Content-Disposition: form-data; name="password"`, a blank line, the value, the boundary.
  mutating func multipart(_ string: String, _ place: Place) -> String {
    guard string.utf8.count >= 40, string.utf8.contains(UInt8(ascii: "\n")) else { return string }
    let header = Array("content-disposition:".utf8)
    var text = RedactedText(string)
    let bytes = text.bytes
    var index = 0
    while let found = Self.findCaseInsensitive(header, in: bytes, from: index) {
      index = found + header.count
      var lineEnd = index
      while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
      let name = Self.partName(bytes[index..<lineEnd])
      // The part's value: after the blank line that ends its headers, up to the next boundary.
      var start = lineEnd
      while start < bytes.count {
        if bytes[start] == 0x0A, start + 1 < bytes.count, bytes[start + 1] == 0x0A {
          start += 2
          break
        }
        if bytes[start] == 0x0A, start + 2 < bytes.count, bytes[start + 1] == 0x0D, bytes[start + 2] == 0x0A {
          start += 3
          break
        }
        start += 1
      }
      // No blank line after this header: none after any later one either.
      guard start < bytes.count else { break }
      guard let name else {
        index = start
        continue
      }
      var stop = Self.find(Array("\n--".utf8), in: bytes, from: start) ?? bytes.count
      index = stop
      if stop > start, bytes[stop - 1] == 0x0D { stop -= 1 }
      guard stop > start, start >= text.copied, !text.isMarker(start..<stop) else { continue }
      let value = String(decoding: bytes[start..<stop], as: UTF8.self)
      let kind: Kind? =
        rules.parameter(name)
        ? .secretMultipartField(name)
        : isKeyLike(name) && SecretRules.isHighEntropy(value) ? .highEntropyValue(name) : nil
      guard let kind else { continue }
      text.redact(start..<stop)
      self.found(kind, place, secrets: [value])
    }
    return text.text(else: string)
  }

  /// The `name` parameter of a `Content-Disposition` header's value (not `filename`).
  private static func partName(_ line: ArraySlice<UInt8>) -> String? {
    let value = String(decoding: line, as: UTF8.self)
    for parameter in value.split(separator: ";") {
      let trimmed = parameter.trimmingCharacters(in: .whitespacesAndNewlines)
      guard trimmed.lowercased().hasPrefix("name=") else { continue }
      var name = trimmed.dropFirst(5)
      if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = name.dropFirst().dropLast() }
      return String(name)
    }
    return nil
  }

  /// Where `needle` (lower-case ASCII) first is in `bytes` from `start`, in any case.
  private static func findCaseInsensitive(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
    guard needle.count <= bytes.count else { return nil }
    var index = start
    while index + needle.count <= bytes.count {
      var matches = true
      for (offset, byte) in needle.enumerated() {
        let other = bytes[index + offset]
        if (isLetter(other) ? other | 0x20 : other) != byte {
          matches = false
          break
        }
      }
      if matches { return index }
      index += 1
    }
    return nil
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
      if !value.isEmpty, !text.isMarker(value) {
        let raw = String(decoding: bytes[value], as: UTF8.self)
        let kind: Kind? =
          rules.key(name, keyPath: nil)
          ? .secretJSONField(name) : isKeyLike(name) && SecretRules.isHighEntropy(raw) ? .highEntropyValue(name) : nil
        if let kind {
          text.redact(value)
          found(kind, place, secrets: [raw])
        }
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

  static let marker = Array(SecretRules.marker.utf8)

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
