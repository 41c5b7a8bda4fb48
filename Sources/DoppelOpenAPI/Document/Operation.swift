#if OpenAPI
  import Doppel
  import Foundation

  /// One operation of the document, compiled once: what a request must send and what the
  /// responses may be.
  struct Operation: Sendable {
    struct Parameter: Sendable {
      /// `path`, `query`, `header` or `cookie`.
      let place: String
      let name: String
      let required: Bool
      let schema: Int?
      let location: DocumentLocation
    }

    struct MediaType: Sendable {
      /// `application/json`, `application/*`, `*/*`.
      let type: String
      let schema: Int?
      let example: JSONValue?
      /// The named examples, in document order.
      let examples: [(name: String, value: JSONValue)]
      let location: DocumentLocation
      /// `type` without parameters, in lower case (``baseType(_:)``), made once.
      let base: String
      /// Whether the body is JSON (``isJSON(_:)``), worked out once.
      let isJSON: Bool

      /// The schema of each item of a stream (OpenAPI 3.2's `itemSchema`).
      let itemSchema: Int?
      /// Whether the media type is a stream of items: `text/event-stream`, JSON Lines
      /// (`application/jsonl`, `application/x-ndjson`, `application/json-seq`).
      var isStream: Bool {
        ["text/event-stream", "application/jsonl", "application/x-ndjson", "application/json-seq"].contains(base)
      }

      init(
        type: String, schema: Int?, example: JSONValue?, examples: [(name: String, value: JSONValue)],
        location: DocumentLocation, itemSchema: Int? = nil
      ) {
        self.type = type
        self.schema = schema
        self.itemSchema = itemSchema
        self.example = example
        self.examples = examples
        self.location = location
        base = Self.baseType(type)
        isJSON = Self.isJSON(type)
      }

      static func isJSON(_ type: String) -> Bool {
        let base = baseType(type)
        return base == "application/json" || base.hasSuffix("+json") || base == "*/*" || base == "application/*"
      }

      /// Whether `contentType` (a header value) is this media type or within its range.
      func accepts(_ contentType: String) -> Bool {
        // The usual case, the type exactly as documented, without reading it byte by byte.
        if contentType == type { return true }
        let given = Self.baseType(contentType)
        let mine = base
        if mine == "*/*" || mine == given { return true }
        if mine.hasSuffix("/*") { return given.hasPrefix(String(mine.dropLast())) }
        return false
      }

      /// A media type or `Content-Type` value without its parameters, trimmed and in lower case:
      /// `Application/JSON; charset=utf-8` is `application/json`. ASCII is handled byte by byte
      /// (this runs for every message checked); anything else goes through `lowercased()`.
      static func baseType(_ value: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var isASCII = true
        for byte in value.utf8 {
          if byte == UInt8(ascii: ";") { break }
          if byte >= 0x80 { isASCII = false }
          bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
        }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.endIndex
        let base = String(decoding: bytes[start...], as: UTF8.self)
        return isASCII ? base : base.lowercased()
      }
    }

    struct Header: Sendable {
      let name: String
      let required: Bool
      let schema: Int?
      let example: JSONValue?
      let location: DocumentLocation
    }

    struct Body: Sendable {
      let required: Bool
      let content: [MediaType]
      let location: DocumentLocation
    }

    struct Reply: Sendable {
      /// `200`, `4XX` or `default`.
      let status: String
      let headers: [Header]
      let content: [MediaType]
      let location: DocumentLocation

      /// Whether this reply describes `code`.
      func covers(_ code: Int) -> Bool {
        if status == String(code) { return true }
        if status.count == 3, status.uppercased().hasSuffix("XX"), let first = status.first,
          let digit = first.wholeNumberValue
        {
          return code / 100 == digit
        }
        return false
      }

      /// The status served when this reply is chosen.
      var servedStatus: Int {
        if let code = Int(status) { return code }
        if status == "default" { return 200 }
        return (status.first?.wholeNumberValue ?? 2) * 100
      }
    }

    let id: String?
    let method: HTTPMethod
    /// The path template as written under `paths`: `/breeds/{breedId}`.
    let template: String
    let segments: [Segment]
    let parameters: [Parameter]
    let body: Body?
    let replies: [Reply]
    let location: DocumentLocation
    let responsesLocation: DocumentLocation
    /// Where the path is written under `paths`.
    let pathLocation: DocumentLocation
    /// The credentials the operation requires: any one of the alternatives, each a list of
    /// credentials sent together. Empty when it requires none (or an alternative is empty).
    var security: [[Credential]] = []

    /// A credential a security scheme names: where the request carries it.
    struct Credential: Sendable {
      /// The scheme's name under `components.securitySchemes`.
      let scheme: String
      /// `header`, `query` or `cookie`.
      let place: String
      /// The header, query item or cookie: `Authorization`, `api_key`.
      let name: String
    }

    enum Segment: Sendable, Equatable {
      case literal(String)
      case parameter(String)
    }

    /// Whether the path has a parameter (`/breeds/{id}`), so that a more specific path may take
    /// a request that fits it.
    var isTemplated: Bool { segments.contains { if case .parameter = $0 { true } else { false } } }

    /// `GET /breeds/{id}`: what tells the operation apart from every other of its document.
    var key: String { "\(method.rawValue) \(template)" }

    /// `listBreeds`, or `GET /breeds` when the operation has no id.
    var name: String { id ?? "\(method.rawValue) \(template)" }

    /// The reply that describes `status`: the exact code first, then its range (`4XX`), then `default`.
    func reply(for status: Int) -> Reply? {
      replies.first { $0.status == String(status) } ?? replies.first { $0.status != "default" && $0.covers(status) }
        ?? replies.first { $0.status == "default" }
    }

    /// Path parameters when `path` (without the server's base path) fits the template.
    func match(_ segments: [Substring]) -> [String: String]? {
      guard segments.count == self.segments.count else { return nil }
      var captures: [String: String] = [:]
      for (mine, theirs) in zip(self.segments, segments) {
        switch mine {
        case .literal(let text): if text != theirs { return nil }
        case .parameter(let name):
          if theirs.isEmpty { return nil }
          captures[name] = Self.decoded(theirs)
        }
      }
      return captures
    }

    /// Path parameters when a stub's path (a template's segments, without the server's base
    /// path) reaches this operation: a stub's `{parameter}` fits only a parameter of the template,
    /// a literal fits the same literal or a parameter (whose value it is).
    func match(template segments: [Substring]) -> [String: String]? {
      guard segments.count == self.segments.count else { return nil }
      var captures: [String: String] = [:]
      for (mine, theirs) in zip(self.segments, segments) {
        let isParameter = theirs.hasPrefix("{") && theirs.hasSuffix("}")
        switch mine {
        case .literal(let text): if isParameter || text != theirs { return nil }
        case .parameter(let name):
          if theirs.isEmpty { return nil }
          if !isParameter { captures[name] = Self.decoded(theirs) }
        }
      }
      return captures
    }

    /// A path segment with its percent escapes decoded (left as it is when they are not valid).
    static func decoded(_ segment: Substring) -> String {
      let text = String(segment)
      guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
      return text.removingPercentEncoding ?? text
    }

    /// How two paths compare for routing, as OpenAPI says a path is chosen: above 0 when `left` is
    /// the more specific, below 0 when `right` is, 0 when neither. A concrete path (no parameter)
    /// comes before a templated one; then the path with more literal segments; then the one whose
    /// first literal segment where they differ is further left (`/users/me/{x}` before
    /// `/users/{id}/posts`).
    static func specificity(_ left: [Segment], _ right: [Segment]) -> Int {
      func isLiteral(_ segment: Segment) -> Bool { if case .literal = segment { true } else { false } }
      let leftLiterals = left.count { isLiteral($0) }
      let rightLiterals = right.count { isLiteral($0) }
      let leftConcrete = leftLiterals == left.count
      let rightConcrete = rightLiterals == right.count
      if leftConcrete != rightConcrete { return leftConcrete ? 1 : -1 }
      if leftLiterals != rightLiterals { return leftLiterals > rightLiterals ? 1 : -1 }
      for (one, other) in zip(left, right) where isLiteral(one) != isLiteral(other) {
        return isLiteral(one) ? 1 : -1
      }
      return 0
    }

    static func segments(of template: String) -> [Segment] {
      template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
        if part.hasPrefix("{") && part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
        return .literal(String(part))
      }
    }
  }
#endif
