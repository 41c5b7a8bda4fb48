import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

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
  let router = Router()
  private let state: Locked<State>
  /// The identity `URLSession` requests use to find this backend (see ``configuration``).
  let id: UInt32

  private struct State {
    var journal: [JournalEntry] = []
    var unmatchedPolicy: UnmatchedPolicy
    var issueReporter: IssueReporter
    var session: URLSession?
    var passthroughSession: URLSession?
    var requiresAllStubsUsed = false
  }

  /// Creates an empty backend.
  ///
  /// - Parameters:
  ///   - unmatched: what to do with requests no stub matches; by default they fail (see
  ///     ``UnmatchedPolicy/fail``).
  ///   - issueReporter: where invalid stubs and unmatched requests are reported; by default,
  ///     standard error.
  public init(unmatched: UnmatchedPolicy = .fail, issueReporter: IssueReporter = .standardError) {
    state = Locked(State(unmatchedPolicy: unmatched, issueReporter: issueReporter))
    id = BackendRegistry.shared.register()
    BackendRegistry.shared.attach(self)
  }

  deinit {
    // Sessions are not invalidated here: code may still hold `session`, and on Linux using an
    // invalidated session is a fatal error. Its requests fail with a clear error instead.
    BackendRegistry.shared.unregister(id)
  }

  /// What happens to requests no stub matches.
  public var unmatchedPolicy: UnmatchedPolicy {
    get { state.withLock { $0.unmatchedPolicy } }
    set { state.withLock { $0.unmatchedPolicy = newValue } }
  }

  /// Where invalid stubs and unmatched requests are reported.
  public var issueReporter: IssueReporter {
    get { state.withLock { $0.issueReporter } }
    set { state.withLock { $0.issueReporter = newValue } }
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
  /// - Returns: a handle to check the call count or remove the stub.
  @discardableResult
  public func stub(
    _ matcher: Matcher, _ response: Response, times: Int? = nil, name: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) -> StubHandle {
    add(
      matcher, .response(response), times, name,
      SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Registers a stub that answers with a ``Responder``: a sequence, or a closure.
  @discardableResult
  public func stub(
    _ matcher: Matcher, _ responder: Responder, times: Int? = nil, name: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) -> StubHandle {
    add(matcher, responder, times, name, SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
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
      SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  private func add(
    _ matcher: Matcher, _ responder: Responder, _ times: Int?, _ name: String?, _ location: SourceLocation
  ) -> StubHandle {
    var matcher = matcher
    if let times, times < 1 {
      matcher =
        matcher
        && Matcher(
          .invalid(
            DoppelError(
              "times: \(times) is not allowed; a stub answers at least once. Remove the stub instead, or pass times: 1 or more."
            )))
    }
    let handle = router.add(matcher, responder, limit: times, name: name, location: location)
    if let problem = matcher.problem ?? responder.problem {
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
      (stub.matcher.problem ?? stub.responder.problem).map {
        DoppelIssue("Invalid stub: \($0.message)", location: stub.location)
      }
    }
  }

  /// Removes every stub.
  public func removeAllStubs() { router.removeAll() }

  // MARK: Journal

  /// Every request this backend saw, in order, with what answered it.
  public var journal: [JournalEntry] { state.withLock { $0.journal } }

  /// Every request this backend saw, in order, with full bodies.
  public var requests: [Request] { state.withLock { $0.journal.map(\.request) } }

  /// The requests no stub matched, in order.
  public var unmatchedRequests: [Request] {
    state.withLock { $0.journal.filter { !$0.isMatched }.map(\.request) }
  }

  /// The requests that `matcher` matches, in order: for example
  /// `backend.requests(matching: .post("/orders")).count`.
  public func requests(matching matcher: Matcher) -> [Request] {
    requests.filter(matcher.matches)
  }

  /// The most recent request, if any.
  public var lastRequest: Request? { state.withLock { $0.journal.last?.request } }

  /// Forgets every journaled request (stubs and their call counts stay).
  public func clearJournal() { state.withLock { $0.journal.removeAll() } }

  // MARK: Verification

  /// Whether ``verify()`` requires every stub to have answered at least once, as if each had
  /// `expect(atLeast: 1)`. Off by default.
  public var requiresAllStubsUsed: Bool {
    get { state.withLock { $0.requiresAllStubsUsed } }
    set { state.withLock { $0.requiresAllStubsUsed = newValue } }
  }

  /// What is wrong at the end of a test: each request that no stub matched (with its near-miss
  /// report), and each stub whose expectation (``StubHandle/expect(times:)``,
  /// ``StubHandle/expect(atLeast:)`` or ``requiresAllStubsUsed``) was not met, located where the
  /// stub was declared. Empty when all is well.
  public func verify() -> [DoppelIssue] {
    let (unmatched, requireAll) = state.withLock { state in
      (state.journal.compactMap(\.unmatchedReport), state.requiresAllStubsUsed)
    }
    var issues = unmatched.map { DoppelIssue($0) }
    for stub in router.stubs where stub.matcher.problem == nil {
      guard let expected = stub.expectedCalls ?? (requireAll ? 1...Int.max : nil) else { continue }
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
    return issues
  }

  private static func times(_ count: Int) -> String { count == 1 ? "1 time" : "\(count) times" }

  // MARK: Resolution

  /// What a front door plays back: an HTTP answer or a failure, now or after some work.
  enum Plan: Sendable {
    case now(Delivery)
    case later(@Sendable () async -> Delivery)
  }

  /// Resolves a request: finds the stub, journals it, and returns how to answer it.
  func resolve(_ incoming: Request) -> Plan {
    let index = state.withLock { state -> Int in
      state.journal.append(JournalEntry(request: incoming))
      return state.journal.count - 1
    }
    guard let (stub, call, captures) = router.resolve(incoming) else {
      return unmatched(incoming, index: index)
    }
    var matched = incoming
    matched.pathParameters = captures
    let request = matched
    if let response = stub.responder.immediate(call: call, stub: stub) {
      return .now(finish(response, for: request, stub: stub, index: index))
    }
    guard case .handler(let handler) = stub.responder.kind else {
      return .now(finish(.error(DoppelError("internal: no response")), for: request, stub: stub, index: index))
    }
    return .later { [self] in
      let response: Response
      do {
        response = try await handler.respond(request)
      } catch {
        response = .error(error)
      }
      return finish(response, for: request, stub: stub, index: index)
    }
  }

  private func unmatched(_ request: Request, index: Int) -> Plan {
    let report = NearMissReport.make(for: request, stubs: router.stubs)
    let (policy, reporter) = state.withLock { state in
      state.journal[index].unmatchedReport = report
      return (state.unmatchedPolicy, state.issueReporter)
    }
    switch policy.kind {
    case .fail:
      reporter.report(DoppelIssue(report))
      let error = URLError(
        .resourceUnavailable,
        userInfo: [
          NSLocalizedDescriptionKey: report,
          NSURLErrorFailingURLErrorKey: request.url,
        ])
      return .now(finish(.error(error), for: request, stub: nil, index: index))
    case .respond(let response):
      return .now(finish(response, for: request, stub: nil, index: index))
    case .passthrough:
      let session = passthroughSession
      return .later { [self] in
        let response: Response
        do {
          let (data, urlResponse) = try await session.data(for: request.urlRequest)
          let http = urlResponse as? HTTPURLResponse
          var headers = HTTPHeaders()
          for (name, value) in (http?.allHeaderFields ?? [:]) {
            headers.add("\(name)", "\(value)")
          }
          response = Response(status: http?.statusCode ?? 200, headers: headers, body: data)
        } catch {
          response = .error(error)
        }
        return finish(response, for: request, stub: nil, index: index)
      }
    }
  }

  /// The session stored in the backend, made by `make` on first use.
  func cachedSession(_ make: () -> URLSession) -> URLSession {
    state.withLock { state in
      if let session = state.session { return session }
      let session = make()
      state.session = session
      return session
    }
  }

  private var passthroughSession: URLSession {
    state.withLock { state in
      if let session = state.passthroughSession { return session }
      let session = URLSession(configuration: .ephemeral)
      state.passthroughSession = session
      return session
    }
  }

  /// Turns a response into what is delivered, and journals it.
  private func finish(_ response: Response, for request: Request, stub: StubHandle?, index: Int) -> Delivery {
    let delivery = Delivery.make(response, for: request)
    state.withLock { state in
      guard index < state.journal.count else { return }  // the journal was cleared meanwhile
      state.journal[index].request = request
      state.journal[index].stub = stub
      switch delivery {
      case .success(let answer):
        var journaled = response
        journaled.headers = answer.headers
        state.journal[index].response = journaled
      case .failure(let error):
        state.journal[index].error = error
      }
    }
    if case .failure(let error) = delivery, let problem = error as? DoppelError {
      issueReporter.report(DoppelIssue(problem.message, location: stub?.location))
    }
    return delivery
  }

  // MARK: In-memory answers

  /// Answers a request directly, without `URLSession`: the same stubs, journal and diagnostics.
  ///
  /// - Throws: the stubbed error, or for an unmatched request (by default) a `URLError` whose
  ///   description is the near-miss report.
  public func respond(to request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let delivery: Delivery
    switch resolve(Request(request)) {
    case .now(let now): delivery = now
    case .later(let work): delivery = await work()
    }
    switch delivery {
    case .success(let answer): return (answer.body, answer.httpURLResponse)
    case .failure(let error): throw error
    }
  }
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
