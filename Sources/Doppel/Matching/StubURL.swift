import Foundation

/// A URL string as written in a stub, parsed without Foundation's leniency so that bad input is
/// reported instead of silently percent-encoded. Paths may hold templates (`/users/{id}`).
struct StubURL: Sendable {
  var scheme: String?
  var host: String?
  var port: Int?
  /// Percent-decoded path, possibly a template.
  var path: String
  /// Percent-decoded query items, when the string had a `?`.
  var query: [QueryItem]?

  static func parse(_ string: String) -> Result<StubURL, DoppelError> {
    func failure(_ reason: String) -> Result<StubURL, DoppelError> {
      .failure(
        DoppelError(
          "Invalid URL \"\(string)\" in a stub: \(reason). Write an absolute URL such as "
            + "\"https://api.example.com/breeds.json\" or a path such as \"/breeds.json\"."))
    }
    if string.isEmpty { return failure("it is empty") }
    if let bad = string.unicodeScalars.enumerated().first(where: { Self.isForbidden($0.element) }) {
      let what =
        bad.element == " " ? "a space" : "the character U+\(String(bad.element.value, radix: 16, uppercase: true))"
      return failure("it contains \(what) at offset \(bad.offset); percent-encode it (a space is %20)")
    }
    var rest = Substring(string)
    if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
    var result = StubURL(path: "/")
    if !rest.hasPrefix("/") {
      guard let separator = Self.schemeSeparator(in: rest) else {
        return failure("it is neither an absolute URL (scheme://host/path) nor a path starting with \"/\"")
      }
      let scheme = rest[..<separator.lowerBound]
      guard let first = scheme.first, first.isASCII, first.isLetter,
        scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
      else { return failure("\"\(scheme)\" is not a valid scheme") }
      result.scheme = scheme.lowercased()
      rest = rest[separator.upperBound...]
      let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
      var authority = rest[..<authorityEnd]
      rest = rest[authorityEnd...]
      if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
      var hostPart = authority
      if authority.hasPrefix("[") {
        guard let close = authority.firstIndex(of: "]") else { return failure("the IPv6 host has no closing \"]\"") }
        hostPart = authority[...close]
        let after = authority[authority.index(after: close)...]
        if !after.isEmpty {
          guard after.hasPrefix(":") else { return failure("unexpected text after the IPv6 host") }
          guard let port = Int(after.dropFirst()), (1...65535).contains(port) else {
            return failure("the port \"\(after.dropFirst())\" is not a number from 1 to 65535")
          }
          result.port = port
        }
      } else if let colon = authority.lastIndex(of: ":") {
        hostPart = authority[..<colon]
        let portText = authority[authority.index(after: colon)...]
        guard let port = Int(portText), (1...65535).contains(port) else {
          return failure("the port \"\(portText)\" is not a number from 1 to 65535")
        }
        result.port = port
      }
      guard !hostPart.isEmpty else { return failure("it has no host") }
      guard hostPart.unicodeScalars.allSatisfy(Self.isHostScalar) else {
        return failure("the host \"\(hostPart)\" contains characters a host cannot have")
      }
      result.host = hostPart.lowercased()
    }
    var pathPart = rest
    if let question = rest.firstIndex(of: "?") {
      pathPart = rest[..<question]
      let queryText = rest[rest.index(after: question)...]
      guard let items = QueryItem.parse(queryText) else {
        return failure("the query \"\(queryText)\" has a bad percent-escape")
      }
      result.query = items
    }
    if pathPart.isEmpty { pathPart = "/" }
    guard let decoded = percentDecoded(pathPart) else {
      return failure("the path \"\(pathPart)\" has a bad percent-escape")
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

  /// Where the first `://` is.
  private static func schemeSeparator(in text: Substring) -> Range<String.Index>? {
    let utf8 = text.utf8
    var index = utf8.startIndex
    while let colon = utf8[index...].firstIndex(of: UInt8(ascii: ":")) {
      let after = utf8[utf8.index(after: colon)...]
      if after.starts(with: "//".utf8) { return colon..<utf8.index(colon, offsetBy: 3) }
      index = utf8.index(after: colon)
    }
    return nil
  }
}

/// A query item with a percent-decoded name and value; a missing value is the empty string.
struct QueryItem: Hashable, Sendable, CustomStringConvertible {
  var name: String
  var value: String

  var description: String { value.isEmpty ? name : "\(name)=\(value)" }

  /// Parses `a=1&b=2`; `nil` when a percent-escape is malformed. `+` stays a plus sign (RFC 3986).
  static func parse(_ text: Substring) -> [QueryItem]? {
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

  static func from(_ request: Request) -> [QueryItem] {
    request.queryItems.map { QueryItem(name: $0.name, value: $0.value ?? "") }
  }
}

/// `text` with its percent-escapes decoded (`nil` when one is malformed); text without `%` is
/// returned as it is, without a round trip through Foundation.
func percentDecoded(_ text: Substring) -> String? {
  text.utf8.contains(UInt8(ascii: "%")) ? String(text).removingPercentEncoding : String(text)
}
