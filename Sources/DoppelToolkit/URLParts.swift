import Foundation

/// The parts of a URL that matchers and the router read: scheme and host lowercased, the explicit
/// port, and the percent-decoded path (`/` when empty, trailing slashes dropped as `URL.path` does).
///
/// Reading them through `URL` reparses the string for each part, which costs more than the rest of
/// resolving a request. Plain URLs (ASCII, `scheme://host[:port]/path`, nothing to decode) are
/// split here in one pass; anything else falls back to `URL`'s own accessors, so the answer is
/// always the one `URL` gives. `URLPartsTests` checks the two agree; the benchmarks check that
/// plain URLs take the fast path.
package struct URLParts: Equatable {
  package var scheme: String
  package var host: String
  package var port: Int?
  package var path: String

  package init(scheme: String, host: String, port: Int?, path: String) {
    self.scheme = scheme
    self.host = host
    self.port = port
    self.path = path
  }

  package init(_ url: URL) {
    self.init(url, absoluteString: url.absoluteString)
  }

  /// The parts of `url`, whose `absoluteString` the caller has read already.
  package init(_ url: URL, absoluteString: String) {
    self = Self.fast(absoluteString) ?? Self.foundation(url)
  }

  /// What `URL` itself reports.
  package static func foundation(_ url: URL) -> URLParts {
    let path = url.path
    return URLParts(
      scheme: url.scheme?.lowercased() ?? "", host: url.host?.lowercased() ?? "", port: url.port,
      path: path.isEmpty ? "/" : path)
  }

  /// The parts of a plain URL string, or `nil` when it needs `URL`'s full rules.
  package static func fast(_ string: String) -> URLParts? {
    var string = string
    return string.withUTF8 { fast(bytes: $0) }
  }

  private static func fast(bytes: UnsafeBufferPointer<UInt8>) -> URLParts? {
    var index = 0
    let end = bytes.count

    // scheme ":" "//"
    var schemeHasUpper = false
    guard index < end, isLetter(bytes[index]) else { return nil }
    while index < end, bytes[index] != UInt8(ascii: ":") {
      let byte = bytes[index]
      guard
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
          || byte == UInt8(ascii: ".")
      else { return nil }
      if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { schemeHasUpper = true }
      index += 1
    }
    let schemeEnd = index
    guard index + 2 < end, bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") else {
      return nil
    }
    index += 3

    // authority: host [":" port], no user info, no IPv6 literal, nothing encoded
    let hostStart = index
    var hostEnd = -1
    var hostHasUpper = false
    var port = 0
    var portDigits = 0
    while index < end {
      let byte = bytes[index]
      // The common case first: a lowercase letter of the host name.
      if byte &- UInt8(ascii: "a") < 26, hostEnd < 0 {
        index += 1
        continue
      }
      if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
      if byte == UInt8(ascii: ":") {
        guard hostEnd < 0 else { return nil }
        hostEnd = index
      } else if hostEnd >= 0 {
        guard isDigit(byte), portDigits < 5 else { return nil }
        port = port * 10 + Int(byte - UInt8(ascii: "0"))
        portDigits += 1
      } else {
        guard
          isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_")
        else { return nil }
        if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { hostHasUpper = true }
      }
      index += 1
    }
    let authorityEnd = index
    if hostEnd < 0 { hostEnd = authorityEnd }
    guard hostEnd > hostStart else { return nil }
    if hostEnd < authorityEnd && portDigits == 0 { return nil }
    if port > 65_535 { return nil }

    // path, up to the query or fragment: nothing to decode, no trailing slash to drop
    let pathStart = index
    while index < end {
      let byte = bytes[index]
      // Every byte the loop stops or gives up at below 0x40 is in `pathStops`; above it, only DEL
      // and non-ASCII bytes are.
      if byte >= 0x40 {
        guard byte < 0x7F else { return nil }
      } else if pathStops & (1 << UInt64(byte)) != 0 {
        if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
        return nil
      }
      index += 1
    }
    let pathEnd = index
    if pathEnd - pathStart > 1 && bytes[pathEnd - 1] == UInt8(ascii: "/") { return nil }

    let scheme = knownScheme(bytes, schemeEnd) ?? text(bytes, 0, schemeEnd)
    let host = text(bytes, hostStart, hostEnd)
    return URLParts(
      scheme: schemeHasUpper ? scheme.lowercased() : scheme,
      host: hostHasUpper ? host.lowercased() : host,
      port: portDigits > 0 ? port : nil,
      path: pathEnd == pathStart ? "/" : text(bytes, pathStart, pathEnd))
  }

  /// The bytes below 0x40 that end a path (`?`, `#`) or that it may not hold here: controls,
  /// space, `%` (something to decode) and `;`.
  private static var pathStops: UInt64 {
    @inline(__always) get { ((1 << 0x21) - 1) | 1 << 0x23 | 1 << 0x25 | 1 << 0x3B | 1 << 0x3F }
  }

  /// `http` or `https` without making a new string, or `nil` for another scheme.
  private static func knownScheme(_ bytes: UnsafeBufferPointer<UInt8>, _ end: Int) -> String? {
    guard end >= 4, bytes[0] == UInt8(ascii: "h"), bytes[1] == UInt8(ascii: "t"), bytes[2] == UInt8(ascii: "t"),
      bytes[3] == UInt8(ascii: "p")
    else { return nil }
    if end == 4 { return "http" }
    if end == 5 && bytes[4] == UInt8(ascii: "s") { return "https" }
    return nil
  }

  private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
  }

  @inline(__always)
  private static func isLetter(_ byte: UInt8) -> Bool {
    (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
  }

  @inline(__always)
  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}
