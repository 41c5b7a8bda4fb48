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
public final class StubHandle: Sendable, CustomStringConvertible {
  /// The matcher.
  public let matcher: Matcher
  let responder: Responder
  /// The most requests this stub answers, or `nil` for no limit. Once used up, requests go on to
  /// earlier stubs as if this one were not there.
  public let limit: Int?
  /// The name given at registration, if any.
  public let name: String?
  /// Where the stub was declared.
  public let location: CodeLocation
  /// Registration order; later stubs take precedence.
  let order: Int
  /// `matcher` as flat lists, when it is a conjunction of conditions: its literal comparisons
  /// (stored inline, compared first) and its other conditions. `nil` when it has `||` or `!`.
  private let flat: (literals: ContiguousArray<Condition.Literal>, others: ContiguousArray<Condition>)?
  private let state = Locked(State())
  private let onRemove: @Sendable (StubHandle) -> Void

  private struct State {
    var calls = 0
    var removed = false
    var expected: ClosedRange<Int>?
    var requiredState: String?
    var nextState: String?
  }

  init(
    matcher: Matcher, responder: Responder, limit: Int?, name: String?, location: CodeLocation,
    order: Int, onRemove: @escaping @Sendable (StubHandle) -> Void
  ) {
    self.matcher = matcher
    self.flat = matcher.conjunction.map { conditions in
      (ContiguousArray(conditions.compactMap(\.literal)), ContiguousArray(conditions.filter { $0.literal == nil }))
    }
    self.responder = responder
    self.limit = limit
    self.name = name
    self.location = location
    self.order = order
    self.onRemove = onRemove
  }

  /// How many requests this stub has answered.
  public var callCount: Int { state.withLock { $0.calls } }

  /// Whether the stub answers no more requests: removed, or its `times` limit used up.
  public var isExhausted: Bool {
    state.withLock { state in
      if state.removed { return true }
      guard let limit else { return false }
      return state.calls >= limit
    }
  }

  /// How many calls ``Backend/verify()`` requires of this stub, if it was given an expectation with
  /// ``expect(times:)`` or ``expect(atLeast:)``.
  public var expectedCalls: ClosedRange<Int>? { state.withLock { $0.expected } }

  /// Requires the stub to answer exactly `times` requests by the time the backend is verified (at
  /// the end of a test, with `DoppelTesting`).
  ///
  /// ```swift
  /// backend.stub(.post("/orders"), .status(201)).expect(times: 1)
  /// ```
  @discardableResult
  public func expect(times: Int) -> StubHandle {
    state.withLock { $0.expected = max(0, times)...max(0, times) }
    return self
  }

  /// Requires the stub to answer at least `count` requests by the time the backend is verified.
  @discardableResult
  public func expect(atLeast count: Int) -> StubHandle {
    state.withLock { $0.expected = max(0, count)...Int.max }
    return self
  }

  /// Makes the stub answer only while the backend's ``Backend/scenarioState`` is `state`; in other
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
    self.state.withLock { $0.requiredState = state }
    return self
  }

  /// Moves the backend's ``Backend/scenarioState`` to `state` each time this stub answers. The
  /// check of ``requiresState(_:)`` and the move happen together, so concurrent requests see a
  /// consistent state.
  @discardableResult
  public func setsState(_ state: String) -> StubHandle {
    self.state.withLock { $0.nextState = state }
    return self
  }

  /// The state this stub requires, if any.
  public var requiredState: String? { state.withLock { $0.requiredState } }

  /// The state this stub moves the backend to, if any.
  public var nextState: String? { state.withLock { $0.nextState } }

  /// Whether ``remove()`` was called.
  public var isRemoved: Bool { state.withLock { $0.removed } }

  /// Removes the stub from its backend; later requests no longer see it. Calling it again does nothing.
  public func remove() {
    let first = state.withLock { state -> Bool in
      defer { state.removed = true }
      return !state.removed
    }
    if first { onRemove(self) }
  }

  /// The matcher's verdict on `request`: its path captures, or `nil` when it does not match.
  func evaluate(_ request: Request) -> [String: String]? {
    guard let flat else { return matcher.evaluate(request) }
    for literal in flat.literals where !literal.passes(request) { return nil }
    var captures: [String: String] = [:]
    for condition in flat.others {
      guard let found = condition.test(request) else { return nil }
      if !found.isEmpty { captures.merge(found) { _, new in new } }
    }
    return captures
  }

  /// Takes one answer, checking and moving the backend's state together when the stub is
  /// stateful: the call index (from 0), or `nil`.
  func claim(machine: Locked<String>) -> Int? {
    // One lock for the common stub that takes part in no scenario state.
    enum Outcome {
      case claimed(Int?)
      case needsState(required: String?, next: String?)
    }
    let outcome = state.withLock { state -> Outcome in
      guard state.requiredState == nil && state.nextState == nil else {
        return .needsState(required: state.requiredState, next: state.nextState)
      }
      if state.removed { return .claimed(nil) }
      if let limit, state.calls >= limit { return .claimed(nil) }
      state.calls += 1
      return .claimed(state.calls - 1)
    }
    guard case .needsState(let required, let next) = outcome else {
      if case .claimed(let call) = outcome { return call }
      return nil
    }
    return machine.withLock { current -> Int? in
      if let required, current != required { return nil }
      guard let call = claim() else { return nil }
      if let next { current = next }
      return call
    }
  }

  /// Takes one answer: the call index (from 0), or `nil` when removed or used up.
  func claim() -> Int? {
    state.withLock { state in
      if state.removed { return nil }
      if let limit, state.calls >= limit { return nil }
      state.calls += 1
      return state.calls - 1
    }
  }

  /// `BreedTests.swift:14  GET /breeds.json`, with the name when there is one.
  public var description: String {
    "\(location)  \(name.map { "\"\($0)\" " } ?? "")\(matcher)"
  }
}
