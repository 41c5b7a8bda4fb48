@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A registered stub: what `backend.stub(…)` returns.
///
/// Keep it to check how often the stub answered or to remove it:
///
/// ```swift
/// let breeds = backend.stub(.get("/breeds.json"), .json(all))
/// try await model.load()
/// #expect(breeds.callCount == 1)
/// breeds.remove()
/// ```
public final class StubHandle: @unchecked Sendable, CustomStringConvertible {
  // Why `@unchecked` is safe: the only mutable stored property, `state`, is read and written only
  // inside `lock.withLock` (see `withState`); every other stored property is a `let` of a
  // `Sendable` type.

  // Stored properties in the order a request reads them: Swift lays a class out in declaration
  // order, so what matching and claiming read shares the object's first cache lines, and the
  // rarely read parts (stateful stubs' states, expectations) are kept out of line.

  /// Registration order; later stubs take precedence.
  package let order: Int
  /// Whether `matcher` is a conjunction of conditions (no `||` or `!`), so that `literals` and
  /// `others` are all it requires.
  private let isFlat: Bool
  /// Whether `reusableResponse` is given at once and is final (not a redirect to follow), so an
  /// in-memory caller can take a reused answer as it is.
  let answersAtOnce: Bool
  /// Guards `state`. One lock shared by the stubs of a backend: the state then lives in this
  /// object, so claiming a stub touches no other (with thousands of stubs, each object a request
  /// touches is a likely cache miss).
  private let lock: PlainLock
  private nonisolated(unsafe) var state = State()
  /// The most requests this stub answers, or `nil` for no limit. Once used up, requests go on to
  /// earlier stubs as if this one were not there.
  public let limit: Int?
  /// The matcher's literal comparisons when it `isFlat`, stored inline and compared first.
  private let literals: LiteralSet
  /// The matcher's other conditions when it `isFlat`.
  private let others: ContiguousArray<Condition>
  /// `reusableResponse`'s timing, kept here so reusing an answer does not read the response.
  let reusableTiming: Timing
  /// The response, when the stub always answers the same one and its answers can be reused (see
  /// ``Response/answersAreReusable``).
  let reusableResponse: Response?
  /// The matcher.
  public let matcher: Matcher
  /// The matcher's ``Matcher/problem``, worked out once (from its plan).
  let matcherProblem: DoppelError?
  package let responder: Responder
  /// The name given at registration, if any.
  public let name: String?
  /// Where the stub was declared.
  public let location: CodeLocation
  /// Counts the backend's stubs from 0 in the order they were added, fallback stubs included:
  /// unlike `order`, small and distinct for every stub (the admin API's stub id).
  package let serial: Int
  private let onRemove: @Sendable (StubHandle) -> Void

  private struct State {
    var calls = 0
    var removed = false
    /// For a stub with a `reusableResponse`: the last answer it gave to a request other than `HEAD`.
    var lastAnswer: Delivery.Answer?
    /// What ``requiresState(_:)``, ``setsState(_:)`` and the expectations set; `nil` for a stub
    /// that has none.
    var settings: Settings?
    /// The generator a response's random parts draw from, made at the first draw after the
    /// backend's seed was set (its epoch).
    var random: (epoch: Int, generator: SplitMix64)?
  }

  /// The stub's rarely set options, kept out of line and replaced as a whole when one changes.
  private final class Settings: Sendable {
    let requiredState: String?
    let nextState: String?
    let expected: ClosedRange<Int>?
    /// The state machine `requiredState` and `nextState` belong to; `nil` for the backend's main one.
    let machine: String?

    init(requiredState: String?, nextState: String?, expected: ClosedRange<Int>?, machine: String?) {
      self.requiredState = requiredState
      self.nextState = nextState
      self.expected = expected
      self.machine = machine
    }

    /// Whether the stub takes part in the backend's scenario state.
    var isStateful: Bool { requiredState != nil || nextState != nil }
  }

  /// Changes one of the settings.
  private func changeSettings(
    requiredState: String?? = nil, nextState: String?? = nil, expected: ClosedRange<Int>?? = nil,
    machine: String?? = nil
  ) {
    withState { state in
      let old = state.settings
      state.settings = Settings(
        requiredState: requiredState ?? old?.requiredState, nextState: nextState ?? old?.nextState,
        expected: expected ?? old?.expected, machine: machine ?? old?.machine)
    }
  }

  /// One answer taken from the stub: the call index (from 0), and the last answer the stub gave,
  /// which may serve this request too.
  struct Claim {
    let call: Int
    let lastAnswer: Delivery.Answer?
    /// Whether the answer was only looked at (``peek(machine:)``): answering leaves the stub as it
    /// was, its random draws included.
    var isPeek = false
  }

  init(
    matcher: Matcher, plan: Matcher.Plan, responder: Responder, limit: Int?, name: String?, location: CodeLocation,
    order: Int, serial: Int, lock: PlainLock, onRemove: @escaping @Sendable (StubHandle) -> Void
  ) {
    self.matcher = matcher
    matcherProblem = plan.problem
    isFlat = plan.isFlat
    literals = plan.literals
    others = plan.others
    self.responder = responder
    if case .fixed(let response) = responder.kind, response.answersAreReusable {
      reusableResponse = response
      reusableTiming = response.timing
      answersAtOnce =
        response.timing.isImmediate && (!response.timing.followRedirects || !Redirect.isRedirect(response.status))
    } else {
      reusableResponse = nil
      reusableTiming = Timing()
      answersAtOnce = false
    }
    self.limit = limit
    self.name = name
    self.location = location
    self.order = order
    self.serial = serial
    self.lock = lock
    self.onRemove = onRemove
  }

  /// Runs `body` on the state, holding the lock.
  @inline(__always)
  private func withState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try lock.withLock { try body(&state) }
  }

  /// How many requests this stub has answered.
  public var callCount: Int { withState { $0.calls } }

  /// Whether the stub answers no more requests: removed, or its `times` limit used up.
  public var isExhausted: Bool {
    withState { state in
      if state.removed { return true }
      guard let limit else { return false }
      return state.calls >= limit
    }
  }

  /// How many calls ``Backend/verify()`` requires of this stub, if it was given an expectation with
  /// ``expect(times:)`` or ``expect(atLeast:)``.
  public var expectedCalls: ClosedRange<Int>? { withState { $0.settings?.expected } }

  /// Requires the stub to answer exactly `times` requests by the time the backend is verified (at
  /// the end of a test, with `DoppelTesting`).
  ///
  /// ```swift
  /// backend.stub(.post("/orders"), .status(201)).expect(times: 1)
  /// ```
  @discardableResult
  public func expect(times: Int) -> StubHandle {
    changeSettings(expected: max(0, times)...max(0, times))
    return self
  }

  /// Requires the stub to answer at least `count` requests by the time the backend is verified.
  @discardableResult
  public func expect(atLeast count: Int) -> StubHandle {
    changeSettings(expected: max(0, count)...Int.max)
    return self
  }

  /// Makes the stub answer only while the backend's main state machine (``Backend/state()``) is `state`; in other
  /// states requests go on to other stubs. With ``setsState(_:)`` this models a backend whose
  /// answers change after a request, as in:
  ///
  /// ```swift
  /// backend.stub(.get("/me"), .status(401))
  /// backend.stub(.post("/login"), .status(200)).setsState("loggedIn")
  /// backend.stub(.get("/me"), .json(me)).requiresState("loggedIn")
  /// ```
  @discardableResult
  public func requiresState(_ state: String) -> StubHandle {
    changeSettings(requiredState: state)
    return self
  }

  /// Moves the backend's main state machine (``Backend/state()``) to `state` each time this stub answers. The
  /// check of ``requiresState(_:)`` and the move happen together, so concurrent requests see a
  /// consistent state.
  @discardableResult
  public func setsState(_ state: String) -> StubHandle {
    changeSettings(nextState: state)
    return self
  }

  /// The state this stub requires, if any.
  public var requiredState: String? { withState { $0.settings?.requiredState } }

  /// The state this stub moves the backend to, if any.
  public var nextState: String? { withState { $0.settings?.nextState } }

  /// Makes ``requiresState(_:)`` and ``setsState(_:)`` refer to the state machine called `name`
  /// instead of the backend's main one (``Backend/state()``). Each machine has its own
  /// state, `initial` at first, so independent flows (signing in, a basket) do not step on each
  /// other:
  ///
  /// ```swift
  /// backend.stub(.post("/login"), .status(204)).setsState("signedIn").stateMachine("session")
  /// backend.stub(.get("/me"), .json(me)).requiresState("signedIn").stateMachine("session")
  /// backend.stub(.post("/basket"), .status(201)).setsState("full").stateMachine("basket")
  /// ```
  @discardableResult
  public func stateMachine(_ name: String) -> StubHandle {
    changeSettings(machine: .some(name))
    return self
  }

  /// The state machine this stub's states belong to; `nil` for the backend's main one.
  public var stateMachine: String? { withState { $0.settings?.machine } }

  /// Whether ``remove()`` was called.
  public var isRemoved: Bool { withState { $0.removed } }

  /// Removes the stub from its backend; later requests no longer see it. Calling it again does nothing.
  public func remove() {
    let first = withState { state -> Bool in
      defer { state.removed = true }
      return !state.removed
    }
    if first { onRemove(self) }
  }

  /// Marks the stub removed when its router has dropped it already (a replacement of every stub).
  func markRemoved() {
    withState { $0.removed = true }
  }

  /// The matcher's verdict on `request`: its path captures, or `nil` when it does not match.
  func evaluate(_ request: Request) -> [String: String]? {
    guard isFlat else { return matcher.evaluate(request) }
    guard literals.pass(request) else { return nil }
    var captures: [String: String] = [:]
    for condition in others {
      guard let found = condition.test(request) else { return nil }
      if !found.isEmpty { captures.merge(found) { _, new in new } }
    }
    return captures
  }

  /// Takes one answer, checking and moving the backend's state together when the stub is
  /// stateful, or `nil` when the stub is removed, used up or waits for another state.
  func claim(machine: Locked<StateMachines>) -> Claim? {
    // One lock for the common stub that takes part in no scenario state.
    enum Outcome {
      case claimed(Claim?)
      case needsState(required: String?, next: String?, machine: String?)
    }
    let outcome = withState { state -> Outcome in
      if let settings = state.settings, settings.isStateful {
        return .needsState(required: settings.requiredState, next: settings.nextState, machine: settings.machine)
      }
      return .claimed(Self.take(&state, limit: limit))
    }
    switch outcome {
    case .claimed(let claim): return claim
    case .needsState(let required, let next, let name):
      return machine.withLock { machines -> Claim? in
        if let required, machines[name] != required { return nil }
        guard let claim = claim() else { return nil }
        if let next { machines[name] = next }
        return claim
      }
    }
  }

  /// The answer ``claim(machine:)`` would take, without taking it: the call index the next request
  /// would get, or `nil` when the stub is removed, used up or waits for another state. Nothing
  /// changes: not the call count, nor the backend's state (a `HEAD` answered with the head of a
  /// `GET` stub's answer looks at the stub this way).
  func peek(machine: Locked<StateMachines>) -> Claim? {
    let (claim, settings) = withState { state -> (Claim?, Settings?) in
      if state.removed { return (nil, nil) }
      if let limit, state.calls >= limit { return (nil, nil) }
      return (Claim(call: state.calls, lastAnswer: state.lastAnswer, isPeek: true), state.settings)
    }
    guard let claim, let required = settings?.requiredState else { return claim }
    let name = settings?.machine
    return machine.withLock { $0[name] == required } ? claim : nil
  }

  /// Takes one answer, whatever the backend's state.
  func claim() -> Claim? {
    withState { Self.take(&$0, limit: limit) }
  }

  private static func take(_ state: inout State, limit: Int?) -> Claim? {
    if state.removed { return nil }
    if let limit, state.calls >= limit { return nil }
    state.calls += 1
    return Claim(call: state.calls - 1, lastAnswer: state.lastAnswer)
  }

  /// Keeps `answer` for the next request, when the stub's answers can be reused and `answer` has its
  /// whole body (it was not for `HEAD`).
  func keep(_ answer: Delivery.Answer, for request: Request) {
    guard reusableResponse != nil, request.method != .head else { return }
    withState { $0.lastAnswer = answer }
  }

  /// `response` as decided for one request with the stub's generator, which starts from the
  /// backend's `seed` and the stub's registration number, and starts again when the backend's seed
  /// is set (a new `epoch`). With `advancing` false the generator is left where it was, so the
  /// next request draws the same (a `HEAD` answered by looking at a `GET` stub).
  func decide(_ response: Response, seed: UInt64, epoch: Int, advancing: Bool = true) -> Response {
    withState { state in
      var generator =
        state.random.flatMap { $0.epoch == epoch ? $0.generator : nil }
        ?? SplitMix64(seed: Self.seed(backend: seed, order: order))
      let decided = response.decided(&generator)
      if advancing { state.random = (epoch, generator) }
      return decided
    }
  }

  /// A stub's own seed: the backend's, mixed with the registration number.
  static func seed(backend: UInt64, order: Int) -> UInt64 {
    var mixer = SplitMix64(seed: backend ^ (UInt64(truncatingIfNeeded: order) &* 0xD1B5_4A32_D192_ED03))
    return mixer.next()
  }

  /// `BreedTests.swift:14  GET /breeds.json`, with the name when there is one.
  public var description: String {
    "\(location)  \(name.map { "\"\($0)\" " } ?? "")\(matcher)"
  }
}

/// The literal conditions of a conjunction, the common ones stored inline (one of each kind), so
/// matching a stub reads no other object. Further literals of a kind already held go to `more`.
extension Matcher {
  /// What a stub derives from its matcher: the literal comparisons and other conditions it
  /// evaluates when the matcher is flat (a condition, or an `&&` of conditions), and the path or
  /// host the router files it under.
  final class Plan: Sendable {
    /// Whether the matcher is a conjunction of conditions, so `literals` and `others` are all it requires.
    let isFlat: Bool
    let literals: LiteralSet
    let others: ContiguousArray<Condition>
    /// The first literal path the matcher requires, if any: the router's key for it.
    let path: String?
    /// The first literal host the matcher requires, if any: the router's key when it has no path.
    let host: String?
    /// The matcher's ``Matcher/problem``, worked out once: registering a stub, verifying a backend
    /// and every near-miss report ask for it, and a cached matcher's plan is shared by every stub
    /// made from it.
    let problem: DoppelError?

    init(_ matcher: Matcher) {
      problem = matcher.foundProblem
      let conjunction = matcher.conjunction
      isFlat = conjunction != nil
      literals = LiteralSet(conjunction?.compactMap(\.literal) ?? [])
      others = ContiguousArray(conjunction?.filter { $0.literal == nil } ?? [])
      var path: String?
      var host: String?
      for key in matcher.indexKeys {
        switch key {
        case .path(let value): path = path ?? value
        case .host(let value): host = host ?? value
        }
      }
      self.path = path
      self.host = host
    }
  }
}

struct LiteralSet: Sendable {
  private var method: HTTPMethod?
  private var path: String?
  private var host: String?
  /// `http` on port 80 or `https` on port 443, the scheme literal of most URL matchers.
  private var webScheme: WebScheme?
  private var more: ContiguousArray<Condition.Literal> = []

  private enum WebScheme {
    case http, https
  }

  init(_ literals: [Condition.Literal]) {
    for literal in literals {
      switch literal {
      case .method(let method) where self.method == nil: self.method = method
      case .path(let path) where self.path == nil: self.path = path
      case .host(let host) where self.host == nil: self.host = host
      case .schemeOnDefaultPort("http", 80) where webScheme == nil: webScheme = .http
      case .schemeOnDefaultPort("https", 443) where webScheme == nil: webScheme = .https
      default: more.append(literal)
      }
    }
  }

  /// Whether `request` passes every literal.
  @inline(__always)
  func pass(_ request: Request) -> Bool {
    if let method, request.method != method { return false }
    if let path, request.path != path { return false }
    if let host, request.host != host { return false }
    switch webScheme {
    case .http?: if request.scheme != "http" || request.effectivePort != 80 { return false }
    case .https?: if request.scheme != "https" || request.effectivePort != 443 { return false }
    case nil: break
    }
    for literal in more where !literal.passes(request) { return false }
    return true
  }
}

extension StubHandle {
  /// What the stub's matcher pins down of the request it answers, read from its literal
  /// conditions (the router's own reading, hence here): the method and the path (or path
  /// template) it requires, when it requires one. For checks made without a request, such as
  /// DoppelOpenAPI's `violations(of:)`.
  package var declaredRequest: (method: HTTPMethod?, path: String?) {
    var method: HTTPMethod?
    var path: String?
    for condition in matcher.conjunction ?? [] {
      switch condition.literal {
      case .method(let value)?: method = method ?? value
      case .path(let value)?: path = path ?? value
      default:
        // A path template (quoted like a literal path), not a glob or a regular expression.
        if condition.part == .path, condition.field == "path", condition.expected.hasPrefix("\"") {
          path = path ?? condition.summary
        }
      }
    }
    return (method, path)
  }

  /// The responses the stub gives without running code: its fixed response, or each of its
  /// sequence. Empty for a closure or a proxy.
  package var declaredResponses: [Response] {
    switch responder.kind {
    case .fixed(let response): [response]
    case .sequence(let responses, _): responses
    case .handler, .proxy: []
    }
  }
}
