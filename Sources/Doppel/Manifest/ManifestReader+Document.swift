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
  /// For a response with `"template": true`: what fills it in for each request.
  var template: ResponseTemplate?
}

/// A named set of stubs layered over the base stubs.
struct ManifestScenario: Sendable {
  let name: String
  let description: String?
  let stubs: [ManifestStub]
}

extension ManifestReader {
  /// What a whole manifest document says.
  struct Document {
    var description: String?
    var unmatched: UnmatchedPolicy?
    var stubs: [ManifestStub] = []
    var scenarios: [ManifestScenario] = []
    /// Where `"scenarios"` is, for errors about scenario names.
    var scenariosPosition: TextPosition?
  }

  func document(_ root: PositionedJSON) throws(DoppelError) -> Document {
    let fields = try object(root, .root, known: ManifestKeys.manifest, what: "a manifest")
    var document = Document()
    if let node = fields["$schema"] { _ = try string(node, fields.path("$schema")) }
    if let node = fields["description"] { document.description = try string(node, fields.path("description")) }
    if let node = fields["unmatched"] { document.unmatched = try unmatched(node, fields.path("unmatched")) }
    document.stubs = try stubs(in: fields)
    if let node = fields["scenarios"] {
      let path = fields.path("scenarios")
      document.scenariosPosition = position(fields.keyOffset("scenarios"))
      guard case .object(let members) = node.value else {
        throw error(
          node, path,
          "expected the scenarios (a JSON object from name to scenario, such as {\"empty\": {\"stubs\": [ … ]}}), found \(node.kind)."
        )
      }
      for member in members {
        guard !member.key.isEmpty else {
          throw error(at: member.keyOffset, path, "a scenario needs a name; \"\" is empty.")
        }
        let scenarioPath = path + member.key
        let scenario = try object(member.value, scenarioPath, known: ManifestKeys.scenario, what: "a scenario")
        var description: String?
        if let node = scenario["description"] { description = try string(node, scenario.path("description")) }
        document.scenarios.append(
          ManifestScenario(name: member.key, description: description, stubs: try stubs(in: scenario)))
      }
    }
    return document
  }

  /// The stubs of a fixture directory (if any) followed by the listed stubs (later ones win).
  private func stubs(in fields: Fields) throws(DoppelError) -> [ManifestStub] {
    var result: [ManifestStub] = []
    if let node = fields["fixtureDirectory"] {
      let path = fields.path("fixtureDirectory")
      let relative = try nonEmptyString(node, path, what: "a directory path relative to the manifest")
      let url = relative.hasPrefix("/") ? URL(fileURLWithPath: relative) : directory.appendingPathComponent(relative)
      do {
        result += try FixtureDirectory.stubs(in: url.standardizedFileURL)
      } catch {
        throw self.error(node, path, error.message)
      }
    }
    guard let list = fields["stubs"] else { return result }
    let path = fields.path("stubs")
    for (index, item) in try array(list, path, of: "stubs").enumerated() {
      result.append(try stub(item, path + index))
    }
    return result
  }

  func stub(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(DoppelError) -> ManifestStub {
    let fields = try object(node, path, known: ManifestKeys.stub, what: "a stub")
    guard let request = fields["request"] else {
      throw error(
        node, path,
        "a stub needs \"request\": which requests it answers, such as \"GET /breeds.json\" ({} answers every request).")
    }
    guard let response = fields["response"] else {
      throw error(node, path, "a stub needs \"response\": what it answers, such as {\"status\": 200, \"json\": {…}}.")
    }
    var times: Int?
    if let node = fields["times"] {
      times = try integer(
        node, fields.path("times"), in: 1...Int.max, what: "how many requests the stub answers (1 or more)")
    }
    var name: String?
    if let node = fields["name"] { name = try string(node, fields.path("name")) }
    var stub = ManifestStub(
      matcher: try matcher(request, fields.path("request")),
      responder: try responder(response, fields.path("response")),
      times: times, name: name, location: location(node.offset))
    if let node = fields["requiresState"] {
      stub.requiresState = try nonEmptyString(node, fields.path("requiresState"), what: "a state name")
    }
    if let node = fields["setsState"] {
      stub.setsState = try nonEmptyString(node, fields.path("setsState"), what: "a state name")
    }
    stub.template = try template(response, fields.path("response"), request: request, responder: stub.responder)
    if let node = fields["stateMachine"] {
      stub.stateMachine = try nonEmptyString(node, fields.path("stateMachine"), what: "a state machine name")
    }
    return stub
  }

  /// `"fail"`, `"passthrough"`, or a response for every request no stub matches.
  private func unmatched(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(DoppelError) -> UnmatchedPolicy {
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
