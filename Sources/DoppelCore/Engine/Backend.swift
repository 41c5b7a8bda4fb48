@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A stand-in backend: an isolated set of stubs, a journal of every request, and the policies that
/// decide what happens to a request no stub matches.
///
/// ```swift
/// let backend = Backend()
/// backend.stub(.get("https://api.example.com/breeds.json"), .json(breeds))
/// let (data, response) = try await backend.session.data(from: breedsURL)
/// backend.requests.count  // 1
/// ```
///
/// Every backend is isolated from every other one in the process: sessions made by one backend are
/// answered only by its stubs, so tests running in parallel can stub the same URLs differently.
/// A `Backend` is safe to use from any thread or task.
public final class Backend: Sendable {
  package let router = Router()
  /// What may change over the backend's life (its journal, seed, policy, reporter…), under one lock.
  package let locked: Locked<State>
  /// The current states of the backend's state machines (see ``StubHandle/requiresState(_:)``).
  package let machine = Locked(StateMachines())
  package let clockBox: ClockBox
  /// See ``journalBodyLimit``; apart from ``locked`` so that a body's digest is made outside its
  /// lock.
  private let bodyLimit = Locked<Int?>(nil)
  /// The wall-clock time the backend was made, and the time since on its clock: what templates'
  /// `now` is.
  private let started: (date: Date, elapsed: ElapsedTime)
  /// The identity `URLSession` requests use to find this backend (see ``configuration``).
  let id: UInt32

  package struct State {
    var journal: JournalStorage
    var unmatchedPolicy: UnmatchedPolicy
    var issueReporter: IssueReporter
    var session: URLSession?
    var passthroughSession: URLSession?
    var requiresAllStubsUsed = false
    /// The serials of the stubs ``requiresAllStubsUsed`` leaves out (a suite's defaults).
    var stubsNotRequired: Set<Int> = []
    var followsRedirects = true
    /// Sees every finished exchange (see ``Backend/exchangeObserver``); `nil` costs nothing.
    var exchangeObserver: (@Sendable (Exchange) -> Void)?
    /// What happened on upgraded WebSocket connections (see ``Backend/webSocketEvents``).
    var webSocketEvents: [WebSocketEvent] = []
    var webSocketConnections = 0
    /// See ``Backend/seed``.
    var seed: UInt64 = 0
    /// Changes each time the seed is set, so that generators made before start again.
    var seedEpoch = 0
    /// What responses given under the unmatched policy draw from, with the epoch it was made in.
    var unmatchedRandom: (epoch: Int, generator: SplitMix64)?
    /// What shapes the answer to an unmatched request at a front door that answers it with a
    /// status (see ``Backend/shapeUnmatchedAnswers(_:)``), in the order added.
    package var unmatchedShapers: [UnmatchedShaper] = []
  }

  /// Creates an empty backend.
  ///
  /// - Parameters:
  ///   - unmatched: what to do with requests no stub matches; by default they fail (see
  ///     ``UnmatchedPolicy/fail``).
  ///   - issueReporter: where invalid stubs and unmatched requests are reported; by default,
  ///     standard error.
  ///   - clock: the clock that delays, pacing and timeouts run on; by default the continuous
  ///     clock. Pass a ``ManualClock`` to control time from a test.
  ///   - journalLimit: the most requests the ``journal`` keeps; beyond it the oldest are dropped
  ///     and counted in ``droppedJournalEntries``. `nil` (the default) keeps every request, which a
  ///     test wants; a long-running backend (a stub server, a benchmark) sets a limit to keep its
  ///     memory flat. Values below 1 are taken as 1. Unmatched requests are still reported by
  ///     ``verify()`` after their entries are dropped.
  public init(
    unmatched: UnmatchedPolicy = .fail, issueReporter: IssueReporter = .standardError,
    clock: any Clock<Duration> = ContinuousClock(), journalLimit: Int? = nil
  ) {
    locked = Locked(
      State(
        journal: JournalStorage(limit: journalLimit.map { max($0, 1) }), unmatchedPolicy: unmatched,
        issueReporter: issueReporter))
    clockBox = ClockBox(clock: clock)
    started = (Date(), ElapsedTime(clock))
    id = BackendRegistry.shared.reserve()
    BackendRegistry.shared.attach(self)
  }

  deinit {
    // Sessions are not invalidated here: code may still hold `session`, and on Linux using an
    // invalidated session is a fatal error. Its requests fail with a clear error instead.
    BackendRegistry.shared.unregister(id)
  }

  /// The time templated responses fill in as `now`: the backend's start, advanced by its clock.
  var templateNow: Date { started.date.addingTimeInterval(started.elapsed.seconds()) }

  /// The clock delays, pacing and timeouts run on.
  public var clock: any Clock<Duration> { clockBox.clock }

  /// Whether redirects (301, 302, 303, 307, 308 with a `Location`) are followed for URLSession and
  /// in-memory callers, as URLSession does: the caller sees the final response. On by default;
  /// ``Response/notFollowed()`` turns it off for one response.
  public var followsRedirects: Bool {
    get { locked.withLock { $0.followsRedirects } }
    set { locked.withLock { $0.followsRedirects = newValue } }
  }

  /// Where random delays and failure rates (``Response/failing(rate:with:)``) start from: the
  /// same seed gives the same delays and the same failed requests, in the same order, so a flaky
  /// backend can be reproduced exactly. `0` by default.
  ///
  /// Each stub draws from its own generator, made from this seed and the stub's registration
  /// number at its first draw, so what one stub draws does not depend on the requests other stubs
  /// get. Setting the seed starts every stub's draws again from the new seed. A manifest's
  /// `"seed"` sets it.
  public var seed: UInt64 {
    get { locked.withLock { $0.seed } }
    set {
      locked.withLock { state in
        state.seed = newValue
        state.seedEpoch += 1
      }
    }
  }

  /// What happens to requests no stub matches.
  public var unmatchedPolicy: UnmatchedPolicy {
    get { locked.withLock { $0.unmatchedPolicy } }
    set { locked.withLock { $0.unmatchedPolicy = newValue } }
  }

  /// Where invalid stubs and unmatched requests are reported.
  public var issueReporter: IssueReporter {
    get { locked.withLock { $0.issueReporter } }
    set { locked.withLock { $0.issueReporter = newValue } }
  }

  // MARK: Stubs

  /// Registers a stub that answers requests matching `matcher` with `response`.
  ///
  /// Later stubs take precedence over earlier ones, so a test can override a default.
  ///
  /// - Parameters:
  ///   - matcher: which requests the stub answers, for example `.get("/breeds.json")`.
  ///   - response: the answer, for example `.json(breeds)` or `.status(404)`.
  ///   - times: how many requests the stub answers at most; after that it steps aside and requests
  ///     go on to earlier stubs. `nil` (the default) is no limit.
  ///   - name: a name shown in diagnostics.
  ///   - fileID: the file that declared the stub, for diagnostics; leave the default.
  ///   - filePath: the full path of that file, for the test failure's location; leave the default.
  ///   - line: the line of the declaration; leave the default.
  ///   - column: the column of the declaration; leave the default.
  /// - Returns: a handle to check the call count or remove the stub.
  @discardableResult
  public func stub(
    _ matcher: Matcher, _ response: Response, times: Int? = nil, name: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) -> StubHandle {
    add(
      matcher, .response(response), times, name,
      CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Registers a stub that answers with a ``Responder``: a sequence, or a closure.
  @discardableResult
  public func stub(
    _ matcher: Matcher, _ responder: Responder, times: Int? = nil, name: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) -> StubHandle {
    add(matcher, responder, times, name, CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Registers a stub whose response a closure computes from the request. The request carries the
  /// path template's captures in ``Request/pathParameters``; an error thrown reaches the caller.
  ///
  /// ```swift
  /// backend.stub(.get("/users/{id}")) { request in .json(User(id: request.pathParameters["id"]!)) }
  /// ```
  @discardableResult
  public func stub(
    _ matcher: Matcher, times: Int? = nil, name: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
    _ respond: @escaping @Sendable (Request) async throws -> Response
  ) -> StubHandle {
    add(
      matcher, .handler(respond), times, name,
      CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Registers a fallback stub: it answers only requests that no ordinary stub takes, whether that
  /// stub was added before or after it (stubs derived from a document lose to hand-written ones).
  @discardableResult
  package func fallbackStub(
    _ matcher: Matcher, name: String?, location: CodeLocation,
    _ respond: @escaping @Sendable (Request) async throws -> Response
  ) -> StubHandle {
    add(matcher, .handler(respond), nil, name, location, fallback: true)
  }

  private func add(
    _ matcher: Matcher, _ responder: Responder, _ times: Int?, _ name: String?, _ location: CodeLocation,
    fallback: Bool = false
  ) -> StubHandle {
    var matcher = matcher
    if let times, times < 1 {
      matcher =
        matcher
        && Matcher(
          .invalid(
            DoppelError.invalidStub(
              "times: \(times) is not allowed; a stub answers at least once. Remove the stub instead, or pass times: 1 or more."
            )))
    }
    let handle = router.add(matcher, responder, limit: times, name: name, location: location, fallback: fallback)
    if let problem = handle.matcherProblem ?? responder.problem {
      issueReporter.report(DoppelIssue("Invalid stub: \(problem.message)", location: location))
    }
    return handle
  }

  /// Every live stub, oldest first.
  public var stubs: [StubHandle] { router.stubs }

  /// The problems of stubs that were built from bad input (each matches nothing), with where
  /// each was declared. Empty when every stub is valid.
  public var problems: [DoppelIssue] {
    router.stubs.compactMap { stub in
      (stub.matcherProblem ?? stub.responder.problem).map {
        DoppelIssue("Invalid stub: \($0.message)", location: stub.location)
      }
    }
  }

  /// Removes every stub.
  public func removeAllStubs() { router.removeAll() }

  // MARK: Observation

  /// A finished exchange: the request and, when the request was answered, the status, final
  /// headers and body the caller got, with the stub that gave them (`nil` for an unmatched request).
  package struct Exchange: Sendable {
    package let request: Request
    package let status: Int?
    package let headers: HTTPHeaders
    package let body: Data
    package let stub: StubHandle?
  }

  /// Called for each finished exchange, on the thread that finished it, after it was journaled.
  /// Used by validators (DoppelOpenAPI); `nil` (the default) costs nothing per request.
  var exchangeObserver: (@Sendable (Exchange) -> Void)? {
    get { locked.withLock { $0.exchangeObserver } }
    set { locked.withLock { $0.exchangeObserver = newValue } }
  }

  /// Adds an observer after the current one (both are called).
  package func addExchangeObserver(_ observer: @escaping @Sendable (Exchange) -> Void) {
    locked.withLock { state in
      if let previous = state.exchangeObserver {
        state.exchangeObserver = {
          previous($0)
          observer($0)
        }
      } else {
        state.exchangeObserver = observer
      }
    }
  }

  /// Adds an observer that reports, as issues located at the stub that answered, what `check`
  /// finds wrong with each exchange: `"<label>: <finding>"` (used by DoppelOpenAPI and
  /// DoppelGraphQL).
  package func addExchangeCheck(_ label: String, _ check: @escaping @Sendable (Exchange) -> [String]) {
    addExchangeObserver { [weak self] exchange in
      guard let self else { return }
      let found = check(exchange)
      guard !found.isEmpty else { return }
      let reporter = issueReporter
      for finding in found {
        reporter.report(DoppelIssue("\(label): \(finding)", location: exchange.stub?.location))
      }
    }
  }

  // MARK: Journal

  /// Every request this backend saw, in order, with what answered it (the newest
  /// ``journalLimit`` of them when the backend has a limit).
  public var journal: [JournalEntry] { locked.withLock { $0.journal.all } }

  /// Every request this backend saw, in order, with full bodies (the newest ``journalLimit`` of
  /// them when the backend has a limit).
  public var requests: [Request] { locked.withLock { $0.journal.all.map(\.request) } }

  /// The requests no stub matched, in order, among those the journal keeps.
  public var unmatchedRequests: [Request] {
    locked.withLock { $0.journal.all.filter { !$0.isMatched }.map(\.request) }
  }

  /// The most requests the journal keeps, or `nil` when it keeps every one (the default).
  public var journalLimit: Int? { locked.withLock { $0.journal.limit } }

  /// The most bytes the journal keeps, or `nil` (the default) for no bound. Beyond it the oldest
  /// entries are dropped, as beyond ``journalLimit``, and counted in ``droppedJournalEntries``;
  /// the newest entry is kept whatever its size. A count of entries alone does not bound memory
  /// when requests are large (30 uploads of 15 MiB, or thousands of 60 KiB headers); a
  /// long-running backend sets both. `doppel serve` keeps 256 MiB (`--journal-mib`).
  ///
  /// Every request's URL and header fields count, and its bodies when the entry holds them on
  /// its own: the request's, and a response's built for that request (an answer the stub reuses,
  /// or a file, is not held by the journal). The WebSocket events (``webSocketEvents``: each
  /// message, at most 1 MiB from a client, and close reason) count too, and the oldest events
  /// are dropped first when a frame passes the bound.
  public var journalByteLimit: Int? {
    get { locked.withLock { $0.journal.byteLimit } }
    set { locked.withLock { $0.journal.byteLimit = newValue.map { max($0, 0) } } }
  }

  /// The largest request or response body the journal keeps whole, or `nil` (the default) to keep
  /// every body. A larger body is kept as its length and SHA-256 digest
  /// (``JournalEntry/omittedRequestBody``, ``JournalEntry/omittedResponseBody``): the entry's
  /// ``JournalEntry/request`` then has no body, and body matchers in ``requests(matching:)`` and
  /// verifications do not see it. Stubs still match and templates still render the whole body;
  /// only what the journal holds afterwards changes. `doppel serve` keeps bodies up to 1 MiB
  /// (`--journal-body-limit`).
  public var journalBodyLimit: Int? {
    get { bodyLimit.withLock { $0 } }
    set { bodyLimit.withLock { $0 = newValue.map { max($0, 0) } } }
  }

  /// How many requests the journal dropped to stay within ``journalLimit`` (and
  /// ``journalByteLimit``) since it was last cleared. Counts and searches over ``journal`` and ``requests`` see only what is kept.
  public var droppedJournalEntries: Int { locked.withLock { $0.journal.dropped } }

  /// The requests that `matcher` matches, in order: for example
  /// `backend.requests(matching: .post("/orders")).count`.
  public func requests(matching matcher: Matcher) -> [Request] {
    requests.filter(matcher.matches)
  }

  /// The most recent request, if any.
  public var lastRequest: Request? { locked.withLock { $0.journal.last?.request } }

  /// The most recent request that `matcher` matches, if any.
  ///
  /// ```swift
  /// let order = try #require(backend.lastRequest(matching: .post("/orders")))
  /// #expect(try order.decodeJSON(Order.self) == expected)
  /// ```
  public func lastRequest(matching matcher: Matcher) -> Request? {
    requests.last(where: matcher.matches)
  }

  /// How many requests were journaled since the journal was last cleared, kept or dropped: where
  /// ``journal(since:)`` starts to see only newer ones.
  package var journalAppended: Int { locked.withLock { $0.journal.appended } }

  /// The journal's entries from number `start` on (see ``journalAppended``), and how many of them
  /// the limit dropped.
  package func journal(since start: Int) -> (entries: [JournalEntry], dropped: Int) {
    locked.withLock { $0.journal.entries(since: start) }
  }

  /// At most `maximum` of the journal's entries from number `start` on, with the number of the
  /// first one returned, how many entries from `start` on the limit dropped, and
  /// ``journalAppended``, read together: a window of a long journal, copied without the rest.
  package func journal(
    since start: Int, maximum: Int
  ) -> (entries: [JournalEntry], first: Int, dropped: Int, appended: Int) {
    locked.withLock { state in
      let (entries, first, dropped) = state.journal.entries(since: start, maximum: maximum)
      return (entries, first, dropped, state.journal.appended)
    }
  }

  /// The journal's entries from number `start` on, read together with the journal's generation
  /// (which changes each time the journal is cleared): when `generation` is not the current one,
  /// the journal was cleared since the caller last read it, and the entries are read from 0 of the
  /// current one. Returns the number of the first entry returned as well (later than `start` when
  /// the limit dropped some), for a reader that must see each finished entry exactly once.
  package func journal(
    since start: Int, ofGeneration generation: Int
  ) -> (entries: [JournalEntry], first: Int, generation: Int) {
    locked.withLock { state in
      let current = state.journal.generation
      let from = generation == current ? start : 0
      let (entries, _) = state.journal.entries(since: from)
      return (entries, state.journal.appended - entries.count, current)
    }
  }

  /// Forgets every journaled request and WebSocket event (stubs and their call counts stay).
  public func clearJournal() {
    locked.withLock { state in
      _ = state.journal.removeAll()
      state.webSocketEvents.removeAll()
      state.journal.bytesBeside = 0
    }
  }

  // MARK: Verification

  /// Whether ``verify()`` requires every stub without an expectation of its own to have answered
  /// at least once. Off by default. The stubs that never answered are reported together, each
  /// with where it was declared.
  public var requiresAllStubsUsed: Bool {
    get { locked.withLock { $0.requiresAllStubsUsed } }
    set { locked.withLock { $0.requiresAllStubsUsed = newValue } }
  }

  /// Leaves the stubs declared so far out of ``requiresAllStubsUsed``: DoppelTesting's `.doppel`
  /// trait calls it after a suite's trait declared its defaults, so that only the test's own stubs
  /// must answer.
  package func exemptStubsDeclaredSoFarFromRequireAll() {
    let serials = router.stubs.map(\.serial)
    locked.withLock { $0.stubsNotRequired.formUnion(serials) }
  }

  /// What is wrong at the end of a test: each request that no stub matched (its near-miss report,
  /// with no location), then each stub whose expectation (``StubHandle/expect(times:)`` or
  /// ``StubHandle/expect(atLeast:)``) was not met, located where the stub was declared, then, with
  /// ``requiresAllStubsUsed``, one issue listing the other stubs that never answered and where each
  /// was declared, located at the first. Empty when all is well.
  public func verify() -> [DoppelIssue] {
    let (unmatched, requireAll, notRequired) = locked.withLock { state in
      (
        state.journal.droppedUnmatchedReports + state.journal.all.compactMap(\.unmatchedReport),
        state.requiresAllStubsUsed, state.stubsNotRequired
      )
    }
    var issues = unmatched.map { DoppelIssue($0, location: nil, isUnmatchedRequest: true) }
    var required: [StubHandle] = []
    var unused: [StubHandle] = []
    for stub in router.stubs {
      // The expectation first: most stubs have none. An invalid stub is reported as such instead.
      guard let expected = stub.expectedCalls else {
        if requireAll, !notRequired.contains(stub.serial), stub.matcherProblem == nil {
          required.append(stub)
          if stub.callCount == 0 { unused.append(stub) }
        }
        continue
      }
      guard stub.matcherProblem == nil else { continue }
      let calls = stub.callCount
      guard !expected.contains(calls) else { continue }
      let wanted: String
      if expected.upperBound == Int.max {
        wanted = "at least \(Self.times(expected.lowerBound))"
      } else {
        wanted = Self.times(expected.lowerBound)
      }
      issues.append(
        DoppelIssue(
          "The stub \(stub.matcher) was expected to answer \(wanted) but answered \(Self.times(calls)). "
            + "Make the code under test send the request, or change the stub's expectation.",
          location: stub.location))
    }
    if let first = unused.first {
      let counted = unused.count == required.count ? "" : " of the \(required.count)"
      let headline =
        required.count == 1
        ? "A stub that must answer (requiresAllStubsUsed) never answered:"
        : "\(unused.count)\(counted) stubs that must answer (requiresAllStubsUsed) never answered:"
      let lines = unused.map { "  \($0.matcher)  declared at \($0.location)" }
      let fix =
        unused.count == 1
        ? "Make the code under test send the request, or remove the stub."
        : "Make the code under test send these requests, or remove the stubs it does not need."
      issues.append(DoppelIssue(([headline] + lines + [fix]).joined(separator: "\n"), location: first.location))
    }
    return issues
  }

  private static func times(_ count: Int) -> String { count == 1 ? "1 time" : "\(count) times" }
}

extension Request {
  /// A `URLRequest` carrying this request's method, URL, headers and body.
  public var urlRequest: URLRequest {
    var request = URLRequest(url: url)
    request.httpMethod = method.rawValue
    for field in headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
    request.httpBody = body
    return request
  }
}
