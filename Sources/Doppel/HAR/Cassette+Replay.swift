import Foundation

extension Cassette {
  /// What a replayed request must share with a recorded one to get its response.
  ///
  /// Always the method and the normalized URL: scheme and host in any case, a default port
  /// written or not, the path percent-decoded, and the same query items in any order. Optionally
  /// some header fields and the body too.
  public struct Matching: Sendable, Equatable {
    let headers: [String]
    let body: Bool

    /// The method and the normalized URL (the default).
    public static let methodAndURL = Matching(headers: [], body: false)

    /// The method, the normalized URL, and also the values of the header fields named in
    /// `headers` and, with `body`, the body (JSON bodies compare as JSON, key order ignored).
    public static func methodAndURL(headers: [String] = [], body: Bool = false) -> Matching {
      Matching(headers: headers, body: body)
    }
  }
}

extension Backend {
  /// Registers the cassette's entries as stubs, so that requests get the recorded responses.
  ///
  /// ```swift
  /// try backend.replay(Cassette.load(from: breedsHAR))
  /// try backend.replay(cassette, matching: .methodAndURL(headers: ["Accept"], body: true))
  /// ```
  ///
  /// Entries that match alike (same method, normalized URL, and chosen headers and body) become
  /// one stub answering with their responses in recorded order, the last one repeating: a test
  /// that sends the same request three times gets the three recorded responses. A recorded value
  /// that was redacted matches any value: the ``Redaction/marker`` stands for any text, in a query
  /// item, a header, a JSON body field, a form body or the path. Like other stubs, they take
  /// precedence over stubs registered before them.
  ///
  /// - Parameters:
  ///   - cassette: the recorded traffic.
  ///   - matching: what a request must share with a recorded one.
  ///   - name: what diagnostics call the cassette; the stubs are named `name entries[3]`.
  ///   - fileID: the file that replays the cassette, for diagnostics; leave the default.
  ///   - filePath: the full path of that file, for the test failure's location; leave the default.
  ///   - line: the line of the call; leave the default.
  ///   - column: the column of the call; leave the default.
  /// - Returns: the stubs, one per group of alike entries, in the order of their first entry.
  /// - Throws: ``DoppelError`` naming each entry that cannot be replayed (a relative URL, an
  ///   unknown body encoding).
  @discardableResult
  public func replay(
    _ cassette: Cassette, matching: Cassette.Matching = .methodAndURL, name: String = "cassette",
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) throws -> [StubHandle] {
    // One pass both checks every entry (as `validate(file:)` would) and groups them; nothing is
    // registered unless all of them can be replayed.
    var problems: [String] = []
    var groups: [(request: Request, indexes: [Int], responses: [Response])] = []
    var groupOfKey: [String: Int] = [:]
    for (index, entry) in cassette.entries.enumerated() {
      let request: Request
      let response: Response
      do {
        request = try entry.recordedRequest()
        response = try entry.replayResponse(for: HTTPMethod(entry.request.method))
      } catch {
        problems.append(error.message(place: name, index: index))
        continue
      }
      guard problems.isEmpty else { continue }
      let key = ReplayKey.key(for: request, matching)
      if let group = groupOfKey[key] {
        groups[group].indexes.append(index)
        groups[group].responses.append(response)
      } else {
        groupOfKey[key] = groups.count
        groups.append((request, [index], [response]))
      }
    }
    guard problems.isEmpty else { throw DoppelError(problems.joined(separator: "\n")) }
    return groups.map { group in
      stub(
        ReplayKey.matcher(for: group.request, matching),
        group.responses.count == 1 ? .response(group.responses[0]) : .sequence(group.responses, then: .repeatLast),
        name: "\(name) entries[\(group.indexes.map(String.init).joined(separator: ", "))]",
        fileID: fileID, filePath: filePath, line: line, column: column)
    }
  }
}

/// How recorded requests are grouped and matched.
enum ReplayKey {
  /// Alike requests share a key: method, normalized URL, and the chosen headers and body.
  static func key(for request: Request, _ matching: Cassette.Matching) -> String {
    var key = "\(request.method) \(normalizedURL(request))"
    for name in matching.headers {
      key += "\n\(name.lowercased()): " + request.headers.values(for: name).sorted().joined(separator: ", ")
    }
    if matching.body {
      let body = request.body ?? Data()
      if let json = try? JSONValue(parsing: body) {
        key += "\njson " + json.description
      } else {
        key += "\nbody " + body.base64EncodedString()
      }
    }
    return key
  }

  /// `https://api.example.com/breeds?a=1&b=2`: scheme and host lower-cased, no default port,
  /// the path percent-decoded, query items percent-decoded and sorted.
  static func normalizedURL(_ request: Request) -> String {
    var url = "\(request.scheme)://\(request.host)"
    if let port = request.effectivePort, port != Request.defaultPort(for: request.scheme) { url += ":\(port)" }
    url += request.path
    let items = sortedQuery(request)
    if !items.isEmpty { url += "?" + Matcher.describe(items) }
    return url
  }

  static func sortedQuery(_ request: Request) -> [QueryItem] {
    QueryItem.from(request).sorted { $0.name != $1.name ? $0.name < $1.name : $0.value < $1.value }
  }

  /// A matcher for requests alike to `recorded`, built from conditions the near-miss report can
  /// show field by field.
  static func matcher(for recorded: Request, _ matching: Cassette.Matching) -> Matcher {
    var parts: [Matcher] = [.method(recorded.method)]
    let scheme = recorded.scheme
    let port = recorded.effectivePort
    if port == Request.defaultPort(for: scheme) {
      // As in `https://host/…`: the scheme on its default port, written or not.
      parts.append(
        Matcher(
          Condition(
            field: "scheme", expected: scheme, summary: scheme, part: .scheme,
            actual: { request in
              request.effectivePort == port ? request.scheme : "\(request.scheme) on port \(request.effectivePort ?? 0)"
            },
            passes: { $0.scheme == scheme && $0.effectivePort == port })))
      parts.append(.host(recorded.host))
    } else {
      parts.append(.scheme(scheme))
      parts.append(.host(recorded.host))
      if let port { parts.append(.port(port)) }
    }
    let path = recorded.path
    // A path holding a redacted secret matches any text in its place, so it cannot be indexed.
    let redacted = path.contains(Redaction.marker)
    parts.append(
      Matcher(
        Condition(
          field: "path", expected: "\"\(path)\"", summary: path, part: .path, key: redacted ? nil : .path(path),
          actual: { "\"\($0.path)\"" },
          passes: { redacted ? matches(recorded: path, actual: $0.path) : $0.path == path }
        )))
    parts.append(queryMatcher(recorded))
    for name in matching.headers { parts.append(headerMatcher(name, recorded.headers.values(for: name))) }
    if matching.body { parts.append(bodyMatcher(recorded.body)) }
    return Matcher(.all(parts))
  }

  private static func queryMatcher(_ recorded: Request) -> Matcher {
    let expected = sortedQuery(recorded)
    let shown = Matcher.describe(expected)
    return Matcher(
      Condition(
        field: "query", expected: expected.isEmpty ? "none" : "exactly \"\(shown)\"", summary: shown, part: .query,
        actual: { request in
          let items = QueryItem.from(request)
          return items.isEmpty ? "none" : "\"\(Matcher.describe(items))\""
        },
        passes: { request in
          matches(
            recorded: expected.map { ($0.name, $0.value) }, actual: QueryItem.from(request).map { ($0.name, $0.value) })
        }))
  }

  private static func headerMatcher(_ name: String, _ recorded: [String]) -> Matcher {
    let expected = recorded.isEmpty ? "absent" : recorded.map { "\"\($0)\"" }.joined(separator: ", ")
    return Matcher(
      Condition(
        field: "header \(name)", expected: expected, summary: "\(name): \(recorded.joined(separator: ", "))",
        actual: { request in
          let values = request.headers.values(for: name)
          return values.isEmpty ? "absent" : values.map { "\"\($0)\"" }.joined(separator: ", ")
        },
        passes: { request in
          matches(recorded: recorded.map { (name, $0) }, actual: request.headers.values(for: name).map { (name, $0) })
        }))
  }

  private static func bodyMatcher(_ recorded: Data?) -> Matcher {
    let body = recorded ?? Data()
    let json = try? JSONValue(parsing: body)
    return Matcher(
      Condition(
        field: "body", expected: Matcher.summarize(recorded), summary: "body \(Matcher.summarize(recorded))",
        actual: { Matcher.summarize($0.body) },
        passes: { request in
          let actual = request.body ?? Data()
          if let json, let other = try? JSONValue(parsing: actual) { return matches(recorded: json, actual: other) }
          if actual == body { return true }
          guard let text = String(data: body, encoding: .utf8), text.contains(Redaction.marker) else { return false }
          return matches(recorded: text, actual: String(decoding: actual, as: UTF8.self))
        }))
  }

  /// Whether name-value pairs are the same, in any order; a recorded value holding the
  /// ``Redaction/marker`` matches any value of its name with any text in the marker's place.
  static func matches(recorded: [(String, String)], actual: [(String, String)]) -> Bool {
    guard recorded.count == actual.count else { return false }
    var remaining = actual
    // Exact values first, so a wildcard does not take a value an exact one needs.
    let exactFirst =
      recorded.filter { !$0.1.contains(Redaction.marker) } + recorded.filter { $0.1.contains(Redaction.marker) }
    for (name, value) in exactFirst {
      guard let index = remaining.firstIndex(where: { $0.0 == name && matches(recorded: value, actual: $0.1) }) else {
        return false
      }
      remaining.remove(at: index)
    }
    return true
  }

  /// Whether `actual` is `recorded` with any text (possibly none) in place of each
  /// ``Redaction/marker``: `Bearer REDACTED` matches `Bearer abc`, `/users/REDACTED/keys` matches
  /// `/users/sk_1/keys`.
  static func matches(recorded: String, actual: String) -> Bool {
    guard recorded.contains(Redaction.marker) else { return recorded == actual }
    let parts = recorded.components(separatedBy: Redaction.marker)
    guard let first = parts.first, let last = parts.last, actual.hasPrefix(first) else { return false }
    var rest = actual.dropFirst(first.count)
    for middle in parts.dropFirst().dropLast() where !middle.isEmpty {
      guard let found = rest.range(of: middle) else { return false }
      rest = rest[found.upperBound...]
    }
    return rest.count >= last.count && rest.hasSuffix(last)
  }

  /// JSON equality where a recorded string holding the ``Redaction/marker`` matches any string
  /// with any text in the marker's place, and a recorded marker alone matches any value.
  static func matches(recorded: JSONValue, actual: JSONValue) -> Bool {
    if recorded == .string(Redaction.marker) { return true }
    switch (recorded, actual) {
    case (.string(let left), .string(let right)):
      return matches(recorded: left, actual: right)
    case (.object(let left), .object(let right)):
      return left.count == right.count
        && left.allSatisfy { key, value in right[key].map { matches(recorded: value, actual: $0) } ?? false }
    case (.array(let left), .array(let right)):
      return left.count == right.count && zip(left, right).allSatisfy { matches(recorded: $0, actual: $1) }
    default:
      return recorded == actual
    }
  }
}
