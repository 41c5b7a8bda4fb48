import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Cassette {
  /// What a replayed request must share with a recorded one to get its response.
  ///
  /// The default, ``methodAndURL``, compares the method and the normalized URL: scheme and host
  /// in any case, a default port written or not, the path percent-decoded, and the same query
  /// items in any order. Each static builder is that default with one change, and the instance
  /// methods of the same names combine changes:
  ///
  /// ```swift
  /// try backend.replay(cassette, matching: .methodAndPath)
  /// try backend.replay(cassette, matching: .ignoringQueryItems(["ts", "token"]).comparingHeaders(["Accept"]))
  /// try backend.replay(cassette, matching: .ignoringJSONFields(["/meta/sentAt", "nonce"]))
  /// ```
  ///
  /// No header is compared unless asked: ``comparingHeaders(_:)-type.method`` compares the named ones, and
  /// ``ignoringHeaders(_:)-type.method`` compares every header the recorded request has except the named ones
  /// and ``headersNeverCompared``. The body is compared only with ``comparingBody-type.property`` or
  /// ``ignoringJSONFields(_:)-type.method``. A recorded value that was redacted matches any value.
  ///
  /// Recorded entries that match alike answer in recorded order, one per request, the last one
  /// repeating once all have answered.
  public struct Matching: Sendable, Equatable, CustomStringConvertible {
    /// What of the URL is compared.
    enum Target: Sendable, Equatable {
      /// Method, scheme, host, port, path and query.
      case methodAndURL
      /// Method and path only.
      case methodAndPath
      /// Nothing: only the custom rule decides.
      case nothing
    }

    /// Which header fields are compared.
    enum Headers: Sendable, Equatable {
      /// The named ones (none by default).
      case named([String])
      /// Every recorded one except these and ``headersNeverCompared``.
      case allExcept([String])
    }

    /// A rule written in code, compared by identity.
    struct Rule: Sendable, Equatable {
      let id = UUID()
      let passes: @Sendable (URLRequest, HAREntry) -> Bool
      static func == (left: Rule, right: Rule) -> Bool { left.id == right.id }
    }

    var target: Target = .methodAndURL
    /// `nil`: every query item is ignored; otherwise the names ignored.
    var ignoredQueryItems: [String]? = []
    var headers: Headers = .named([])
    /// `nil`: the body is not compared; otherwise the JSON fields removed before comparing.
    var ignoredJSONFields: [String]?
    var rules: [Rule] = []

    /// Header fields never compared by ``ignoringHeaders(_:)-type.method``, because the HTTP stack rather than
    /// the app sets them: `Host`, `Content-Length`, `Connection`, `Transfer-Encoding`,
    /// `Keep-Alive`, `Accept-Encoding`, `Accept-Language` and `User-Agent`, and HTTP/2
    /// pseudo-headers such as `:authority` that browsers record.
    public static let headersNeverCompared = [
      "Host", "Content-Length", "Connection", "Transfer-Encoding", "Keep-Alive", "Accept-Encoding", "Accept-Language",
      "User-Agent",
    ]

    /// The method and the normalized URL (the default).
    public static let methodAndURL = Matching()

    /// The method, the normalized URL, and also the values of the header fields named in
    /// `headers` and, with `body`, the body (JSON bodies compare as JSON, key order ignored).
    public static func methodAndURL(headers: [String] = [], body: Bool = false) -> Matching {
      var matching = Matching()
      matching.headers = .named(headers)
      if body { matching.ignoredJSONFields = [] }
      return matching
    }

    /// The method and the path only: scheme, host, port and query are ignored, as for a cassette
    /// recorded against one server and replayed against another, or URLs carrying tokens.
    public static let methodAndPath = Matching().methodAndPath

    /// The default, with query items named `names` ignored (on both sides).
    public static func ignoringQueryItems(_ names: [String]) -> Matching { Matching().ignoringQueryItems(names) }

    /// The default, with the whole query ignored.
    public static let ignoringAllQueryItems = Matching().ignoringAllQueryItems

    /// The default, also comparing the values of the header fields named `names` (in any case).
    public static func comparingHeaders(_ names: [String]) -> Matching { Matching().comparingHeaders(names) }

    /// The default, also comparing every header field the recorded request has, except those
    /// named `names` and ``headersNeverCompared``. Fields the request has and the recording does
    /// not are ignored.
    public static func ignoringHeaders(_ names: [String]) -> Matching { Matching().ignoringHeaders(names) }

    /// The default, also comparing the body: JSON bodies as JSON (key order ignored), others byte
    /// for byte.
    public static let comparingBody = Matching().comparingBody

    /// The default, also comparing the body as JSON once the fields at `pointers` are removed from
    /// both sides. Each is a JSON Pointer (RFC 6901: `/meta/sentAt`, `/items/0/id`, `~1` for `/`
    /// and `~0` for `~` in a name); a name without a leading `/` is a top-level field (`"nonce"`
    /// is `"/nonce"`). A body that is not JSON is compared byte for byte.
    public static func ignoringJSONFields(_ pointers: [String]) -> Matching { Matching().ignoringJSONFields(pointers) }

    /// Only `rule` decides: it gets the request and a recorded entry, and returns whether the
    /// entry answers the request. To add a condition to another rule, use ``requiring(_:)``.
    ///
    /// ```swift
    /// .custom { request, entry in request.url?.path == URL(string: entry.request.url)?.path }
    /// ```
    public static func custom(_ rule: @escaping @Sendable (URLRequest, HAREntry) -> Bool) -> Matching {
      var matching = Matching()
      matching.target = .nothing
      matching.ignoredQueryItems = nil
      return matching.requiring(rule)
    }

    /// This rule comparing the method and the path only.
    public var methodAndPath: Matching {
      var copy = self
      if copy.target == .methodAndURL { copy.target = .methodAndPath }
      copy.ignoredQueryItems = nil
      return copy
    }

    /// This rule, also ignoring query items named `names`.
    public func ignoringQueryItems(_ names: [String]) -> Matching {
      var copy = self
      copy.ignoredQueryItems = ignoredQueryItems.map { Self.adding(names, to: $0, caseSensitive: true) }
      return copy
    }

    /// This rule, ignoring the whole query.
    public var ignoringAllQueryItems: Matching {
      var copy = self
      copy.ignoredQueryItems = nil
      return copy
    }

    /// This rule, also comparing the header fields named `names`; when it compares every header
    /// (after ``ignoringHeaders(_:)-type.method``), the named ones are compared again.
    public func comparingHeaders(_ names: [String]) -> Matching {
      var copy = self
      switch headers {
      case .named(let compared):
        copy.headers = .named(Self.adding(names, to: compared, caseSensitive: false))
      case .allExcept(let ignored):
        let lowered = Set(names.map { $0.lowercased() })
        copy.headers = .allExcept(ignored.filter { !lowered.contains($0.lowercased()) })
      }
      return copy
    }

    /// This rule, comparing every header field the recorded request has except those named `names`
    /// (and ``headersNeverCompared``).
    public func ignoringHeaders(_ names: [String]) -> Matching {
      var copy = self
      switch headers {
      case .named: copy.headers = .allExcept(Self.adding(names, to: [], caseSensitive: false))
      case .allExcept(let ignored): copy.headers = .allExcept(Self.adding(names, to: ignored, caseSensitive: false))
      }
      return copy
    }

    /// This rule, also comparing the body.
    public var comparingBody: Matching {
      var copy = self
      if copy.ignoredJSONFields == nil { copy.ignoredJSONFields = [] }
      return copy
    }

    /// This rule, also comparing the body as JSON without the fields at `pointers` (see
    /// the static `ignoringJSONFields(_:)`).
    public func ignoringJSONFields(_ pointers: [String]) -> Matching {
      var copy = self
      let normalized = pointers.map { JSONPointer.normalized($0) }
      copy.ignoredJSONFields = Self.adding(normalized, to: ignoredJSONFields ?? [], caseSensitive: true)
      return copy
    }

    /// This rule, and also `rule`: a recorded entry answers a request only when `rule` returns
    /// `true` for them.
    public func requiring(_ rule: @escaping @Sendable (URLRequest, HAREntry) -> Bool) -> Matching {
      var copy = self
      copy.rules.append(Rule(passes: rule))
      return copy
    }

    /// The rule in words, as diagnostics show it: `method and path, ignoring query items ts`.
    public var description: String {
      var parts: [String] = []
      switch target {
      case .methodAndURL: parts.append("method and URL")
      case .methodAndPath: parts.append("method and path")
      case .nothing: break
      }
      if target == .methodAndURL {
        if let ignored = ignoredQueryItems {
          if !ignored.isEmpty { parts.append("ignoring query items " + ignored.joined(separator: ", ")) }
        } else {
          parts.append("ignoring all query items")
        }
      }
      switch headers {
      case .named(let names):
        if !names.isEmpty { parts.append("comparing headers " + names.joined(separator: ", ")) }
      case .allExcept(let names):
        parts.append("comparing every header" + (names.isEmpty ? "" : " but " + names.joined(separator: ", ")))
      }
      if let fields = ignoredJSONFields {
        parts.append(
          fields.isEmpty ? "comparing the body" : "comparing the body without " + fields.joined(separator: ", "))
      }
      if !rules.isEmpty { parts.append(rules.count == 1 ? "a custom rule" : "\(rules.count) custom rules") }
      return parts.joined(separator: ", ")
    }

    private static func adding(_ names: [String], to list: [String], caseSensitive: Bool) -> [String] {
      var result = list
      for name in names {
        let present = result.contains { caseSensitive ? $0 == name : $0.lowercased() == name.lowercased() }
        if !present { result.append(name) }
      }
      return result
    }
  }
}

// Removing fields from JSON bodies before they are compared.
extension JSONPointer {
  /// `/a/b` as is; a bare name `a` as `/a`.
  static func normalized(_ pointer: String) -> String {
    pointer.isEmpty || pointer.hasPrefix("/")
      ? pointer
      : "/"
        + pointer.replacingOccurrences(of: "~", with: "~0")
        .replacingOccurrences(of: "/", with: "~1")
  }

  /// The reference tokens of a normalized pointer: `/a~1b/0` is `["a/b", "0"]`.
  static func tokens(_ pointer: String) -> [String] {
    guard !pointer.isEmpty else { return [] }
    return pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
      $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }
  }

  /// `value` without what each pointer names; a pointer naming nothing changes nothing, and the
  /// empty pointer (the whole document) leaves `null`.
  static func removing(_ pointers: [String], from value: JSONValue) -> JSONValue {
    var result = value
    for pointer in pointers { result = removing(tokens(pointer)[...], from: result) }
    return result
  }

  private static func removing(_ tokens: ArraySlice<String>, from value: JSONValue) -> JSONValue {
    guard let first = tokens.first else { return .null }
    let rest = tokens.dropFirst()
    switch value {
    case .object(var members):
      guard let member = members[first] else { return value }
      if rest.isEmpty {
        members[first] = nil
      } else {
        members[first] = removing(rest, from: member)
      }
      return .object(members)
    case .array(var items):
      guard let index = Int(first), String(index) == first, items.indices.contains(index) else { return value }
      if rest.isEmpty {
        items.remove(at: index)
      } else {
        items[index] = removing(rest, from: items[index])
      }
      return .array(items)
    default:
      return value
    }
  }
}
