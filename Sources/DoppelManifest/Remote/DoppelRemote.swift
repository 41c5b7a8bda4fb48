import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Drives a running stub server (`doppel serve`, or a `StubServer`) from another process, such as
/// a UI test: switches its scenario, adds and removes stubs, reads and sets its state, reads the
/// requests it saw and verifies them, and resets it.
///
/// ```swift
/// let remote = DoppelRemote(URL(string: "http://127.0.0.1:8080")!)
/// try await remote.use(scenario: "empty")
/// try await remote.stub(.get("/me"), .status(401))
/// app.launch()
/// // … drive the app …
/// try await remote.verify(.post("/login"), count: 1)
/// try await remote.reset()
/// ```
///
/// It talks to the server's admin API (under `/__doppel/` by default) with `URLSession`, so it
/// needs Foundation only: an XCUITest target, a test of another module or a script can use it.
/// Matchers and responses are the values you write for an in-process ``Backend``, sent as the
/// manifest's JSON; what a manifest cannot say (a closure responder, a ``Matcher/custom(_:_:)``
/// matcher, `||`) is refused with a ``DoppelError`` before anything is sent.
public struct DoppelRemote: Sendable {
  /// The server's URL, such as `http://127.0.0.1:8080`.
  public let baseURL: URL
  /// The admin API's path prefix on the server: `/__doppel/` unless the server was started with
  /// another (`doppel serve --admin-prefix`).
  public let adminPrefix: String
  private let session: URLSession
  private let token: String?

  /// A client for the stub server at `baseURL`.
  ///
  /// The server's admin API answers only requests a web page could not send (see the article
  /// "The stub server"): every request goes to `baseURL` with its own `Host`, no `Origin`, and a
  /// body sent as `application/json`. A refusal throws a ``DoppelError`` with the server's
  /// message, which names the fix.
  ///
  /// - Parameters:
  ///   - baseURL: where the server listens, such as `http://127.0.0.1:8080`.
  ///   - adminPrefix: the admin API's path prefix, `/__doppel/` by default.
  ///   - session: the session requests go through; by default an ephemeral one of its own.
  ///   - token: the admin API's token, when the server was started with one (`doppel serve
  ///     --admin-token`, or `StubServer.AdminAPI.token`), sent as `Authorization: Bearer <token>`;
  ///     `nil` (the default) sends none.
  public init(_ baseURL: URL, adminPrefix: String = "/__doppel/", session: URLSession? = nil, token: String? = nil) {
    self.baseURL = baseURL
    self.token = token
    var prefix = adminPrefix.hasPrefix("/") ? adminPrefix : "/" + adminPrefix
    if !prefix.hasSuffix("/") { prefix += "/" }
    self.adminPrefix = prefix
    self.session = session ?? URLSession(configuration: .ephemeral)
  }

  // MARK: Scenarios

  /// Serves the files' stubs in `scenario` (`nil` for the base stubs alone). Stubs added through
  /// `stub(_:_:)` stay, over them; the journal and the state stay too.
  ///
  /// - Throws: ``DoppelError`` when the server has no such scenario (naming the closest), or cannot
  ///   be reached.
  public func use(scenario: String?) async throws {
    _ = try await send("PUT", "scenario", body: ["scenario": scenario.map(JSONValue.string) ?? .null])
  }

  /// The scenario being served (`nil` for the base stubs alone) and the scenarios there are.
  public func scenarios() async throws -> (active: String?, all: [String]) {
    let answer = try await send("GET", "scenario")
    return (answer["active"]?.stringValue, answer["scenarios"]?.arrayValue?.compactMap(\.stringValue) ?? [])
  }

  // MARK: Stubs

  /// Adds a stub to the server, over every stub it has: the next request `matcher` matches gets
  /// `response`.
  ///
  /// ```swift
  /// try await remote.stub(.get("https://api.example.com/me"), .status(401))
  /// try await remote.stub(.post("/orders") && .jsonBody(["sku": "A1"]), .json(["id": 7], status: 201))
  /// ```
  ///
  /// - Parameters:
  ///   - matcher: which requests the stub answers.
  ///   - response: the answer.
  ///   - times: how many requests the stub answers at most; `nil` for no limit.
  ///   - name: a name shown in the server's log and near-miss reports.
  ///   - fileID: where the stub is declared, for the server's near-miss reports; leave the default.
  ///   - filePath: the full path of that file, for the location of a `DoppelError` about the
  ///     stub; leave the default.
  ///   - line: the line of the declaration; leave the default.
  /// - Returns: the stub on the server, to remove it with ``remove(_:)``.
  /// - Throws: ``DoppelError`` when the matcher or response cannot be written in a manifest, the
  ///   server refuses the stub (its message names the key), or the server cannot be reached.
  @discardableResult
  public func stub(
    _ matcher: Matcher, _ response: Response, times: Int? = nil, name: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
  ) async throws -> RemoteStub {
    try await stub(
      matcher, .response(response), times: times, name: name, fileID: fileID, filePath: filePath, line: line)
  }

  /// Adds a stub answering with a ``Responder``: a ``Responder/sequence(_:then:)`` (a closure
  /// responder cannot be sent; it runs only in the process that made it).
  @discardableResult
  public func stub(
    _ matcher: Matcher, _ responder: Responder, times: Int? = nil, name: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
  ) async throws -> RemoteStub {
    let location = CodeLocation(fileID: fileID, filePath: filePath, line: line, column: 1)
    do {
      return try await add(matcher, try responder.manifestResponse(), times: times, name: name, location: location)
    } catch let error as DoppelError where error.kind == .invalidStub {
      // A stub it cannot send fails with an error located at the stub's declaration.
      throw error.locatedIfUnknown(at: location)
    }
  }

  private func add(
    _ matcher: Matcher, _ response: JSONValue, times: Int?, name: String?, location: CodeLocation
  ) async throws -> RemoteStub {
    var object: [String: JSONValue] = ["request": try matcher.manifestRequest(), "response": response]
    if let times {
      guard times >= 1 else {
        throw DoppelError.invalidStub(
          "times: \(times) is not allowed; a stub answers at least once. Pass 1 or more, or nil.")
      }
      object["times"] = .number(Double(times))
    }
    if let name { object["name"] = .string(name) }
    let answer = try await send(
      "POST", "stubs", query: [URLQueryItem(name: "location", value: "\(location)")], body: .object(object))
    return try RemoteStub(answer)
  }

  /// The server's stubs, oldest first (later ones take precedence).
  public func stubs() async throws -> [RemoteStub] {
    let answer = try await send("GET", "stubs")
    return try (answer["stubs"]?.arrayValue ?? []).map(RemoteStub.init)
  }

  /// Removes one stub.
  ///
  /// - Throws: ``DoppelError`` when the server no longer has it (it was removed, or a reload
  ///   numbered the stubs again).
  public func remove(_ stub: RemoteStub) async throws {
    _ = try await send("DELETE", "stubs/\(stub.id)")
  }

  /// Removes every stub added through the admin API; the files' stubs stay.
  ///
  /// - Returns: how many were removed.
  @discardableResult
  public func removeStubs() async throws -> Int {
    try await send("DELETE", "stubs")["removed"]?.intValue ?? 0
  }

  // MARK: State

  /// The server's state (what stubs' `requiresState` and `setsState` use): `initial` at first.
  public func state() async throws -> String {
    try await send("GET", "state")["state"]?.stringValue ?? "initial"
  }

  /// Puts the server in `state`, as if a stub with `setsState` had answered.
  public func setState(_ state: String) async throws {
    _ = try await send("PUT", "state", body: ["state": .string(state)])
  }

  /// The state of the state machine called `name` (stubs with `"stateMachine": name`).
  public func state(ofMachine name: String) async throws -> String {
    try await send("GET", "state")["machines"]?[name]?.stringValue ?? "initial"
  }

  /// Puts the state machine called `name` in `state`.
  public func setState(_ state: String, ofMachine name: String) async throws {
    _ = try await send("PUT", "state", body: ["state": .string(state), "machine": .string(name)])
  }

  /// Puts every state machine, the main one included, back in `initial`.
  public func resetStates() async throws {
    _ = try await send("DELETE", "state")
  }

  // MARK: An app's own backend

  /// The state machine an app's in-process backend watches while it waits for the test at launch
  /// (`InAppBackend` in DoppelServer, started with `DOPPEL_WAIT_FOR_STUBS`): `doppel.launch`.
  public static let launchMachine = "doppel.launch"

  /// The state of ``launchMachine`` that lets the app go on launching: `ready`.
  public static let readyState = "ready"

  /// Tells an app whose in-process backend waits for the test (`DOPPEL_WAIT_FOR_STUBS`) that the
  /// stubs are in place: puts ``launchMachine`` in ``readyState``. Call it after adding them.
  public func signalReady() async throws {
    try await setState(Self.readyState, ofMachine: Self.launchMachine)
  }

  // MARK: Journal and verification

  /// The requests the server saw from entry number `since` on (0: all it keeps), oldest first,
  /// each with the stub that answered or the near-miss report, and the number to pass next time to
  /// see only newer ones.
  ///
  /// The server answers a page at a time (at most 1,000 entries or about 8 MiB): this reads
  /// every page.
  public func journal(since: Int = 0) async throws -> (entries: [RemoteJournalEntry], next: Int) {
    var entries: [RemoteJournalEntry] = []
    var next = since
    while true {
      let answer = try await send("GET", "requests", query: [URLQueryItem(name: "since", value: String(next))])
      entries += try (answer["requests"]?.arrayValue ?? []).map(RemoteJournalEntry.init)
      let following = answer["next"]?.intValue ?? 0
      // A page that does not move forward (a server of another version) ends the reading.
      guard answer["more"] == .bool(true), following > next else { return (entries, following) }
      next = following
    }
  }

  /// Every request the server's journal keeps as a HAR 1.2 cassette, secrets redacted by the
  /// server as recording redacts them: a request no stub matched is there as the answer the
  /// client got (the unmatched status, the near-miss report as its body). Save it to open in a
  /// browser's developer tools, or replay it.
  ///
  /// ```swift
  /// let traffic = try await remote.journalHAR()
  /// try traffic.save(to: URL(fileURLWithPath: "/tmp/ui-test.har"))
  /// ```
  ///
  /// - Throws: ``DoppelError`` when the server cannot be reached or its answer is not HAR.
  public func journalHAR() async throws -> Cassette {
    let (_, data) = try await exchange("GET", "requests.har")
    return try Cassette(data: data, file: "\(adminPrefix)requests.har")
  }

  /// The requests the server saw that `matcher` matches, oldest first, with their bodies. The
  /// matcher runs here, so any matcher works, closures included.
  public func requests(matching matcher: Matcher = .any) async throws -> [Request] {
    try await journal().entries.map(\.request).filter(matcher.matches)
  }

  /// Checks that the server saw exactly `count` requests matching `matcher`.
  ///
  /// - Throws: ``DoppelError`` whose message is the server's report: the count found, and the
  ///   journaled requests closest to `matcher`, field by field.
  public func verify(_ matcher: Matcher, count: Int = 1) async throws {
    try await verify(matcher, ["count": .number(Double(count))])
  }

  /// Checks that the server saw at least `count` requests matching `matcher`.
  public func verify(_ matcher: Matcher, atLeast count: Int) async throws {
    try await verify(matcher, ["atLeast": .number(Double(count))])
  }

  /// How many requests the server saw (among those its journal keeps) that `matcher` matches.
  public func count(_ matcher: Matcher) async throws -> Int {
    try await send("POST", "verify", body: ["request": try matcher.manifestRequest()])["count"]?.intValue ?? 0
  }

  private func verify(_ matcher: Matcher, _ expectation: [String: JSONValue]) async throws {
    var object = expectation
    object["request"] = try matcher.manifestRequest()
    let answer = try await send("POST", "verify", body: .object(object))
    if answer["ok"] == .bool(false) {
      throw DoppelError.server(answer["report"]?.stringValue ?? "The server's verification of \(matcher) failed.")
    }
  }

  /// Forgets the requests the server saw.
  public func clearJournal() async throws {
    _ = try await send("DELETE", "requests")
  }

  // MARK: Reset

  /// Puts the server back to what its files say: their stubs in the scenario it started with, no
  /// stubs added through the admin API, an empty journal, the state `initial`.
  public func reset() async throws {
    _ = try await send("POST", "reset")
  }

  // MARK: Transport

  /// Sends an admin request and returns its JSON answer.
  private func send(
    _ method: String, _ endpoint: String, query: [URLQueryItem] = [], body: JSONValue? = nil
  ) async throws -> JSONValue {
    let (answer, _) = try await exchange(method, endpoint, query: query, body: body)
    guard let answer else {
      throw DoppelError.server("The stub server's answer to \(method) \(adminPrefix)\(endpoint) is not JSON.")
    }
    return answer
  }

  /// Sends an admin request; returns the answer as JSON (when it is) and as bytes.
  private func exchange(
    _ method: String, _ endpoint: String, query: [URLQueryItem] = [], body: JSONValue? = nil
  ) async throws -> (json: JSONValue?, data: Data) {
    var base = baseURL.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    var components = URLComponents(string: base + adminPrefix + endpoint)
    if !query.isEmpty { components?.queryItems = query }
    guard let url = components?.url else {
      throw DoppelError.server(
        "\(base + adminPrefix + endpoint) is not a URL. Check the base URL and the admin prefix.")
    }
    var request = URLRequest(url: url)
    request.httpMethod = method
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    if let body {
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      request.httpBody = try encoder.encode(body)
    }
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(for: request)
    } catch {
      throw DoppelError.server(
        "Could not reach the stub server's admin API at \(url.absoluteString): \(error.localizedDescription). Check that the server runs at \(baseURL.absoluteString) with its admin API under \(adminPrefix) (doppel serve --admin-prefix)."
      )
    }
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    let answer = try? JSONValue(parsing: data)
    guard (200...299).contains(status) else {
      if let message = answer?["error"]?.stringValue {
        // The server's message names the fix (an option to start it with, or the token to pass).
        throw DoppelError.server("The stub server refused \(method) \(adminPrefix)\(endpoint) (\(status)): \(message)")
      }
      throw DoppelError.server(
        "The stub server at \(baseURL.absoluteString) answered \(method) \(adminPrefix)\(endpoint) with \(status) and no admin API error: is it Doppel's stub server, with its admin API under \(adminPrefix)?"
      )
    }
    return (answer, data)
  }
}

extension JSONValue {
  subscript(key: String) -> JSONValue? {
    if case .object(let object) = self { return object[key] }
    return nil
  }

  var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  var arrayValue: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }

  var intValue: Int? {
    if case .number(let number) = self { return Int(exactly: number) }
    return nil
  }
}
