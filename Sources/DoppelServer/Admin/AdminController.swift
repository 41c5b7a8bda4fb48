#if Server
  import Doppel
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  /// The admin API's state and endpoints (see ``StubServer/AdminAPI``): the stubs added at run
  /// time, the scenario chosen, and the answers to admin requests as JSON.
  final class AdminController: Sendable {
    let settings: StubServer.AdminAPI
    /// The server's scheme, `http` or `https`: the scheme of its own origin.
    let scheme: String

    private struct State {
      /// The stubs added through the admin API, oldest first, with the handles serving them.
      var added: [(definition: StubDefinition, handle: StubHandle)] = []
      var scenario: String?
      /// How many requests changed something through the admin API: the dashboard's event stream
      /// reports it, so that a page reloads after a change it cannot see in the counts (a journal
      /// cleared and refilled to the same length, say).
      var changes = 0
    }

    private let state: Locked<State>

    /// Held while a stub is saved into a manifest (see `AdminController+SavedStubs.swift`), so
    /// that two saves into one file do not lose each other's stub.
    let savingLock = Locked(0)

    /// The status the server answers a request no stub matched with, for the journal's HAR.
    let unmatchedStatus: Int

    /// The journal's answered entries as `GET requests` describes them (see
    /// `AdminController+JournalDescriptions.swift`).
    let descriptions = Locked(JournalDescriptions())

    /// Whether ``describeAhead(_:then:)`` is describing entries, and who waits for it.
    let describingAhead = Locked(DescribingAhead())

    init(settings: StubServer.AdminAPI, scheme: String, unmatchedStatus: Int = 404) {
      self.settings = settings
      self.scheme = scheme
      self.unmatchedStatus = unmatchedStatus
      state = Locked(State(scenario: settings.files?.scenario))
    }

    /// Whether `target` (a request target) is an admin request.
    func owns(_ target: String) -> Bool {
      guard let prefix = settings.pathPrefix else { return false }
      return target.hasPrefix(prefix) || target == String(prefix.dropLast())
    }

    /// An admin answer: a status and a JSON body.
    struct Answer: Sendable {
      var status: Int
      var body: JSONValue
      /// Bytes sent instead of `body` encoded (a HAR document, a file of the dashboard).
      var raw: Data?
      /// The answer's `Content-Type`.
      var contentType = "application/json"
      var allow: [String] = []
      /// More header fields, such as `WWW-Authenticate`.
      var headers: [(name: String, value: String)] = []
      /// Whether a request other than `GET` left everything as it was (`POST verify`): not counted
      /// as a change (see ``changeCount``).
      var changedNothing = false
    }

    // MARK: Routing

    /// The endpoints, for messages and the index.
    static let endpoints = [
      "stubs", "saved-stubs", "scenario", "state", "requests", "requests.har", "verify", "reset",
    ]

    func answer(method: String, target: String, body: Data?, backend: Backend) -> Answer {
      let answer = answerUncounted(method: method, target: target, body: body, backend: backend)
      if method != "GET" && (200..<300).contains(answer.status) && !answer.changedNothing {
        state.withLock { $0.changes += 1 }
      }
      return answer
    }

    /// The number of admin requests that changed something (see ``changeSummary(_:)``).
    var changeCount: Int { state.withLock { $0.changes } }

    /// The scenario served, or `nil` for the base stubs alone.
    var activeScenario: String? { state.withLock { $0.scenario } }

    private func answerUncounted(method: String, target: String, body: Data?, backend: Backend) -> Answer {
      let prefix = settings.pathPrefix ?? "/"
      var rest = target.count > prefix.count ? String(target.dropFirst(prefix.count)) : ""
      var query: [URLQueryItem] = []
      if let mark = rest.firstIndex(of: "?") {
        query = URLComponents(string: "http://x/?" + rest[rest.index(after: mark)...])?.queryItems ?? []
        rest = String(rest[..<mark])
      }
      let parts = rest.split(separator: "/", omittingEmptySubsequences: true).map {
        String($0).removingPercentEncoding ?? String($0)
      }
      do {
        switch (parts.first ?? "", parts.count) {
        case ("", _):
          try allow(method, ["GET"])
          return Answer(status: 200, body: index(backend))
        case ("stubs", 1):
          try allow(method, ["GET", "POST", "DELETE"])
          switch method {
          case "GET": return Answer(status: 200, body: ["stubs": .array(backend.stubs.map { describe($0) })])
          case "POST": return try addStub(body, location: query.first { $0.name == "location" }?.value, backend)
          default: return Answer(status: 200, body: ["removed": .number(Double(removeAdded(backend)))])
          }
        case ("stubs", 2):
          try allow(method, ["GET", "PUT", "DELETE"])
          if method == "PUT" {
            return try replaceStub(
              parts[1], body, location: query.first { $0.name == "location" }?.value, backend)
          }
          return try stub(parts[1], remove: method == "DELETE", backend)
        case ("saved-stubs", 1):
          try allow(method, ["GET", "POST"])
          if method == "GET" { return savedStubs() }
          return try saveStub(body, backend)
        case ("scenario", 1):
          try allow(method, ["GET", "PUT"])
          if method == "PUT" { try switchScenario(body, backend) }
          return Answer(status: 200, body: scenarioInfo())
        case ("state", 1):
          try allow(method, ["GET", "PUT", "DELETE"])
          if method == "PUT" { try setState(body, backend) }
          if method == "DELETE" { backend.resetStates() }
          return Answer(status: 200, body: stateInfo(backend))
        case ("requests", 1):
          try allow(method, ["GET", "DELETE"])
          if method == "DELETE" {
            backend.clearJournal()
            descriptions.withLock { $0.kept.removeAll() }
            return Answer(status: 200, body: ["requests": [], "next": 0, "dropped": 0, "more": false])
          }
          return try requests(query, backend)
        case ("requests", 2):
          try allow(method, ["GET"])
          return try requestDetail(parts[1], backend)
        case ("requests.har", 1):
          try allow(method, ["GET"])
          return try journalHAR(backend)
        case ("verify", 1):
          try allow(method, ["POST"])
          return try verify(body, backend)
        case ("reset", 1):
          try allow(method, ["POST"])
          try reset(backend)
          return Answer(status: 200, body: index(backend))
        default:
          let name = parts[0]
          let guess = Self.closest(name, in: Self.endpoints).map { " Did you mean \(prefix)\($0)?" } ?? ""
          throw AdminError(
            404,
            "\(prefix)\(parts.joined(separator: "/")) is not an admin endpoint.\(guess) The endpoints are: \(Self.endpoints.map { prefix + $0 }.joined(separator: ", ")) (see Schemas/doppel-admin.openapi.yaml)."
          )
        }
      } catch let error as AdminError {
        return Answer(status: error.status, body: ["error": .string(error.message)], allow: error.allow)
      } catch {
        return Answer(status: 400, body: ["error": .string("\(error)")])
      }
    }

    /// A refusal answered with another status than 400.
    struct AdminError: Error {
      let status: Int
      let message: String
      var allow: [String] = []

      init(_ status: Int, _ message: String, allow: [String] = []) {
        self.status = status
        self.message = message
        self.allow = allow
      }
    }

    private func allow(_ method: String, _ methods: [String]) throws {
      guard !methods.contains(method) else { return }
      throw AdminError(
        405, "\(method) is not allowed here; use \(methods.joined(separator: " or ")).", allow: methods)
    }

    // MARK: Stubs

    /// Adds a stub; `location` (`File.swift:42`) names where the client declared it.
    private func addStub(_ body: Data?, location: String?, _ backend: Backend) throws -> Answer {
      let definition = try readDefinition(body, location: location)
      let handle = state.withLock { state in
        let handle = backend.register(definition)
        state.added.append((definition, handle))
        return handle
      }
      return Answer(status: 201, body: describe(handle, definition: definition))
    }

    /// A stub a request's body defines, as the admin API reads it: files only inside
    /// ``StubServer/AdminAPI/fixtureDirectory`` (none at all without `allowsFiles`), proxies only
    /// to its hosts; `location` (`File.swift:42`) names where the client declared it.
    func readDefinition(
      _ body: Data?, location: String?, source: String = "request body", allowsFiles: Bool = true
    ) throws -> StubDefinition {
      var definition: StubDefinition
      do {
        definition = try StubDefinition(
          parsing: body ?? Data(), source: source, directory: allowsFiles ? settings.fixtureDirectory : nil,
          proxyHosts: settings.proxyHosts)
      } catch {
        switch error.fault {
        // Well formed, but reaching beyond what the user allowed this server: forbidden.
        case .beyondReach: throw AdminError(403, error.message)
        // As the document describes, but not usable (contradicting itself, a bad regex): 422.
        case .unusable: throw AdminError(422, error.message)
        case .malformed: throw error
        }
      }
      if let location, !location.isEmpty {
        // Split on the colon's byte, not on characters: a character may join a colon to what
        // follows it (an emoji modifier after `:` makes one character of both).
        let parts = location.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[0].isEmpty, let line = Int(Substring(parts[1])), line > 0, line < 10_000_000
        else {
          throw DoppelError.server(
            "query: location: \"\(location)\" is not a source location; write it as File.swift:42.")
        }
        let file = String(Substring(parts[0]))
        definition.location = CodeLocation(fileID: file, filePath: file, line: line, column: 1)
      }
      return definition
    }

    /// Registers `definition` over every other stub as one added through the admin API, and
    /// removes `replacing` (an added stub) in the same step: a request meets the old stub or the
    /// new one, never neither. `nil` when `replacing` was removed in the meantime.
    func registerAdded(_ definition: StubDefinition, replacing old: StubHandle? = nil, _ backend: Backend)
      -> StubHandle?
    {
      state.withLock { state in
        if let old {
          guard let index = state.added.firstIndex(where: { $0.handle === old }) else { return nil }
          state.added.remove(at: index)
        }
        let handle = backend.register(definition)
        old?.remove()
        state.added.append((definition, handle))
        return handle
      }
    }

    /// Whether `handle` is a stub added through the admin API (not one from the files).
    func isAdded(_ handle: StubHandle) -> Bool {
      state.withLock { state in state.added.contains { $0.handle === handle } }
    }

    private func removeAdded(_ backend: Backend) -> Int {
      let removed = state.withLock { state in
        defer { state.added = [] }
        return state.added
      }
      for (_, handle) in removed { handle.remove() }
      return removed.count
    }

    /// The stub numbered `id`, or a 404 that says where the stubs are listed.
    func stubHandle(_ id: String, _ backend: Backend) throws -> StubHandle {
      guard let number = Int(id), let handle = backend.stubs.first(where: { $0.registrationNumber == number }) else {
        throw AdminError(
          404,
          "There is no stub \(id): it was removed, or the files were reloaded (which numbers the stubs again). GET \(settings.pathPrefix ?? "/")stubs lists the stubs."
        )
      }
      return handle
    }

    private func stub(_ id: String, remove: Bool, _ backend: Backend) throws -> Answer {
      let handle = try stubHandle(id, backend)
      let definition = state.withLock { state in state.added.first { $0.handle === handle }?.definition }
      if remove {
        handle.remove()
        state.withLock { state in state.added.removeAll { $0.handle === handle } }
      }
      return Answer(status: 200, body: describe(handle, definition: definition))
    }

    func describe(_ stub: StubHandle, definition: StubDefinition? = nil) -> JSONValue {
      let definition =
        definition ?? state.withLock { state in state.added.first { $0.handle === stub }?.definition }
      // What the stubs expect (a header's value, a body) is shown redacted as the journal is:
      // a stub written to answer one client's token holds that token.
      let redacts = settings.journalRedaction != .disabled
      var object: [String: JSONValue] = [
        "id": .number(Double(stub.registrationNumber)),
        "request": .string(redacts ? NearMissReport.described(stub.matcher) : stub.matcher.description),
        "location": .string(stub.location.description),
        "source": .string(definition == nil ? "files" : "admin"),
        "callCount": .number(Double(stub.callCount)),
      ]
      if let name = stub.name { object["name"] = .string(name) }
      if let limit = stub.limit { object["times"] = .number(Double(limit)) }
      if let state = stub.requiredState { object["requiresState"] = .string(state) }
      if let state = stub.nextState { object["setsState"] = .string(state) }
      if let definition, let json = try? JSONValue(parsing: Data(definition.json.utf8)) {
        object["definition"] = redacts ? NearMissReport.redacted(json) : json
      }
      return .object(object)
    }

    // MARK: Scenarios, state, reset

    private func scenarioInfo() -> JSONValue {
      let active = state.withLock { $0.scenario }
      return [
        "active": active.map(JSONValue.string) ?? .null,
        "scenarios": .array((settings.files?.scenarioNames ?? []).map(JSONValue.string)),
      ]
    }

    private func switchScenario(_ body: Data?, _ backend: Backend) throws {
      let object = try jsonObject(body, keys: ["scenario"], example: #"{"scenario": "empty"}"#)
      let name: String?
      switch object["scenario"] {
      case .string(let text)?: name = text
      case .null?: name = nil
      default:
        throw DoppelError.server(
          #"request body: "scenario" must be a scenario name or null (the base stubs alone), as in {"scenario": "empty"}."#
        )
      }
      guard let files = settings.files else {
        throw AdminError(
          409,
          "This server has no scenarios to switch to: it was started without files (StubServer.AdminAPI.files). Start it with doppel serve and a manifest that has scenarios."
        )
      }
      if let name, !files.scenarioNames.contains(name) {
        let known =
          files.scenarioNames.isEmpty
          ? "The files have no scenarios."
          : "The scenarios are: \(files.scenarioNames.joined(separator: ", "))."
        // A well-formed request for something that is not there: 404, as for a stub (400 is for
        // a body that is not what the document describes).
        throw AdminError(
          404,
          "request body: scenario: there is no scenario \"\(name)\".\(Self.closest(name, in: files.scenarioNames).map { " Did you mean \"\($0)\"?" } ?? "") \(known)"
        )
      }
      _ = try load(name, backend)
    }

    func reload(_ backend: Backend) throws -> [String] {
      guard settings.files != nil else { return [] }
      return try load(state.withLock { $0.scenario }, backend)
    }

    /// Serves the files in `scenario`, then the stubs added at run time over them. A state that no
    /// stub mentions any more goes back to `initial`, and the returned note says so.
    private func load(_ scenario: String?, _ backend: Backend) throws -> [String] {
      guard let files = settings.files else { return [] }
      let fresh: Backend
      fresh = try files.load(scenario)
      return state.withLock { state in
        // The stubs added at run time go in with the files' ones, after them, in one replacement:
        // a request during the reload meets the old stubs or the new ones, never a gap. They are
        // put together in a backend of their own: `load` may hand back a backend it keeps.
        let combined = Backend(issueReporter: .ignore)
        combined.replaceStubs(with: fresh)
        for added in state.added { combined.register(added.definition) }
        let handles = backend.replaceStubs(with: combined)
        let addedHandles = handles.suffix(state.added.count)
        state.added = zip(state.added, addedHandles).map { ($0.definition, $1) }
        state.scenario = scenario
        return Self.resetUnusedStates(backend)
      }
    }

    /// Puts back in `initial` each state machine whose state no stub of that machine requires or
    /// sets any more (after a reload, say), and says so for the log.
    static func resetUnusedStates(_ backend: Backend) -> [String] {
      let stubs = backend.stubs
      func used(_ state: String, _ machine: String?) -> Bool {
        state == "initial"
          || stubs.contains { $0.stateMachine == machine && ($0.requiredState == state || $0.nextState == state) }
      }
      var notes: [String] = []
      let main = backend.state()
      if !used(main, nil) {
        backend.setState("initial")
        notes.append("The state \"\(main)\" is not used by any stub any more; it was reset to \"initial\".")
      }
      for (name, state) in backend.stateMachines.sorted(by: { $0.key < $1.key }) where !used(state, name) {
        backend.setState("initial", ofMachine: name)
        notes.append(
          "The state \"\(state)\" of the state machine \"\(name)\" is not used by any stub any more; it was reset to \"initial\"."
        )
      }
      return notes
    }

    private func stateInfo(_ backend: Backend) -> JSONValue {
      ["state": .string(backend.state()), "machines": .object(backend.stateMachines.mapValues(JSONValue.string))]
    }

    private func setState(_ body: Data?, _ backend: Backend) throws {
      let object = try jsonObject(
        body, keys: ["state", "machine"], example: #"{"state": "loggedIn"} or {"machine": "basket", "state": "full"}"#)
      guard case .string(let state)? = object["state"], !state.isEmpty else {
        throw DoppelError.server(
          #"request body: "state" must be a state name (a non-empty string), as in {"state": "loggedIn"}."#)
      }
      switch object["machine"] {
      case nil, .null?:
        backend.setState(state)
      case .string(let name)? where !name.isEmpty:
        backend.setState(state, ofMachine: name)
      default:
        throw DoppelError.server(
          #"request body: "machine" must be a state machine's name (a non-empty string), or absent for the main one."#)
      }
    }

    /// Back to what the files say: their stubs in the scenario the server started with, no stubs
    /// added at run time, an empty journal, the state `initial`.
    private func reset(_ backend: Backend) throws {
      if let files = settings.files {
        _ = removeAdded(backend)
        _ = try load(files.scenario, backend)
      } else {
        _ = removeAdded(backend)
      }
      backend.clearJournal()
      descriptions.withLock { $0.kept.removeAll() }
      backend.resetStates()
    }

    private func index(_ backend: Backend) -> JSONValue {
      let prefix = settings.pathPrefix ?? "/"
      return [
        "endpoints": .array(Self.endpoints.map { .string(prefix + $0) }),
        "stubs": .number(Double(backend.stubs.count)),
        "requests": .number(Double(backend.journalAppended)),
        "droppedRequests": .number(Double(backend.droppedJournalEntries)),
        "journalLimit": backend.journalLimit.map { .number(Double($0)) } ?? .null,
      ]
    }

    // MARK: Helpers

    /// The body as a JSON object with only `keys`.
    private func jsonObject(_ body: Data?, keys: [String], example: String) throws -> [String: JSONValue] {
      guard let body, !body.isEmpty else {
        throw DoppelError.server("request body: the body is empty; send a JSON object such as \(example).")
      }
      guard let value = try? JSONValue(parsing: body), case .object(let object) = value else {
        throw DoppelError.server("request body: expected a JSON object such as \(example).")
      }
      for key in object.keys.sorted() where !keys.contains(key) {
        throw DoppelError.server(
          "request body: unknown key \"\(key)\".\(Self.closest(key, in: keys).map { " Did you mean \"\($0)\"?" } ?? "") The keys are: \(keys.joined(separator: ", "))."
        )
      }
      return object
    }

    static func closest(_ name: String, in candidates: [String]) -> String? {
      StubDefinition.closest(to: name, in: candidates)
    }
  }

#endif
