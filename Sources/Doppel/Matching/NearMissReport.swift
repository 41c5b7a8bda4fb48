/// Builds the message for a request that no stub matched: the request, the closest stubs with each
/// field marked ✓ or ✗, where each stub was declared, and the fix.
package enum NearMissReport {
  static let shown = 3

  static func make(for request: Request, stubs: [StubHandle], state: StateMachines) -> String {
    var lines = ["No stub matched \(request.method) \(request.url.absoluteString)"]
    if let body = request.body, !body.isEmpty {
      lines.append("  body: \(Matcher.summarize(body))")
    }
    let graphQL = GraphQLRequest(request)
    if let graphQL { lines.append("  GraphQL operation: \(graphQL.summary)") }
    let invalid = stubs.filter { $0.matcherProblem != nil }
    let ranked = rank(request, stubs.filter { $0.matcherProblem == nil }, state: state)
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
          "  \(number + 1). \(candidate.stub.location)  \(candidate.stub.name.map { "\"\($0)\" " } ?? "")\(candidate.stub.matcher)"
        )
        let width = candidate.lines.map(\.field.count).max() ?? 0
        for line in candidate.lines {
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
  /// method and URL (with the query, whose items it then requires) are the request's; the
  /// answer is a plain 200 to edit.
  static func pasteable(_ request: Request) -> [String] {
    let url = request.url.absoluteString
    let builders: Set<HTTPMethod> = [.get, .post, .put, .patch, .delete, .head]
    let matcher =
      builders.contains(request.method)
      ? ".\(request.method.rawValue.lowercased())(\(swiftLiteral(url)))"
      : ".method(\(swiftLiteral(request.method.rawValue))) && .url(\(swiftLiteral(url)))"
    return ["  backend.stub(\(matcher), .status(200))", "  \(manifestStub(request))"]
  }

  /// A manifest's stub object that answers `request`:
  /// `{"request":"GET https://api.example.com/nope","response":{"status":200}}`.
  package static func manifestStub(_ request: Request) -> String {
    let json = JSONValue.object([
      "request": .string("\(request.method.rawValue) \(request.url.absoluteString)"),
      "response": .object(["status": .number(200)]),
    ])
    return "\(json)"
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
  func padding(toLength length: Int) -> String {
    count >= length ? self : self + String(repeating: " ", count: length - count)
  }
}
