import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Backend {
  /// A backend answering with a manifest's base stubs and, layered over them, one scenario's.
  ///
  /// ```swift
  /// let manifest = try Manifest.load(named: "doppel", in: .module, subdirectory: "Fixtures")
  /// let backend = try Backend(manifest: manifest, scenario: "empty")
  /// ```
  ///
  /// - Parameters:
  ///   - manifest: the stubs and scenarios.
  ///   - scenario: which scenario to layer over the base stubs. By default ``ScenarioSelection/automatic``:
  ///     the `DOPPEL_SCENARIO` environment variable, else the `-DoppelScenario NAME` launch
  ///     argument, else none.
  ///   - unmatched: what to do with requests no stub matches; by default the manifest's
  ///     `unmatched`, or ``UnmatchedPolicy/fail``.
  ///   - issueReporter: where unmatched requests are reported; by default, standard error.
  ///   - clock: the clock that delays and pacing run on.
  ///   - extensions: what serves the parts of the manifest other modules serve, such as
  ///     `DoppelGraphQL`'s `.graphQL` for `"graphql"` (see ``ManifestExtension``).
  ///
  /// The manifest's `seed`, when it has one, becomes the backend's ``seed``.
  /// - Throws: ``DoppelError`` when the scenario is not in the manifest, naming the valid ones, or
  ///   when the manifest has a part no extension given serves, or one that cannot be served.
  public convenience init(
    manifest: Manifest, scenario: ScenarioSelection = .automatic, unmatched: UnmatchedPolicy? = nil,
    issueReporter: IssueReporter = .standardError, clock: any Clock<Duration> = ContinuousClock(),
    extensions: [ManifestExtension] = []
  ) throws(DoppelError) {
    let name = try manifest.resolveScenario(scenario)
    self.init(unmatched: unmatched ?? manifest.unmatched ?? .fail, issueReporter: issueReporter, clock: clock)
    if let seed = manifest.seed { self.seed = seed }
    try add(manifest, scenario: name, extensions: extensions)
  }

  /// A backend serving a fixture directory laid out as `<host>/<path>` (see
  /// ``Manifest/init(fixtureDirectory:)`` for the rules).
  ///
  /// - Throws: ``DoppelError`` when the directory does not exist or is not laid out by host.
  public convenience init(
    fixtureDirectory: URL, unmatched: UnmatchedPolicy = .fail, issueReporter: IssueReporter = .standardError,
    clock: any Clock<Duration> = ContinuousClock()
  ) throws(DoppelError) {
    let manifest = try Manifest(fixtureDirectory: fixtureDirectory)
    self.init(unmatched: unmatched, issueReporter: issueReporter, clock: clock)
    register(manifest.stubs(for: nil))
  }

  /// Adds a manifest's base stubs and one scenario's to this backend, after (so over) its current
  /// stubs. The manifest's `unmatched` and `seed` are not applied.
  ///
  /// - Parameters:
  ///   - manifest: the stubs and scenarios.
  ///   - scenario: which scenario to layer over the base stubs (see
  ///     ``init(manifest:scenario:unmatched:issueReporter:clock:extensions:)``).
  ///   - extensions: what serves the parts of the manifest other modules serve, such as
  ///     `DoppelGraphQL`'s `.graphQL` for `"graphql"` (see ``ManifestExtension``).
  /// - Returns: the handles of the stubs added, base stubs first, then the GraphQL schema's.
  /// - Throws: ``DoppelError`` when the scenario is not in the manifest, or the manifest has a part
  ///   no extension given serves, or one that cannot be served; nothing is added then.
  @discardableResult
  public func addStubs(
    from manifest: Manifest, scenario: ScenarioSelection = .automatic, extensions: [ManifestExtension] = []
  ) throws(DoppelError) -> [StubHandle] {
    try add(manifest, scenario: try manifest.resolveScenario(scenario), extensions: extensions)
  }

  /// A manifest's stubs alone, its `graphql` left out: for checks of the stubs written in it.
  @discardableResult
  package func addStubsLeavingOutExtensions(from manifest: Manifest, scenario: ScenarioSelection) throws(DoppelError)
    -> [StubHandle]
  {
    register(manifest.stubs(for: try manifest.resolveScenario(scenario)))
  }

  /// The stubs of `manifest` with `scenario`, and its GraphQL schema when it has one: the schema
  /// is read first, so that nothing is added when it cannot be served.
  @discardableResult
  private func add(_ manifest: Manifest, scenario: String?, extensions: [ManifestExtension]) throws(DoppelError)
    -> [StubHandle]
  {
    guard let graphQL = manifest.graphQL(for: scenario) else { return register(manifest.stubs(for: scenario)) }
    let served = try graphQL.serve(on: self, extensions: extensions)
    return register(manifest.stubs(for: scenario)) + [served]
  }

  @discardableResult
  private func register(_ stubs: [ManifestStub]) -> [StubHandle] {
    stubs.map { register($0) }
  }

  /// Registers one stub read from a manifest (or from the admin API, which reads stubs the same
  /// way): its matcher, responder or template, limits, name, states and declared location.
  @discardableResult
  func register(_ stub: ManifestStub) -> StubHandle {
    let handle = self.stub(
      stub.matcher, stub.template?.responder(clock: clockBox) ?? stub.responder, times: stub.times, name: stub.name,
      fileID: stub.location.fileID,
      filePath: stub.location.filePath, line: stub.location.line, column: stub.location.column)
    if let state = stub.requiresState { handle.requiresState(state) }
    if let state = stub.setsState { handle.setsState(state) }
    if let name = stub.stateMachine { handle.stateMachine(name) }
    return handle
  }
}
