import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Backend {
  /// Registers the cassette's entries as stubs, so that requests get the recorded responses.
  ///
  /// ```swift
  /// try backend.replay(Cassette.load(from: breedsHAR))
  /// try backend.replay(cassette, matching: .methodAndPath.comparingHeaders(["Accept"]))
  /// ```
  ///
  /// Entries that match alike under `matching` (by default the same method and normalized URL)
  /// become one stub answering with their responses in recorded order, the last one repeating: a
  /// test that sends the same request three times gets the three recorded responses. A recorded
  /// value that was redacted matches any value: the ``Redaction/marker`` stands for any text, in a
  /// query item, a header, a JSON body field, a form body or the path. Like other stubs, they take
  /// precedence over stubs registered before them. The near-miss report of a request the cassette
  /// does not hold shows the rule in force on each stub's `rule` line.
  ///
  /// With `replayingTimings`, each response waits, on the backend's clock, as long as the
  /// recording did: the entry's `timings` before the response head (`blocked`, `dns`, `connect`,
  /// `send` and `wait`, a value of -1 counting as 0; the entry's `time` when it has no `timings`),
  /// and `receive` spread over the body.
  ///
  /// - Parameters:
  ///   - cassette: the recorded traffic.
  ///   - matching: what a request must share with a recorded one.
  ///   - replayingTimings: whether responses take as long as they did when recorded.
  ///   - name: what diagnostics call the cassette; the stubs are named `name entries[3]`.
  ///   - fileID: the file that replays the cassette, for diagnostics; leave the default.
  ///   - filePath: the full path of that file, for the test failure's location; leave the default.
  ///   - line: the line of the call; leave the default.
  ///   - column: the column of the call; leave the default.
  /// - Returns: the stubs, one per group of alike entries, in the order of their first entry.
  /// - Throws: ``DoppelError`` naming each entry that cannot be replayed (a relative URL, an
  ///   unknown body encoding, with `replayingTimings` a time that is negative or over 24 hours).
  @discardableResult
  public func replay(
    _ cassette: Cassette, matching: Cassette.Matching = .methodAndURL, replayingTimings: Bool = false,
    name: String = "cassette",
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) throws -> [StubHandle] {
    try cassette.replayedStubs(matching: matching, replayingTimings: replayingTimings, name: name).map { replayed in
      stub(
        replayed.matcher, replayed.responder, name: replayed.name, fileID: fileID, filePath: filePath, line: line,
        column: column)
    }
  }

  /// Replays `cassette`, read from the file at `path`, with each stub declared where its first
  /// entry is written in that file (`rec.har:14`), not at the caller: for a tool that serves files
  /// the user gave it.
  ///
  /// - Parameters:
  ///   - entryLines: the line of each entry in the file (see ``JSONLocation/entryLines(in:)``);
  ///     an entry beyond it counts as line 1.
  @discardableResult
  package func replay(
    _ cassette: Cassette, matching: Cassette.Matching, replayingTimings: Bool, name: String, path: String,
    entryLines: [Int]
  ) throws -> [StubHandle] {
    try cassette.replayedStubs(matching: matching, replayingTimings: replayingTimings, name: name).map { replayed in
      let line = entryLines.indices.contains(replayed.firstIndex) ? entryLines[replayed.firstIndex] : 1
      return stub(
        replayed.matcher, replayed.responder, name: replayed.name, fileID: name, filePath: path, line: line, column: 1)
    }
  }
}

extension Cassette {
  /// A stub made of one group of alike entries.
  package struct ReplayedStub: Sendable {
    package let matcher: Matcher
    package let responder: Responder
    /// `name entries[3, 4]`.
    package let name: String
    /// The number of the group's first entry.
    let firstIndex: Int
  }

  /// The stubs that replay this cassette, one per group of entries alike under `matching`, in the
  /// order of their first entry.
  ///
  /// - Throws: ``DoppelError`` with one line per entry that cannot be replayed, each starting with
  ///   `name`.
  package func replayedStubs(matching: Matching, replayingTimings: Bool, name: String) throws -> [ReplayedStub] {
    // One pass both checks every entry (as `validate(file:)` would) and groups them; nothing is
    // returned unless all of them can be replayed.
    var problems: [String] = []
    var groups = ReplayGroups<(index: Int, response: Response)>()
    for (index, entry) in entries.enumerated() {
      let request: Request
      var response: Response
      do {
        request = try entry.recordedRequest()
        response = try entry.replayResponse(for: HTTPMethod(entry.request.method))
        if replayingTimings { response = try entry.withRecordedTimings(response) }
      } catch {
        problems.append(error.message(place: name, index: index))
        continue
      }
      guard problems.isEmpty else { continue }
      groups.add((index, response), for: request, matching)
    }
    guard problems.isEmpty else { throw DoppelError.cassette(problems.joined(separator: "\n")) }
    return groups.groups.map { group in
      let indexes = group.members.map(\.index)
      let responses = group.members.map(\.response)
      let responder: Responder
      var matcher = ReplayKey.matcher(for: group.request, matching)
      if matching.rules.isEmpty {
        responder =
          responses.count == 1 ? .response(responses[0]) : .sequence(responses, then: .repeatLast)
      } else {
        let player = RuleReplay(
          rules: matching.rules.map(\.passes), entries: indexes.map { entries[$0] }, responses: responses)
        matcher = matcher && player.matcher
        responder = .handler { request in player.response(for: request) }
      }
      return ReplayedStub(
        matcher: matcher && ReplayKey.ruleLine(matching), responder: responder,
        name: "\(name) entries[\(indexes.map(String.init).joined(separator: ", "))]",
        firstIndex: indexes[0])
    }
  }
}

/// The entries of one group when custom rules decide which of them answers: each request gets
/// the first entry in recorded order that the rules accept and that has not answered yet, or once
/// all have, the last one the rules accept.
final class RuleReplay: Sendable {
  let rules: [@Sendable (URLRequest, HAREntry) -> Bool]
  let entries: [HAREntry]
  let responses: [Response]
  private let answered: Locked<Set<Int>>

  init(rules: [@Sendable (URLRequest, HAREntry) -> Bool], entries: [HAREntry], responses: [Response]) {
    self.rules = rules
    self.entries = entries
    self.responses = responses
    answered = Locked([])
  }

  func accepted(_ request: Request) -> [Int] {
    let urlRequest = request.urlRequest
    return entries.indices.filter { index in rules.allSatisfy { $0(urlRequest, entries[index]) } }
  }

  var matcher: Matcher {
    Matcher(
      Condition(
        field: "custom rule", expected: "accepts a recorded entry", summary: "custom rule",
        actual: { [self] request in accepted(request).isEmpty ? "accepts none" : "accepts one" },
        passes: { [self] request in !accepted(request).isEmpty }))
  }

  func response(for request: Request) -> Response {
    let candidates = accepted(request)
    let chosen = answered.withLock { answered -> Int? in
      guard let next = candidates.first(where: { !answered.contains($0) }) ?? candidates.last else { return nil }
      answered.insert(next)
      return next
    }
    return responses[chosen ?? responses.count - 1]
  }
}

/// Recorded requests grouped by their ``ReplayKey``, the groups in the order their first request
/// came: the first request of each, and what each of its requests brought (`Member`), in order.
package struct ReplayGroups<Member> {
  package private(set) var groups: [(request: Request, members: [Member])] = []
  private var indexOfKey: [String: Int] = [:]

  package init() {}

  /// Adds `member` to the group of `request` under `matching`, a new group when it is the first
  /// request of its key.
  package mutating func add(_ member: Member, for request: Request, _ matching: Cassette.Matching) {
    let key = ReplayKey.key(for: request, matching)
    if let index = indexOfKey[key] {
      groups[index].members.append(member)
    } else {
      indexOfKey[key] = groups.count
      groups.append((request, [member]))
    }
  }
}

/// How recorded requests are grouped and matched.
package enum ReplayKey {
  /// Alike requests share a key: what `matching` compares of them.
  static package func key(for request: Request, _ matching: Cassette.Matching) -> String {
    var key = ""
    switch matching.target {
    case .methodAndURL: key = "\(request.method) \(origin(request))\(request.path)"
    case .methodAndPath: key = "\(request.method) \(request.path)"
    case .nothing: break
    }
    if matching.target != .nothing, let ignored = matching.ignoredQueryItems {
      let items = query(request, ignoring: ignored)
      if !items.isEmpty { key += "?" + Matcher.describe(items) }
    }
    for name in comparedHeaders(request, matching) {
      key += "\n\(name.lowercased()): " + request.headers.values(for: name).sorted().joined(separator: ", ")
    }
    if let fields = matching.ignoredJSONFields {
      let body = request.body ?? Data()
      if let json = try? JSONValue(parsing: body) {
        key += "\njson " + JSONPointer.removing(fields, from: json).description
      } else {
        key += "\nbody " + body.base64EncodedString()
      }
    }
    return key
  }

  /// `https://api.example.com`: scheme and host lower-cased, no default port.
  static package func origin(_ request: Request) -> String {
    var url = "\(request.scheme)://\(request.host)"
    if let port = request.effectivePort, port != Request.defaultPort(for: request.scheme) { url += ":\(port)" }
    return url
  }

  /// The query items but those named in `ignored`, percent-decoded and sorted.
  static package func query(_ request: Request, ignoring ignored: [String]) -> [QueryItem] {
    QueryItem.from(request).filter { !ignored.contains($0.name) }
      .sorted { $0.name != $1.name ? $0.name < $1.name : $0.value < $1.value }
  }

  /// The header names `matching` compares for the recorded `request`, in a stable order.
  static func comparedHeaders(_ request: Request, _ matching: Cassette.Matching) -> [String] {
    switch matching.headers {
    case .named(let names):
      return names
    case .allExcept(let ignored):
      let skipped = Set((ignored + Cassette.Matching.headersNeverCompared).map { $0.lowercased() })
      var seen: Set<String> = []
      var names: [String] = []
      for field in request.headers {
        let lowered = field.name.lowercased()
        guard !lowered.hasPrefix(":"), !skipped.contains(lowered), seen.insert(lowered).inserted else { continue }
        names.append(field.name)
      }
      return names.sorted { $0.lowercased() < $1.lowercased() }
    }
  }

  /// A condition that always passes, so the near-miss report shows the rule in force.
  static func ruleLine(_ matching: Cassette.Matching) -> Matcher {
    let text = matching.description
    return Matcher(
      Condition(field: "rule", expected: text, summary: "rule " + text, actual: { _ in text }, passes: { _ in true }))
  }

  /// A matcher for requests alike to `recorded`, built from conditions the near-miss report can
  /// show field by field.
  static func matcher(for recorded: Request, _ matching: Cassette.Matching) -> Matcher {
    var parts: [Matcher] = []
    if matching.target != .nothing { parts.append(.method(recorded.method)) }
    let scheme = recorded.scheme
    let port = recorded.effectivePort
    if matching.target != .methodAndURL {
      // Neither scheme, host nor port.
    } else if port == Request.defaultPort(for: scheme) {
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
    if matching.target != .nothing {
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
      if let ignored = matching.ignoredQueryItems { parts.append(queryMatcher(recorded, ignoring: ignored)) }
    }
    for name in comparedHeaders(recorded, matching) {
      parts.append(headerMatcher(name, recorded.headers.values(for: name)))
    }
    if let fields = matching.ignoredJSONFields { parts.append(bodyMatcher(recorded.body, ignoring: fields)) }
    return Matcher(.all(parts))
  }

  private static func queryMatcher(_ recorded: Request, ignoring ignored: [String]) -> Matcher {
    let expected = query(recorded, ignoring: ignored)
    let shown = Matcher.describe(expected)
    let but = ignored.isEmpty ? "" : " (ignoring \(ignored.joined(separator: ", ")))"
    return Matcher(
      Condition(
        field: "query", expected: (expected.isEmpty ? "none" : "exactly \"\(shown)\"") + but, summary: shown,
        part: .query,
        actual: { request in
          let items = QueryItem.from(request)
          return items.isEmpty ? "none" : "\"\(Matcher.describe(items))\""
        },
        passes: { request in
          matches(
            recorded: expected.map { ($0.name, $0.value) },
            actual: QueryItem.from(request).filter { !ignored.contains($0.name) }.map { ($0.name, $0.value) })
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

  private static func bodyMatcher(_ recorded: Data?, ignoring fields: [String]) -> Matcher {
    let body = recorded ?? Data()
    let json = (try? JSONValue(parsing: body)).map { JSONPointer.removing(fields, from: $0) }
    let but = fields.isEmpty ? "" : " without \(fields.joined(separator: ", "))"
    return Matcher(
      Condition(
        field: "body", expected: Matcher.summarize(recorded) + but,
        summary: "body \(Matcher.summarize(recorded))\(but)",
        actual: { Matcher.summarize($0.body) },
        passes: { request in
          let actual = request.body ?? Data()
          if let json, let other = try? JSONValue(parsing: actual) {
            return matches(recorded: json, actual: JSONPointer.removing(fields, from: other))
          }
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
