@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A URL string as written in a stub, parsed without Foundation's leniency so that bad input is
/// reported instead of silently percent-encoded. Paths may hold templates (`/users/{id}`).
package struct StubURL: Sendable {
  var scheme: String?
  var host: String?
  var port: Int?
  /// Percent-decoded path, possibly a template.
  package var path: String
  /// Percent-decoded query items, when the string had a `?`.
  var query: [QueryItem]?

  static package func parse(_ string: String) -> Result<StubURL, DoppelError> {
    func failure(_ reason: String) -> Result<StubURL, DoppelError> {
      .failure(
        DoppelError.invalidStub(
          "Invalid URL \"\(string)\" in a stub: \(reason). Write an absolute URL such as "
            + "\"https://api.example.com/breeds.json\" or a path such as \"/breeds.json\"."))
    }
    if string.isEmpty { return failure("it is empty") }
    if let bad = string.unicodeScalars.enumerated().first(where: { Self.isForbidden($0.element) }) {
      let what =
        bad.element == " " ? "a space" : "the character U+\(String(bad.element.value, radix: 16, uppercase: true))"
      return failure("it contains \(what) at offset \(bad.offset); percent-encode it (a space is %20)")
    }
    // Read as UTF-8 bytes: every delimiter is ASCII, and byte offsets need no Unicode walks.
    let bytes = Array(string.utf8)
    func text(_ part: ArraySlice<UInt8>) -> String { String(decoding: part, as: UTF8.self) }
    var rest = bytes[...]
    if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
    var result = StubURL(path: "/")
    if rest.first != UInt8(ascii: "/") {
      guard let separator = Self.schemeSeparator(in: rest) else {
        return failure("it is neither an absolute URL (scheme://host/path) nor a path starting with \"/\"")
      }
      let scheme = rest[..<separator]
      guard let first = scheme.first, Self.isASCIILetter(first), scheme.allSatisfy(Self.isSchemeByte) else {
        return failure("\"\(text(scheme))\" is not a valid scheme")
      }
      result.scheme = text(scheme).lowercased()
      rest = rest[(separator + 3)...]
      let authorityEnd =
        rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) ?? rest.endIndex
      var authority = rest[..<authorityEnd]
      rest = rest[authorityEnd...]
      if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
      var hostPart = authority
      if authority.first == UInt8(ascii: "[") {
        guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
          return failure("the IPv6 host has no closing \"]\"")
        }
        hostPart = authority[...close]
        let after = authority[(close + 1)...]
        if !after.isEmpty {
          guard after.first == UInt8(ascii: ":") else { return failure("unexpected text after the IPv6 host") }
          let portText = text(after.dropFirst())
          guard let port = Int(portText), (1...65535).contains(port) else {
            return failure("the port \"\(portText)\" is not a number from 1 to 65535")
          }
          result.port = port
        }
      } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
        hostPart = authority[..<colon]
        let portText = text(authority[(colon + 1)...])
        guard let port = Int(portText), (1...65535).contains(port) else {
          return failure("the port \"\(portText)\" is not a number from 1 to 65535")
        }
        result.port = port
      }
      guard !hostPart.isEmpty else { return failure("it has no host") }
      let host = text(hostPart)
      guard host.unicodeScalars.allSatisfy(Self.isHostScalar) else {
        return failure("the host \"\(host)\" contains characters a host cannot have")
      }
      result.host = host.lowercased()
    }
    var pathPart = rest
    if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
      pathPart = rest[..<question]
      let queryText = Substring(text(rest[(question + 1)...]))
      guard let items = QueryItem.parse(queryText) else {
        return failure("the query \"\(queryText)\" has a bad percent-escape")
      }
      result.query = items
    }
    let pathText = pathPart.isEmpty ? "/" : text(pathPart)
    guard let decoded = percentDecoded(Substring(pathText)) else {
      return failure("the path \"\(pathText)\" has a bad percent-escape")
    }
    result.path = decoded
    return .success(result)
  }

  /// White space (Unicode's, not only ASCII's) and control characters, which a URL cannot hold.
  private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    // ASCII's white space is U+0009–U+000D and U+0020: all below U+0021.
    if scalar.isASCII { return scalar.value < 0x21 || scalar.value == 0x7F }
    return scalar.properties.isWhitespace
  }

  /// The characters a host may have: letters and digits of any script, and `.-_~%[]:`.
  private static let hostCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_~%[]:"))

  private static func isHostScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_", "~", "%", "[", "]", ":": true
    case _ where scalar.isASCII: false
    default: hostCharacters.contains(scalar)
    }
  }

  /// Where the first `://` starts.
  private static func schemeSeparator(in bytes: ArraySlice<UInt8>) -> Int? {
    var index = bytes.startIndex
    while index + 3 <= bytes.endIndex {
      if bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
        && bytes[index + 2] == UInt8(ascii: "/")
      {
        return index
      }
      index += 1
    }
    return nil
  }

  private static func isASCIILetter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
  }

  /// A scheme's characters after the first: ASCII letters, digits, `+`, `.` and `-`.
  private static func isSchemeByte(_ byte: UInt8) -> Bool {
    isASCIILetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
      || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
  }
}

/// A query item with a percent-decoded name and value; a missing value is the empty string.
package struct QueryItem: Hashable, Sendable, CustomStringConvertible {
  package var name: String
  package var value: String

  package var description: String { value.isEmpty ? name : "\(name)=\(value)" }

  /// Parses `a=1&b=2`; `nil` when a percent-escape is malformed. `+` stays a plus sign (RFC 3986).
  static package func parse(_ text: Substring) -> [QueryItem]? {
    var items: [QueryItem] = []
    for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = percentDecoded(parts[0]),
        let value = parts.count > 1 ? percentDecoded(parts[1]) : ""
      else { return nil }
      items.append(QueryItem(name: name, value: value))
    }
    return items
  }

  static package func from(_ request: Request) -> [QueryItem] {
    request.queryItems.map { QueryItem(name: $0.name, value: $0.value ?? "") }
  }
}

/// `text` with its percent-escapes decoded (`nil` when one is malformed); text without `%` is
/// returned as it is, without a round trip through Foundation.
func percentDecoded(_ text: Substring) -> String? {
  text.utf8.contains(UInt8(ascii: "%")) ? String(text).removingPercentEncoding : String(text)
}
