@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A test on a request, with a description that diagnostics can show field by field.
///
/// Build matchers with the static factories and combine them with `&&`, `||` and `!`:
///
/// ```swift
/// backend.stub(.get("https://api.example.com/breeds.json"), .json(breeds))
/// backend.stub(.post("/orders") && .jsonBody(["sku": "A1"]), .status(201))
/// backend.stub(.host("cdn.example.com") && !.path("/health"), .error(.notConnectedToInternet))
/// ```
///
/// A matcher built from bad input (an invalid URL string, a malformed template or pattern) never
/// crashes: it matches nothing and carries a ``problem`` that the backend reports when the stub is
/// registered and in every unmatched-request report.
public struct Matcher: Sendable, CustomStringConvertible {
  package indirect enum Node: Sendable {
    case condition(Condition)
    case all([Matcher])
    case any([Matcher])
    case not(Matcher)
  }

  package let node: Node
  /// The factory call that made this matcher (see ``Spelling``); `nil` for a matcher whose test is
  /// code.
  package var spelling: Spelling?
  /// What a stub derives from this matcher, worked out once for the matchers the method-and-URL
  /// factories cache (see ``Plan``); `nil` for the others, whose stubs work it out themselves.
  /// Whatever changes `node` makes a new matcher, without a plan.
  var plan: Plan?

  package init(_ node: Node) { self.node = node }

  package init(_ condition: Condition) { self.node = .condition(condition) }

  /// Captured path parameters when the request matches, `nil` when it does not.
  func evaluate(_ request: Request) -> [String: String]? {
    switch node {
    case .condition(let condition):
      if let literal = condition.literal { return literal.passes(request) ? [:] : nil }
      return condition.test(request)
    case .all(let matchers):
      var captures: [String: String] = [:]
      for matcher in matchers {
        guard let found = matcher.evaluate(request) else { return nil }
        if !found.isEmpty { captures.merge(found) { _, new in new } }
      }
      return captures
    case .any(let matchers):
      for matcher in matchers {
        if let found = matcher.evaluate(request) { return found }
      }
      return nil
    case .not(let matcher):
      return matcher.evaluate(request) == nil ? [:] : nil
    }
  }

  /// Whether `request` satisfies this matcher.
  public func matches(_ request: Request) -> Bool { evaluate(request) != nil }

  /// The first problem with how this matcher was built (for example an invalid URL string), if any.
  public var problem: DoppelError? {
    // Registering a stub asks, and so does every near-miss report for every stub: a matcher with a
    // plan (the method-and-URL factories' cached ones) answers from it.
    if let plan { return plan.problem }
    return foundProblem
  }

  /// ``problem``, found by walking the matcher.
  var foundProblem: DoppelError? {
    switch node {
    case .condition(let condition): return condition.problem
    case .all(let matchers), .any(let matchers): return matchers.lazy.compactMap(\.problem).first
    case .not(let matcher): return matcher.problem
    }
  }

  /// A short human description, for example `GET https://api.example.com/breeds.json`.
  public var description: String {
    switch node {
    case .condition(let condition):
      return condition.summary
    case .all(let matchers):
      return Self.summarize(matchers.flatMap(\.flattened))
    case .any(let matchers):
      return "(" + matchers.map(\.description).joined(separator: " || ") + ")"
    case .not(let matcher):
      return "!(" + matcher.description + ")"
    }
  }

  /// The top-level conjuncts: what the near-miss report lists one line each.
  package var flattened: [Matcher] {
    if case .all(let matchers) = node { return matchers.flatMap(\.flattened) }
    return [self]
  }

  /// Literal keys the router can index this matcher by.
  /// The conditions this matcher requires together, when it is only that (a condition, or an `&&`
  /// of conditions); `nil` when it has an `||` or a `!`. Stubs evaluate this flat list.
  var conjunction: [Condition]? {
    var conditions: [Condition] = []
    for matcher in flattened {
      guard case .condition(let condition) = matcher.node else { return nil }
      conditions.append(condition)
    }
    return conditions
  }

  var indexKeys: [Condition.IndexKey] {
    flattened.compactMap { matcher in
      if case .condition(let condition) = matcher.node { return condition.key }
      return nil
    }
  }

  /// One line per conjunct, for the near-miss report.
  package func check(_ request: Request) -> [CheckLine] {
    flattened.map { matcher in
      let passed = matcher.evaluate(request) != nil
      switch matcher.node {
      case .condition(let condition):
        return CheckLine(
          passed: passed, field: condition.field, expected: condition.expected,
          actual: condition.actual(request))
      default:
        return CheckLine(
          passed: passed, field: "matcher", expected: matcher.description,
          actual: passed ? "" : "no match")
      }
    }
  }

  package struct CheckLine: Sendable {
    package let passed: Bool
    package let field: String
    package let expected: String
    package let actual: String
  }

  private static func summarize(_ matchers: [Matcher]) -> String {
    var method = ""
    var scheme = ""
    var host = ""
    var port = ""
    var path = ""
    var query = ""
    var others: [String] = []
    for matcher in matchers {
      guard case .condition(let condition) = matcher.node else {
        others.append(matcher.description)
        continue
      }
      switch condition.part {
      case .method: method = condition.summary
      case .scheme: scheme = condition.summary
      case .host: host = condition.summary
      case .port: port = condition.summary
      case .path: path = condition.summary
      case .query: query = condition.summary
      case .other: others.append(condition.summary)
      }
    }
    var url = ""
    if !host.isEmpty {
      url = (scheme.isEmpty ? "" : scheme + "://") + host + (port.isEmpty ? "" : ":" + port)
    } else if !scheme.isEmpty {
      others.insert("scheme " + scheme, at: 0)
    }
    url += path
    if !query.isEmpty { url += "?" + query }
    let head = [method, url].filter { !$0.isEmpty }.joined(separator: " ")
    return ([head].filter { !$0.isEmpty } + others).joined(separator: ", ")
  }
}

/// A leaf test: one field of the request compared with an expectation. A class, so that matching
/// does not copy its strings and closures for every request.
final package class Condition: Sendable {
  /// Which part of the request the condition looks at, for summaries.
  package enum Part: Sendable { case method, scheme, host, port, path, query, other }

  /// A literal the router can index by.
  package enum IndexKey: Hashable, Sendable {
    case path(String)
    case host(String)
  }

  /// The label in the near-miss report: `method`, `path`, `header Accept`…
  let field: String
  /// The expectation as shown in reports: `GET`, `"/breeds.json"`…
  let expected: String
  /// The short form used in descriptions: `GET`, `/breeds.json`…
  let summary: String
  let part: Part
  let key: IndexKey?
  let problem: DoppelError?
  /// The request's value of this field, as shown in reports.
  let actual: @Sendable (Request) -> String
  /// Captures when the request passes, `nil` when it does not.
  let test: @Sendable (Request) -> [String: String]?
  /// The same test as `test`, for the literal conditions most stubs are made of, as a value the
  /// router compares directly instead of calling a closure.
  let literal: Literal?

  /// A literal comparison with one of the request's parsed parts.
  enum Literal: Sendable {
    case method(HTTPMethod)
    case scheme(String)
    /// The scheme, on its default port (or the port `nil` for a scheme without one).
    case schemeOnDefaultPort(String, Int?)
    case host(String)
    case port(Int)
    case path(String)

    @inline(__always)
    func passes(_ request: Request) -> Bool {
      switch self {
      case .method(let method): request.method == method
      case .scheme(let scheme): request.scheme == scheme
      case .schemeOnDefaultPort(let scheme, let port): request.scheme == scheme && request.effectivePort == port
      case .host(let host): request.host == host
      case .port(let port): request.effectivePort == port
      case .path(let path): request.path == path
      }
    }
  }

  init(
    field: String, expected: String, summary: String? = nil, part: Part = .other,
    key: IndexKey? = nil, problem: DoppelError? = nil, literal: Literal? = nil,
    actual: @escaping @Sendable (Request) -> String,
    test: @escaping @Sendable (Request) -> [String: String]?
  ) {
    self.field = field
    self.expected = expected
    self.summary = summary ?? "\(field) \(expected)"
    self.part = part
    self.key = key
    self.problem = problem
    self.literal = literal
    self.actual = actual
    self.test = test
  }

  /// A yes/no test.
  convenience package init(
    field: String, expected: String, summary: String? = nil, part: Part = .other,
    key: IndexKey? = nil,
    actual: @escaping @Sendable (Request) -> String,
    passes: @escaping @Sendable (Request) -> Bool
  ) {
    self.init(
      field: field, expected: expected, summary: summary, part: part, key: key, actual: actual,
      test: { passes($0) ? [:] : nil })
  }

  /// A condition that is a literal comparison: its closure test is the literal's.
  convenience init(
    field: String, expected: String, summary: String, part: Part, key: IndexKey? = nil, literal: Literal,
    actual: @escaping @Sendable (Request) -> String
  ) {
    self.init(
      field: field, expected: expected, summary: summary, part: part, key: key, literal: literal, actual: actual,
      test: { literal.passes($0) ? [:] : nil })
  }

  /// A condition that never matches, standing for bad input.
  static func invalid(_ problem: DoppelError) -> Condition {
    Condition(
      field: "invalid", expected: problem.message, summary: "<invalid: \(problem.message)>", problem: problem,
      actual: { _ in "" }, test: { _ in nil })
  }
}

extension Matcher {
  /// Matches every request.
  public static var any: Matcher {
    Matcher(
      Condition(
        field: "any", expected: "any request", summary: "any request", actual: { _ in "" }, passes: { _ in true })
    ).spelled(.any)
  }

  /// Matches when both match; captures from both are kept.
  public static func && (lhs: Matcher, rhs: Matcher) -> Matcher {
    Matcher(.all(lhs.flattened + rhs.flattened))
  }

  /// Matches when either matches (the left one is tried first).
  public static func || (lhs: Matcher, rhs: Matcher) -> Matcher {
    var parts: [Matcher] = []
    for side in [lhs, rhs] {
      if case .any(let inner) = side.node { parts += inner } else { parts.append(side) }
    }
    return Matcher(.any(parts))
  }

  /// Matches when `matcher` does not.
  public static prefix func ! (matcher: Matcher) -> Matcher { Matcher(.not(matcher)) }

  /// Matches with a closure of your own; `description` is what diagnostics show for it.
  public static func custom(
    _ description: String, _ predicate: @escaping @Sendable (Request) -> Bool
  ) -> Matcher {
    Matcher(
      Condition(
        field: "custom", expected: description, summary: description, actual: { _ in "no match" }, passes: predicate))
  }
}
