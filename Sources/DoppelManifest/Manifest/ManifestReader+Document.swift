import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A stub read from a manifest or a fixture directory, ready to register.
struct ManifestStub: Sendable {
  let matcher: Matcher
  let responder: Responder
  let times: Int?
  let name: String?
  let location: CodeLocation
  /// The backend state the stub requires, and the one it moves the backend to.
  var requiresState: String?
  var setsState: String?
  /// The state machine those states belong to; `nil` for the main one.
  var stateMachine: String?
  /// For a response (or responses of a sequence) with `"template": true`: what fills it in for
  /// each request.
  var template: StubTemplate?
  /// The request `doppel drift` re-sends for the stub; `nil` for a stub of a fixture directory or a
  /// cassette.
  var resend: ManifestResend?
  /// The stub's `drift`: `true` to re-send it whatever its method, `false` never to.
  var drift: Bool?
}

/// A named set of stubs layered over the base stubs.
struct ManifestScenario: Sendable {
  let name: String
  let description: String?
  let stubs: [ManifestStub]
  /// The scenario's `graphql`, which replaces the base's.
  var graphQL: ManifestGraphQL?
}

extension ManifestReader {
  /// What a whole manifest document says.
  struct Document {
    var description: String?
    var unmatched: UnmatchedPolicy?
    var seed: UInt64?
    var stubs: [ManifestStub] = []
    var scenarios: [ManifestScenario] = []
    var graphQL: ManifestGraphQL?
    /// Where `"scenarios"` is, for errors about scenario names.
    var scenariosPosition: TextPosition?
  }

  /// Reads the whole document, going on past each problem where the rest does not depend on it;
  /// the problems are in ``log``.
  func document(_ root: PositionedJSON) -> Document {
    var document = Document()
    guard
      let fields = collecting({ () throws(ManifestProblem) in
        try object(root, .root, known: ManifestKeys.manifest, what: "a manifest")
      })
    else { return document }
    if let node = fields["$schema"] {
      _ = collecting { () throws(ManifestProblem) in try string(node, fields.path("$schema")) }
    }
    if let node = fields["description"] {
      document.description = collecting { () throws(ManifestProblem) in try string(node, fields.path("description")) }
    }
    if let node = fields["unmatched"] {
      document.unmatched = collecting { () throws(ManifestProblem) in try unmatched(node, fields.path("unmatched")) }
    }
    if let node = fields["seed"] {
      document.seed = collecting { () throws(ManifestProblem) in
        UInt64(
          try integer(
            node, fields.path("seed"), in: 0...Int.max, what: "a seed for random delays and failures (0 or more)"))
      }
    }
    document.stubs = stubs(in: fields)
    if let node = fields["graphql"] {
      document.graphQL = collecting { () throws(ManifestProblem) in
        try graphQLSchema(node, fields.path("graphql"), seed: document.seed)
      }
    }
    if let node = fields["scenarios"] {
      document.scenariosPosition = position(fields.keyOffset("scenarios"))
      document.scenarios = scenarios(node, fields.path("scenarios"), seed: document.seed)
    }
    return document
  }

  private func scenarios(_ node: PositionedJSON, _ path: ManifestKeyPath, seed: UInt64?) -> [ManifestScenario] {
    guard case .object(let members) = node.value else {
      record(
        error(
          node, path,
          "expected the scenarios (a JSON object from name to scenario, such as {\"empty\": {\"stubs\": [ … ]}}), found \(node.kind)."
        ))
      return []
    }
    var scenarios: [ManifestScenario] = []
    for member in members {
      guard !member.key.isEmpty else {
        record(error(at: member.keyOffset, path, "a scenario needs a name; \"\" is empty."))
        continue
      }
      let scenarioPath = path + member.key
      guard
        let scenario = collecting({ () throws(ManifestProblem) in
          try object(member.value, scenarioPath, known: ManifestKeys.scenario, what: "a scenario")
        })
      else { continue }
      var description: String?
      if let node = scenario["description"] {
        description = collecting { () throws(ManifestProblem) in try string(node, scenario.path("description")) }
      }
      var read = ManifestScenario(name: member.key, description: description, stubs: stubs(in: scenario))
      if let node = scenario["graphql"] {
        read.graphQL = collecting { () throws(ManifestProblem) in
          try graphQLSchema(node, scenario.path("graphql"), seed: seed)
        }
      }
      scenarios.append(read)
    }
    return scenarios
  }

  /// The stubs of a fixture directory (if any), then those of the cassettes (if any), followed by
  /// the listed stubs (later ones win).
  private func stubs(in fields: Fields) -> [ManifestStub] {
    var result: [ManifestStub] = []
    if let node = fields["fixtureDirectory"] {
      result +=
        collecting { () throws(ManifestProblem) in try fixtureDirectory(node, fields.path("fixtureDirectory")) } ?? []
    }
    if let node = fields["cassettes"] { result += cassettes(node, fields.path("cassettes")) }
    guard let list = fields["stubs"] else { return result }
    let path = fields.path("stubs")
    guard let items = collecting({ () throws(ManifestProblem) in try array(list, path, of: "stubs") }) else {
      return result
    }
    result.reserveCapacity(result.count + items.count)
    for (index, item) in items.enumerated() {
      if let stub = stub(item, path + index) { result.append(stub) }
    }
    return result
  }

  private func fixtureDirectory(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem)
    -> [ManifestStub]
  {
    let relative = try nonEmptyString(node, path, what: "a directory path relative to the manifest")
    let url = try containedFile(relative, node, path, instead: "remove it")
    do {
      return try FixtureDirectory.stubs(in: url)
    } catch {
      throw self.error(node, path, error.message)
    }
  }

  /// One stub, or `nil` when it has a problem. Its request, response and other keys are checked
  /// independently, so each of their problems is reported.
  func stub(_ node: PositionedJSON, _ path: ManifestKeyPath) -> ManifestStub? {
    guard
      let fields = collecting({ () throws(ManifestProblem) in
        try object(node, path, known: ManifestKeys.stub, what: "a stub")
      })
    else { return nil }
    let matcher = fields["request"].flatMap { request in
      collecting { () throws(ManifestProblem) in try self.matcher(request, fields.path("request")) }
    }
    let responder = fields["response"].flatMap { response in
      collecting { () throws(ManifestProblem) in try self.responder(response, fields.path("response")) }
    }
    if fields["request"] == nil {
      record(
        error(
          node, path,
          "a stub needs \"request\": which requests it answers, such as \"GET /breeds.json\" ({} answers every request)."
        ))
    }
    if fields["response"] == nil {
      record(
        error(node, path, "a stub needs \"response\": what it answers, such as {\"status\": 200, \"json\": {…}}."))
    }
    var valid = true
    func read<T>(_ key: String, _ body: (PositionedJSON, ManifestKeyPath) throws(ManifestProblem) -> T) -> T? {
      guard let node = fields[key] else { return nil }
      let value = collecting { () throws(ManifestProblem) in try body(node, fields.path(key)) }
      if value == nil { valid = false }
      return value
    }
    let times = read("times") { (node, path) throws(ManifestProblem) in
      try count(node, path, from: 1, what: "how many requests the stub answers")
    }
    let name = read("name") { (node, path) throws(ManifestProblem) in try string(node, path) }
    let requiresState = read("requiresState") { (node, path) throws(ManifestProblem) in
      try nonEmptyString(node, path, what: "a state name")
    }
    let setsState = read("setsState") { (node, path) throws(ManifestProblem) in
      try nonEmptyString(node, path, what: "a state name")
    }
    let drift = read("drift") { (node, path) throws(ManifestProblem) in try bool(node, path) }
    guard valid, let matcher, let responder else { return nil }
    var stub = ManifestStub(
      matcher: matcher, responder: responder, times: times, name: name, location: location(node.offset))
    stub.requiresState = requiresState
    stub.setsState = setsState
    stub.drift = drift
    if let request = fields["request"] { stub.resend = resend(request) }
    if let node = fields["stateMachine"] {
      guard
        let machine = collecting({ () throws(ManifestProblem) in
          try nonEmptyString(node, fields.path("stateMachine"), what: "a state machine name")
        })
      else { return nil }
      stub.stateMachine = machine
    }
    if let response = fields["response"], let request = fields["request"] {
      guard
        let template = collecting({ () throws(ManifestProblem) in
          try template(response, fields.path("response"), request: request, responder: responder)
        })
      else { return nil }
      stub.template = template
    }
    return stub
  }

  /// `"fail"`, `"passthrough"`, or a response for every request no stub matches.
  private func unmatched(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> UnmatchedPolicy {
    switch node.value {
    case .string("fail"): return .fail
    case .string("passthrough"): return .passthrough
    case .object:
      return .respond(try response(object(node, path, known: ManifestKeys.sequenceItem, what: "a response")))
    case .string(let other):
      throw error(
        node, path,
        "\"\(other)\" is not an unmatched-request policy.\(Suggestion.didYouMean(other, in: ManifestKeys.unmatchedPolicies)) Use \"fail\", \"passthrough\", or a response such as {\"status\": 404}."
      )
    default:
      throw error(node, path, "expected \"fail\", \"passthrough\" or a response object, found \(node.kind).")
    }
  }
}
