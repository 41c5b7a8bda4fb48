@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Walks JSON (a HAR document, one entry, a manifest) and replaces every secret that ``SecretRules``
/// find with ``Redaction/marker``, noting where each was: redaction keeps the output, the linter
/// the findings, so the two can never disagree.
///
/// Structure it knows: `{name, value}` lists under `headers`, `cookies`, `queryString` and
/// `params`; a `text` field is a body (base64 when its sibling `encoding` says so). Every string
/// is searched for known secret formats and `name=value` pairs, and parsed as JSON when it holds
/// an object or an array. Each part is visited once per pass; a second pass replaces repeated
/// secrets found in the first, so the work is linear in the size of the document.
package struct SecretWalker {
  package typealias Kind = SecretKind

  package enum Part: Hashable, Sendable {
    case key(String)
    case index(Int)
  }

  /// Where a value is: `report` is the path findings name; inside a body, `keyPath` holds the keys
  /// from the body's root (for ``Redaction/jsonFields``) and `report` stays the body's own path.
  package struct Place {
    var report: [Part]
    var keyPath: [String]?
    /// Whether `report` and `keyPath` are kept up to date: only for findings, or for key paths
    /// when the redaction names some (redaction alone needs neither, and saves their copies).
    var tracks: Bool

    package init(report: [Part], keyPath: [String]?, tracks: Bool) {
      self.report = report
      self.keyPath = keyPath
      self.tracks = tracks
    }

    func key(_ key: String) -> Place {
      guard tracks else { return self }
      guard let keyPath else { return Place(report: report + [.key(key)], keyPath: nil, tracks: true) }
      return Place(report: report, keyPath: keyPath + [key], tracks: true)
    }

    func index(_ index: Int) -> Place {
      tracks && keyPath == nil ? Place(report: report + [.index(index)], keyPath: nil, tracks: true) : self
    }

    /// The same place, as the root of a body.
    package var body: Place { Place(report: report, keyPath: [], tracks: tracks) }
  }

  package struct Finding: Hashable {
    package let path: [Part]
    package let kind: Kind
  }

  package let rules: SecretRules
  let collectsFindings: Bool
  private(set) package var findings: [Finding] = []
  private var seen: Set<Finding> = []
  private var echoes = EchoSet()
  private(set) package var changes = 0
  /// The `Content-Encoding` of the request or response being walked.
  package var contentEncoding = ""
  /// Whether a JSON key is secret by its name, by key.
  private var secretKeys: [String: Bool] = [:]
  /// Whether a name is like a key's (``SecretRules/isKeyLike(_:)``), by name.
  private var keyLikeNames: [String: Bool] = [:]
  private static let pairLists: Set<String> = ["headers", "cookies", "queryString", "params"]

  /// Scans a HAR body (the `text` of a `content` or `postData`, in the object that holds it) in
  /// its encoding: recording's part (``SecretWalker/body(_:in:_:)``). Without it, a body is text.
  package var bodies: ((inout SecretWalker, String, [String: JSONValue], Place) -> (String, JSONValue?))?

  package init(rules: SecretRules, collectsFindings: Bool) {
    self.rules = rules
    self.collectsFindings = collectsFindings
  }

  /// The value of `Content-Encoding` in a HAR headers list, or empty.
  static func contentEncodingHeader(in headers: [JSONValue]) -> String {
    for header in headers {
      guard case .object(let object) = header, case .string(let name)? = object["name"],
        name.lowercased() == "content-encoding", case .string(let value)? = object["value"]
      else { continue }
      return value
    }
    return ""
  }

  /// `values` (one document, or entries that share their secrets) with every secret replaced.
  /// `paths` are where each value is, for the findings.
  mutating package func redact(_ values: [JSONValue], at paths: [[Part]]? = nil) -> [JSONValue] {
    let tracks = collectsFindings || !rules.jsonPaths.isEmpty
    func place(_ index: Int) -> Place { Place(report: paths?[index] ?? [], keyPath: nil, tracks: tracks) }
    var output = values.enumerated().map { walk($1, place($0), parent: nil, secret: nil, keyLike: nil) }
    // The values redacted in the first pass, wherever else they appear.
    if !echoes.isEmpty {
      echoes.prepare()
      output = output.enumerated().map { walk($1, place($0), parent: nil, secret: nil, keyLike: nil) }
    }
    return output
  }

  // MARK: Structure

  /// `secret`: the key this value is under when that key is secret (its strings are replaced);
  /// `keyLike`: the key when it is named like a key's (its high-entropy strings are replaced).
  private mutating func walk(
    _ value: JSONValue, _ place: Place, parent: String?, secret: String?, keyLike: String?
  ) -> JSONValue {
    switch value {
    case .string(let string):
      if let secret, !string.isEmpty, string != SecretRules.marker {
        found(.secretJSONField(secret), place, secrets: [string])
        return .string(SecretRules.marker)
      }
      if let keyLike, SecretRules.isHighEntropy(string) {
        found(.highEntropyValue(keyLike), place, secrets: [string])
        return .string(SecretRules.marker)
      }
      return .string(text(string, place))
    case .array(let elements):
      let list = parent.flatMap { Self.pairLists.contains($0) ? $0 : nil }
      return .array(
        elements.enumerated().map { index, element in
          if let list, case .object(let object) = element, case .string(let name)? = object["name"] {
            return .object(pair(list, name: name, object, place))
          }
          return walk(element, place.index(index), parent: nil, secret: secret, keyLike: keyLike)
        })
    case .object(let object):
      var result = object
      let outer = contentEncoding
      defer { contentEncoding = outer }
      if place.keyPath == nil, case .array(let headers)? = object["headers"] {
        contentEncoding = Self.contentEncodingHeader(in: headers)
      }
      // In key order when reporting, so that findings come in a stable order.
      var bodyEncoding: (new: JSONValue?, old: JSONValue?)?
      for key in collectsFindings ? object.keys.sorted() : Array(object.keys) {
        guard let inner = object[key] else { continue }
        let child = place.key(key)
        if place.keyPath == nil, key == "text", case .string(let text) = inner {
          var (redacted, encoding) = (self.text(text, child.body), object["encoding"])
          if let bodies { (redacted, encoding) = bodies(&self, text, object, child) }
          result[key] = .string(redacted)
          // Set after the loop: a body replaced by its digest loses its encoding.
          bodyEncoding = (encoding, object["encoding"])
        } else {
          let secret = isSecret(key: key, keyPath: place.keyPath) ? key : nil
          let keyLike = secret == nil && isKeyLike(key) ? key : nil
          result[key] = walk(inner, child, parent: key, secret: secret, keyLike: keyLike)
        }
      }
      if let bodyEncoding, bodyEncoding.new != bodyEncoding.old { result["encoding"] = bodyEncoding.new }
      return .object(result)
    default:
      return value
    }
  }

  /// ``SecretRules/isKeyLike(_:)``, remembering what each name is.
  mutating func isKeyLike(_ name: String) -> Bool {
    guard rules.entropy else { return false }
    if let known = keyLikeNames[name] { return known }
    let keyLike = rules.isKeyLike(name)
    keyLikeNames[name] = keyLike
    return keyLike
  }

  /// ``SecretRules/key(_:keyPath:)``, remembering what each name is.
  private mutating func isSecret(key: String, keyPath: [String]?) -> Bool {
    let byName: Bool
    if let known = secretKeys[key] {
      byName = known
    } else {
      byName = rules.key(key, keyPath: nil)
      secretKeys[key] = byName
    }
    return byName || (keyPath != nil && !rules.jsonPaths.isEmpty && rules.key(key, keyPath: keyPath))
  }

  /// A `{name, value}` element of a header, cookie, query or form list; reported under its name.
  private mutating func pair(
    _ list: String, name: String, _ object: [String: JSONValue], _ place: Place
  ) -> [String: JSONValue] {
    let field = place.key(name)
    var result = object
    for key in object.keys.sorted() where key != "name" && key != "value" {
      if let inner = object[key] {
        result[key] = walk(inner, field.key(key), parent: key, secret: nil, keyLike: nil)
      }
    }
    guard case .string(let value)? = object["value"] else { return result }
    var kind: Kind?
    switch list {
    case "headers": kind = rules.header(name, value: value)
    case "cookies": kind = rules.cookies ? .cookie : nil
    default: kind = rules.parameter(Self.decodedName(Substring(name))) ? .secretParameter(name) : nil
    }
    if kind == nil, isKeyLike(list == "headers" ? name : Self.decodedName(Substring(name))),
      SecretRules.isHighEntropy(list == "headers" ? value : Self.decodedName(Substring(value)))
    {
      kind = .highEntropyValue(name)
    }
    if let kind, !value.isEmpty, value != SecretRules.marker {
      found(kind, field, secrets: Self.pieces(of: value))
      result["value"] = .string(SecretRules.marker)
    } else {
      result["value"] = .string(text(value, field))
    }
    return result
  }

  // MARK: Text

  /// Any string: JSON inside it, known secret formats, secret `name=value` pairs, repeated
  /// secrets.
  mutating package func text(_ string: String, _ place: Place) -> String {
    guard !string.isEmpty, string != SecretRules.marker else { return string }
    if let json = Self.embeddedJSON(string) {
      let before = changes
      let walked = walk(json, place.body, parent: nil, secret: nil, keyLike: nil)
      guard changes != before else { return string }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      guard let data = try? encoder.encode(walked) else { return SecretRules.marker }
      return String(decoding: data, as: UTF8.self)
    }
    var result = string
    if rules.values, result.utf8.count >= SecretRules.shortestValue { result = formats(result, place) }
    result = pairs(result, place)
    if rules.names || rules.entropy || !rules.parameters.isEmpty { result = multipart(result, place) }
    if rules.names { result = userInformation(result, place) }
    if rules.names || rules.entropy || !rules.parameters.isEmpty { result = markup(result, place) }
    if rules.names || rules.entropy { result = quotedPairs(result, place) }
    if !echoes.isEmpty, let replaced = echoes.replacing(in: result) {
      found(.repeatedSecret, place, secrets: [])
      result = replaced
    }
    return result
  }

  /// An object or array held in a string, such as a JSON body.
  private static func embeddedJSON(_ string: String) -> JSONValue? {
    guard let first = string.utf8.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
      first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    else { return nil }
    guard let json = JSONValue(reading: Array(string.utf8)) else { return nil }
    switch json {
    case .object, .array: return json
    default: return nil
    }
  }

  /// Replaces the known secret formats: keys, tokens, private keys.
  private mutating func formats(_ string: String, _ place: Place) -> String {
    guard let pattern = SecretRules.valuePattern, SecretRules.mayHoldKnownFormat(string) else { return string }
    var result = ""
    var copied = string.startIndex
    for match in pattern.regex.matches(in: string, range: NSRange(string.startIndex..., in: string)) {
      for (offset, kind) in SecretRules.valueKinds.enumerated() {
        let group = match.range(at: offset + 1)
        guard group.location != NSNotFound, let range = Range(group, in: string) else { continue }
        guard string[range] != SecretRules.marker, range.lowerBound >= copied else { break }
        result += string[copied..<range.lowerBound]
        result += SecretRules.marker
        copied = range.upperBound
        found(kind, place, secrets: [String(string[range])])
        break
      }
    }
    guard copied != string.startIndex else { return string }
    result += string[copied...]
    return result
  }

  /// Replaces the values of secret `name=value` pairs: in URLs (their fragments too), form bodies,
  /// connection strings and any text, where a pair starts the text or follows `?`, `&`, `#`, `;`,
  /// a quote, a comma or white space.
  private mutating func pairs(_ string: String, _ place: Place) -> String {
    guard rules.names || rules.entropy || !rules.parameters.isEmpty, string.utf8.contains(UInt8(ascii: "="))
    else { return string }
    var text = RedactedText(string)
    let bytes = text.bytes
    var index = 0
    var atStart = true
    while index < bytes.count {
      if atStart, let (equals, end) = Self.pair(in: bytes, at: index) {
        let value = bytes[(equals + 1)..<end]
        let name = Self.decodedName(Substring(decoding: bytes[index..<equals], as: UTF8.self))
        if !value.isEmpty, !text.isMarker((equals + 1)..<end) {
          let raw = String(decoding: value, as: UTF8.self)
          let kind: Kind? =
            rules.parameter(name)
            ? .secretParameter(name)
            : isKeyLike(name) && SecretRules.isHighEntropy(Self.decodedName(Substring(raw)))
              ? .highEntropyValue(name) : nil
          if let kind {
            text.redact((equals + 1)..<end)
            found(kind, place, secrets: [raw, Self.decodedName(Substring(raw))])
          }
        }
        index = end
        atStart = false
        continue
      }
      let byte = bytes[index]
      atStart = Self.startsPair(byte)
      index += 1
    }
    return text.text(else: string)
  }

  /// The bytes after which a `name=value` pair may start: white space and control characters, a
  /// URL's query and fragment, a form's or a connection string's separators, quotes and commas (a
  /// value shown in a report).
  private static func startsPair(_ byte: UInt8) -> Bool {
    switch byte {
    case 0...0x20, UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: ";"), UInt8(ascii: "\""),
      UInt8(ascii: "'"), UInt8(ascii: ","):
      true
    default: false
    }
  }

  /// The `=` and the end of a `name=value` pair starting at `start`.
  private static func pair(in bytes: [UInt8], at start: Int) -> (equals: Int, end: Int)? {
    var equals = start
    while equals < bytes.count, !stopsName(bytes[equals]) { equals += 1 }
    guard equals > start, equals < bytes.count, bytes[equals] == UInt8(ascii: "=") else { return nil }
    var end = equals + 1
    while end < bytes.count, !stopsValue(bytes[end]) { end += 1 }
    return (equals, end)
  }

  private static func stopsName(_ byte: UInt8) -> Bool {
    switch byte {
    case 0...0x20, UInt8(ascii: "="), UInt8(ascii: "&"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "\""),
      UInt8(ascii: "'"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: ","),
      UInt8(ascii: ";"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "("), UInt8(ascii: ")"):
      true
    default: false
    }
  }

  private static func stopsValue(_ byte: UInt8) -> Bool {
    switch byte {
    case 0...0x20, UInt8(ascii: "&"), UInt8(ascii: "#"), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "<"),
      UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: ";"):
      true
    default: false
    }
  }

  /// A form or query name (or value) decoded: `+` is a space, `%5F` is `_`.
  static func decodedName(_ raw: Substring) -> String {
    let spaced = raw.replacingOccurrences(of: "+", with: " ")
    return spaced.removingPercentEncoding ?? spaced
  }

  /// A secret header's value and the parts of it that may repeat elsewhere: the credentials after
  /// the scheme, each cookie's value (a `Set-Cookie` of several lines, as browsers write one sent
  /// more than once, has a cookie on each). A cookie's attributes (`Expires=`, `Domain=`,
  /// `Path=`…) are not secret: their values recur as dates and host names that must stay.
  private static func pieces(of value: String) -> [String] {
    var pieces: [String] = []
    // The whole value, and what follows a scheme (`Bearer …`), only when each is one token: a
    // value of pairs (`guid=…`) recurs inside longer names (`?shguid=…`), whose names must stay.
    if !holdsPairs(value[...]) { pieces.append(value) }
    if let space = value.firstIndex(of: " ") {
      let credentials = value[value.index(after: space)...]
      if !holdsPairs(credentials) { pieces.append(String(credentials)) }
    }
    for part in value.split(whereSeparator: { $0 == ";" || $0 == "\n" }) {
      guard let equals = part.firstIndex(of: "=") else { continue }
      let name = part[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
      if cookieAttributes.contains(name) { continue }
      var cookie = part[part.index(after: equals)...]
      if cookie.count >= 2, cookie.first == "\"", cookie.last == "\"" { cookie = cookie.dropFirst().dropLast() }
      // A cookie whose value is pairs itself (`GUID=…`, `id=…:lv=…`): each inner value, so that
      // where the pair recurs (`?elq1pcGUID=…`) only its value is replaced, not its name.
      guard holdsPairs(cookie) else {
        pieces.append(String(cookie))
        continue
      }
      for inner in cookie.split(whereSeparator: { $0 == "&" || $0 == ":" || $0 == "|" || $0 == "," }) {
        if let innerEquals = inner.firstIndex(of: "=") {
          pieces.append(String(inner[inner.index(after: innerEquals)...]))
        }
      }
    }
    return pieces
  }

  /// Whether `text` holds a `=` other than base64's padding at its end (or before a closing quote).
  private static func holdsPairs(_ text: Substring) -> Bool {
    var unpadded = text
    if unpadded.last == "\"" { unpadded = unpadded.dropLast() }
    while unpadded.last == "=" { unpadded = unpadded.dropLast() }
    return unpadded.contains("=")
  }

  /// The attributes a `Set-Cookie` value may carry after the cookie itself (RFC 6265 and what
  /// browsers added since), lower-cased.
  private static let cookieAttributes: Set<String> = [
    "expires", "max-age", "domain", "path", "samesite", "secure", "httponly", "priority", "partitioned",
    "version", "comment",
  ]

  // MARK: Findings

  mutating package func found(_ kind: Kind, _ place: Place, secrets: [String]) {
    changes += 1
    if rules.echoes {
      for secret in secrets where SecretRules.isRepeatable(secret) { echoes.insert(secret) }
    }
    guard collectsFindings else { return }
    let finding = Finding(path: place.report, kind: kind)
    if seen.insert(finding).inserted { findings.append(finding) }
  }
}

/// Redacted values to look for in other places, all found in one pass over a text (Aho–Corasick
/// over UTF-8 bytes): linear in the text, however many values there are and however much they
/// share (JSON Web Tokens from one issuer begin alike).
struct EchoSet {
  private var values: Set<String> = []
  private var automaton: Automaton?

  var isEmpty: Bool { values.isEmpty }

  mutating func insert(_ value: String) {
    if values.insert(value).inserted { automaton = nil }
  }

  /// Builds the matcher; call once every value is in.
  mutating func prepare() {
    if automaton == nil, !values.isEmpty { automaton = Automaton(values.sorted()) }
  }

  /// `text` with every value replaced by the marker (the leftmost, then the longest, first), or
  /// `nil` when none is in it.
  func replacing(in text: String) -> String? {
    guard let automaton else { return nil }
    var redacted = RedactedText(text)
    let bytes = redacted.bytes
    guard bytes.count >= automaton.shortest else { return nil }
    // The longest value ending at each byte, as (start, end); later ones start later or are longer.
    var found: [(start: Int, end: Int)] = []
    var node = 0
    for (index, byte) in bytes.enumerated() {
      node = automaton.step(node, byte)
      let length = automaton.longest[node]
      guard length > 0 else { continue }
      let match = (start: index + 1 - length, end: index + 1)
      // A match starting at or before the previous one's start contains it: keep the larger.
      while let last = found.last, match.start <= last.start { found.removeLast() }
      found.append(match)
    }
    guard !found.isEmpty else { return nil }
    for match in found where match.start >= redacted.copied { redacted.redact(match.start..<match.end) }
    return redacted.text(else: text)
  }

  /// The trie of the values' bytes with failure links.
  private struct Automaton {
    /// Transitions, keyed by `node << 8 | byte`.
    private var next: [Int: Int] = [:]
    private var failure: [Int] = [0]
    /// The length of the longest value ending at each node (0 when none).
    private(set) var longest: [Int] = [0]
    let shortest: Int

    init(_ values: [String]) {
      var depth = [0]
      var shortest = Int.max
      for value in values {
        let bytes = Array(value.utf8)
        shortest = min(shortest, bytes.count)
        var node = 0
        for byte in bytes {
          if let child = next[node << 8 | Int(byte)] {
            node = child
          } else {
            let child = failure.count
            failure.append(0)
            longest.append(0)
            depth.append(depth[node] + 1)
            next[node << 8 | Int(byte)] = child
            node = child
          }
        }
        longest[node] = bytes.count
      }
      self.shortest = shortest
      // Breadth first, so that a node's failure is final before its children need it.
      var children: [[(UInt8, Int)]] = Array(repeating: [], count: failure.count)
      for (key, child) in next { children[key >> 8].append((UInt8(key & 0xFF), child)) }
      var queue = children[0].map(\.1)
      var head = 0
      while head < queue.count {
        let node = queue[head]
        head += 1
        if longest[node] == 0 { longest[node] = longest[failure[node]] }
        for (byte, child) in children[node] {
          var fallback = failure[node]
          while fallback != 0, next[fallback << 8 | Int(byte)] == nil { fallback = failure[fallback] }
          if node != 0, let target = next[fallback << 8 | Int(byte)], target != child { failure[child] = target }
          queue.append(child)
        }
      }
    }

    func step(_ node: Int, _ byte: UInt8) -> Int {
      var node = node
      while true {
        if let child = next[node << 8 | Int(byte)] { return child }
        if node == 0 { return 0 }
        node = failure[node]
      }
    }
  }
}

extension JSONValue {
  /// Parses JSON bytes with the package's own reader, which (unlike `JSONDecoder` into
  /// `JSONValue`) throws no error per value; `nil` when they are not JSON.
  init?(reading bytes: [UInt8]) {
    guard let parsed = try? PositionedJSONParser.parse(bytes) else { return nil }
    self = parsed.jsonValue
  }

  /// `value` as `JSONEncoder` writes it and reading it back gives, built without the bytes
  /// (``JSONValueEncoder``); the error `JSONEncoder` would throw for it.
  package init<T: Encodable>(fastEncoding value: T) throws {
    self = try JSONValueEncoder.encode(value)
  }
}
