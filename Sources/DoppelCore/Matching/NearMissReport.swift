@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Builds the message for a request that no stub matched: the request, the closest stubs with each
/// field marked ✓ or ✗, where each stub was declared, and the fix.
///
/// The report shows no secret that recording would redact (``ReportRedactor``): the request's URL,
/// body and headers, the stubs' descriptions and each field's values go through the same scanner
/// as a cassette, because the report reaches the 404 body, the test's issue and console, its
/// attachments and the dashboard.
package enum NearMissReport {
  static package let shown = 3

  static package func make(for original: Request, stubs: [StubHandle], state: StateMachines) -> String {
    var redactor = ReportRedactor()
    // Matching looks at the request as sent; what the report prints comes from the redacted one.
    let request = redactor.request(original)
    var lines = ["No stub matched \(request.method) \(request.url.absoluteString)"]
    if let body = request.body, !body.isEmpty {
      lines.append("  body: \(Matcher.summarize(body))")
    }
    let graphQL = GraphQLRequest(request)
    if let graphQL { lines.append("  GraphQL operation: \(graphQL.summary)") }
    let invalid = stubs.filter { $0.matcherProblem != nil }
    let ranked = rank(original, stubs.filter { $0.matcherProblem == nil }, state: state)
    if let origin = preflightOrigin(original) {
      lines.append(
        "This is a browser's CORS preflight from \(origin): start doppel serve with --cors \(origin) (StubServer.Configuration.corsOrigins) and the server answers it, and lets that page read the stubs' answers; a stub for OPTIONS is not needed."
      )
    }
    if stubs.isEmpty {
      lines.append("The backend has no stubs.")
      lines.append("Add a stub for this request; this one answers it (in Swift, or in a manifest):")
      lines += pasteable(request)
      return lines.joined(separator: "\n")
    }
    if request.method == .head {
      lines.append("  HEAD falls back to the stubs for GET; none matched this request as a GET either.")
    }
    if !ranked.isEmpty {
      lines.append("Closest stubs:")
      for (number, candidate) in ranked.prefix(shown).enumerated() {
        lines.append(
          "  \(number + 1). \(candidate.stub.location)  \(candidate.stub.name.map { "\"\($0)\" " } ?? "")\(redactor.description(candidate.stub.matcher))"
        )
        let width = candidate.lines.map(\.field.count).max() ?? 0
        for line in candidate.lines.map({ redactor.line($0, in: original) }) {
          let field = line.field.padding(toLength: width)
          if line.passed {
            lines.append("       ✓ \(field) \(line.expected)")
          } else {
            lines.append("       ✗ \(field) expected \(line.expected), got \(line.actual)")
          }
        }
      }
      let hidden = ranked.count - shown
      if hidden > 0 { lines.append("  (\(hidden) more \(hidden == 1 ? "stub" : "stubs") not shown)") }
    }
    if graphQL != nil {
      var stubbed: [String] = []
      for stub in stubs {
        for pattern in stub.matcher.graphQLPatterns where !stubbed.contains(pattern.summary) {
          stubbed.append(pattern.summary)
        }
      }
      if !stubbed.isEmpty { lines.append("GraphQL operations stubbed: \(stubbed.joined(separator: "; "))") }
    }
    if !invalid.isEmpty {
      lines.append("Invalid stubs (they match nothing):")
      for stub in invalid { lines.append("  \(stub.location)  \(stub.matcherProblem?.message ?? "")") }
    }
    lines.append(
      "Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):")
    lines += pasteable(request)
    return lines.joined(separator: "\n")
  }

  /// A stub that answers `request`, to paste: in Swift, then as a manifest's stub object. Its
  /// method and URL (with the query, whose items it then requires) are the request's, and so is
  /// its body when it is short: JSON as `.jsonBody(…)`, other text as `.body(…)`; the answer is a
  /// plain 200 to edit.
  static func pasteable(_ request: Request) -> [String] {
    let url = pastedURL(request)
    let builders: Set<HTTPMethod> = [.get, .post, .put, .patch, .delete, .head]
    var matcher =
      builders.contains(request.method)
      ? ".\(request.method.rawValue.lowercased())(\(swiftLiteral(url)))"
      : ".method(\(swiftLiteral(request.method.rawValue))) && .url(\(swiftLiteral(url)))"
    let body = PasteableBody(request)
    switch body {
    case .graphQL(let operation?, _): matcher += " && .graphQL(operation: \(swiftLiteral(operation)))"
    case .graphQL(nil, let hash): matcher += " && .graphQL(persistedQueryHash: \(swiftLiteral(hash ?? "")))"
    case .json(let json): matcher += " && .jsonBody(\(swiftLiteral(json)))"
    case .text(let text): matcher += " && .body(\(swiftLiteral(text)))"
    case nil: break
    }
    return ["  backend.stub(\(matcher), .status(200))", "  \(manifestStub(request, body: body))"]
  }

  /// A manifest's stub object that answers `request`:
  /// `{"request":"GET https://api.example.com/nope","response":{"status":200}}`, with the
  /// request's short body as `json` or `text` (`{"request":{"method":"POST","url":…,"json":…}}`),
  /// its secrets redacted as in the report.
  package static func manifestStub(_ request: Request) -> String {
    var redactor = ReportRedactor()
    let shown = redactor.request(request)
    return manifestStub(shown, body: PasteableBody(shown))
  }

  /// A matcher's description as a report shows it, secrets redacted (the request log's
  /// "closest:" note).
  package static func described(_ matcher: Matcher) -> String {
    var redactor = ReportRedactor()
    return redactor.description(matcher)
  }

  /// A stub's definition (manifest JSON) as a report shows it: every value recording would redact
  /// replaced with ``Redaction/marker`` (the admin API's list of stubs).
  package static func redacted(_ definition: JSONValue) -> JSONValue {
    var redactor = ReportRedactor()
    return redactor.json(definition)
  }

  private static func manifestStub(_ request: Request, body: PasteableBody?) -> String {
    let requestValue: JSONValue
    if let body {
      var fields: [String: JSONValue] = [
        "method": .string(request.method.rawValue), "url": .string(pastedURL(request)),
      ]
      switch body {
      case .graphQL(let operation, let hash):
        fields["graphql"] = operation.map { ["operation": .string($0)] } ?? ["persistedQueryHash": .string(hash ?? "")]
      case .json(let json): fields["json"] = json
      case .text(let text): fields["text"] = .string(text)
      }
      requestValue = .object(fields)
    } else {
      requestValue = .string("\(request.method.rawValue) \(pastedURL(request))")
    }
    let json = JSONValue.object(["request": requestValue, "response": .object(["status": .number(200)])])
    return "\(json)"
  }

  /// The URL a pasted stub names: the request's, or its path (and query) alone when it went to a
  /// loopback address, the stub server's own origin, whose port (often a random one from
  /// `--port 0`) changes from run to run; a stub that names a path alone matches it on any host.
  private static func pastedURL(_ request: Request) -> String {
    guard let host = request.url.host?.lowercased(),
      host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127."),
      let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
    else { return request.url.absoluteString }
    let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
    return path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
  }

  /// The `Origin` of a browser's CORS preflight (an `OPTIONS` naming
  /// `Access-Control-Request-Method`), or `nil` for any other request.
  package static func preflightOrigin(_ request: Request) -> String? {
    guard request.method == .options, request.headers["Access-Control-Request-Method"] != nil else { return nil }
    return request.headers["Origin"] ?? "ORIGIN"
  }

  /// What of a request's body a pasted stub requires: a GraphQL operation's name (or its
  /// persisted query's hash), else a body short enough to paste, as JSON (an object or an array)
  /// or text. Longer bodies, binary ones and those with control characters are left to the user.
  private enum PasteableBody {
    case graphQL(operation: String?, hash: String?)
    case json(JSONValue)
    case text(String)

    /// The most characters a pasted body has.
    static let longest = 300

    init?(_ request: Request) {
      if let graphQL = GraphQLRequest(request), graphQL.operation != nil || graphQL.persistedQueryHash != nil {
        self = .graphQL(operation: graphQL.operation, hash: graphQL.persistedQueryHash)
        return
      }
      guard let body = request.body, !body.isEmpty, body.count <= Self.longest * 4,
        let text = String(data: body, encoding: .utf8), text.count <= Self.longest
      else { return nil }
      if let json = try? JSONValue(parsing: body) {
        switch json {
        case .object, .array: self = .json(json)
        default: return nil
        }
      } else if text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) {
        self = .text(text)
      } else {
        return nil
      }
    }
  }

  /// `json` as a Swift literal a `JSONValue` parameter takes: `["sku": "B2", "count": 2]`, its
  /// object keys in order.
  private static func swiftLiteral(_ json: JSONValue) -> String {
    switch json {
    case .null: return "nil"
    case .bool(let value): return value ? "true" : "false"
    case .number: return "\(json)"
    case .string(let text): return swiftLiteral(text)
    case .array(let items): return "[" + items.map(swiftLiteral).joined(separator: ", ") + "]"
    case .object(let fields):
      guard !fields.isEmpty else { return "[:]" }
      return "["
        + fields.sorted { $0.key < $1.key }.map { "\(swiftLiteral($0.key)): \(swiftLiteral($0.value))" }
        .joined(separator: ", ")
        + "]"
    }
  }

  /// `text` as a Swift string literal.
  private static func swiftLiteral(_ text: String) -> String {
    var literal = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": literal += "\\\""
      case "\\": literal += "\\\\"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        literal += "\\u{\(String(scalar.value, radix: 16))}"
      default: literal.unicodeScalars.append(scalar)
      }
    }
    return literal + "\""
  }

  /// The stub the report lists first, if any: the one most likely meant for `request`.
  static func closestStub(to request: Request, among stubs: [StubHandle], state: StateMachines) -> StubHandle? {
    rank(request, stubs.filter { $0.matcherProblem == nil }, state: state).first?.stub
  }

  private struct Candidate {
    let stub: StubHandle
    let lines: [Matcher.CheckLine]
    let passed: Int
  }

  private static func rank(_ request: Request, _ stubs: [StubHandle], state machines: StateMachines) -> [Candidate] {
    // A HEAD may go to a stub for GET: each stub is shown against the form it comes closer to.
    let asGet = request.method == .head ? request.with(method: .get) : nil
    let candidates = stubs.map { stub -> Candidate in
      var lines = stub.matcher.check(request)
      if let asGet {
        let getLines = stub.matcher.check(asGet)
        if getLines.filter(\.passed).count > lines.filter(\.passed).count { lines = getLines }
      }
      if let required = stub.requiredState {
        let name = stub.stateMachine
        let state = machines[name]
        lines.append(
          Matcher.CheckLine(
            passed: required == state, field: name.map { "state \($0)" } ?? "state", expected: required,
            actual: state))
      }
      if lines.allSatisfy(\.passed), stub.isExhausted {
        let answered = stub.callCount
        lines.append(
          Matcher.CheckLine(
            passed: false, field: "times",
            expected: stub.isRemoved ? "not removed" : "at most \(stub.limit ?? 0)",
            actual: stub.isRemoved ? "removed" : "\(answered) answered already"))
      }
      return Candidate(stub: stub, lines: lines, passed: lines.filter(\.passed).count)
    }
    return candidates.enumerated().sorted { a, b in
      let left = a.element
      let right = b.element
      if left.passed != right.passed { return left.passed > right.passed }
      let leftFailed = left.lines.count - left.passed
      let rightFailed = right.lines.count - right.passed
      if leftFailed != rightFailed { return leftFailed < rightFailed }
      return a.offset < b.offset
    }.map(\.element)
  }
}

extension String {
  package func padding(toLength length: Int) -> String {
    count >= length ? self : self + String(repeating: " ", count: length - count)
  }
}
