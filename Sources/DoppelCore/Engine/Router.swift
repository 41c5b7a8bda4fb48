@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Finds the stub that answers a request.
///
/// Stubs whose matcher requires a literal path are kept in a dictionary by path; those with a
/// literal host (and no literal path) by host; the rest in a list that is scanned. A request
/// looks only at its path's bucket, its host's bucket and the scanned list, walking the three
/// newest-first together, so precedence (the latest registration wins) holds across them and the
/// cost does not grow with the number of stubs on other paths.
final package class Router: Sendable {
  private struct State {
    var nextOrder = 0
    /// Orders for fallback stubs count up from far below every ordinary stub's, so each fallback
    /// stub loses to every ordinary one whenever it was added.
    var nextFallbackOrder = Int.min / 2
    /// Counts every stub added, ordinary or fallback, from 0: each stub's ``StubHandle/serial``.
    var nextSerial = 0
    var byPath: [String: Bucket] = [:]
    var byHost: [String: Bucket] = [:]
    var scanned: [StubHandle] = []
    /// Every live stub in registration order, for diagnostics.
    var all: [StubHandle] = []
    /// Counts replacements of every stub (``replaceAll(with:configure:)``, ``removeAll()``).
    var replacements = 0
  }

  /// The stubs under one key, oldest first. Most keys have one stub, kept without an array (one
  /// object fewer to read per request).
  private enum Bucket {
    case one(StubHandle)
    case many([StubHandle])

    var count: Int {
      switch self {
      case .one: 1
      case .many(let stubs): stubs.count
      }
    }

    @inline(__always)
    subscript(index: Int) -> StubHandle {
      switch self {
      case .one(let stub): stub
      case .many(let stubs): stubs[index]
      }
    }

    /// Adds `stub` in order. Called in place in its dictionary (see ``Router/add(_:to:key:)``), so
    /// that the array is not shared and grows in place.
    mutating func append(_ stub: StubHandle) {
      switch self {
      case .one(let first): self = first.order < stub.order ? .many([first, stub]) : .many([stub, first])
      case .many(var stubs):
        if stubs.isEmpty {
          self = .one(stub)
          return
        }
        self = .empty  // lets go of the array, so `stubs` is its only owner
        // Ordinary stubs always come last; a fallback stub goes before the first ordinary one.
        if let last = stubs.last, last.order < stub.order {
          stubs.append(stub)
        } else {
          let index = stubs.lastIndex { $0.order < stub.order }.map { $0 + 1 } ?? 0
          stubs.insert(stub, at: index)
        }
        self = .many(stubs)
      }
    }

    /// The bucket without `stub`, or `nil` when it held nothing else.
    func removing(_ stub: StubHandle) -> Bucket? {
      switch self {
      case .one(let only): return only === stub ? nil : self
      case .many(let stubs):
        let rest = stubs.filter { $0 !== stub }
        if rest.isEmpty { return nil }
        return rest.count == 1 ? .one(rest[0]) : .many(rest)
      }
    }

    static let empty = Bucket.many([])
  }

  private enum Slot {
    case path(String)
    case host(String)
    case scanned
  }

  private let state = Locked(State())
  /// The lock every stub of this router keeps its own state under (see `StubHandle`).
  private let stubLock = PlainLock()

  /// Adds a stub. A `fallback` stub answers only requests that no ordinary stub (added before or
  /// after it) takes; among fallback stubs, later ones win.
  func add(
    _ matcher: Matcher, _ responder: Responder, limit: Int?, name: String?, location: CodeLocation,
    fallback: Bool = false
  ) -> StubHandle {
    state.withLock { state in
      insert(
        Addition(
          matcher: matcher, responder: responder, limit: limit, name: name, location: location, fallback: fallback),
        into: &state)
    }
  }

  /// A stub for ``replaceAll(with:configure:)``.
  package struct Addition {
    let matcher: Matcher
    let responder: Responder
    let limit: Int?
    let name: String?
    let location: CodeLocation
    let fallback: Bool

    package init(
      matcher: Matcher, responder: Responder, limit: Int?, name: String?, location: CodeLocation, fallback: Bool
    ) {
      self.matcher = matcher
      self.responder = responder
      self.limit = limit
      self.name = name
      self.location = location
      self.fallback = fallback
    }
  }

  /// Replaces every stub with `additions` in one step: a request meets either the old stubs or
  /// the new ones, never a mix or none. `configure` sets each new stub up (its states and
  /// expectations) before any request can meet it. Returns the new handles in order; the old
  /// ones are marked removed.
  package func replaceAll(with additions: [Addition], configure: (Int, StubHandle) -> Void) -> [StubHandle] {
    let (old, handles) = state.withLock { state -> ([StubHandle], [StubHandle]) in
      var fresh = State(
        nextOrder: state.nextOrder, nextFallbackOrder: state.nextFallbackOrder, nextSerial: state.nextSerial,
        replacements: state.replacements + 1)
      var handles: [StubHandle] = []
      handles.reserveCapacity(additions.count)
      for (index, addition) in additions.enumerated() {
        let handle = insert(addition, into: &fresh)
        configure(index, handle)
        handles.append(handle)
      }
      let old = state.all
      state = fresh
      return (old, handles)
    }
    // Not through `remove()`: they are out of the router already.
    for handle in old { handle.markRemoved() }
    return handles
  }

  private func insert(_ addition: Addition, into state: inout State) -> StubHandle {
    let order: Int
    if addition.fallback {
      order = state.nextFallbackOrder
      state.nextFallbackOrder += 1
    } else {
      order = state.nextOrder
      state.nextOrder += 1
    }
    let serial = state.nextSerial
    state.nextSerial += 1
    let plan = addition.matcher.plan ?? Matcher.Plan(addition.matcher)
    let handle = StubHandle(
      matcher: addition.matcher, plan: plan, responder: addition.responder, limit: addition.limit,
      name: addition.name, location: addition.location, order: order, serial: serial, lock: stubLock,
      onRemove: { [weak self] in self?.remove($0) })
    switch Self.slot(for: plan) {
    case .path(let path): Self.add(handle, to: &state.byPath, key: path)
    case .host(let host): Self.add(handle, to: &state.byHost, key: host)
    case .scanned:
      if addition.fallback {
        let index = state.scanned.lastIndex { $0.order < order }.map { $0 + 1 } ?? 0
        state.scanned.insert(handle, at: index)
      } else {
        state.scanned.append(handle)
      }
    }
    state.all.append(handle)
    return handle
  }

  /// Files `stub` under `key`, with one lookup. The bucket grows in place, inside the dictionary,
  /// so that many stubs on one path (a long cassette) cost linear time, not quadratic.
  private static func add(_ stub: StubHandle, to buckets: inout [String: Bucket], key: String) {
    buckets[key, default: .empty].append(stub)
  }

  private func remove(_ handle: StubHandle) {
    state.withLock { state in
      switch Self.slot(for: handle.matcher.plan ?? Matcher.Plan(handle.matcher)) {
      case .path(let path): state.byPath[path] = state.byPath[path]?.removing(handle)
      case .host(let host): state.byHost[host] = state.byHost[host]?.removing(handle)
      case .scanned:
        state.scanned.removeAll { $0 === handle }
      }
      state.all.removeAll { $0 === handle }
    }
  }

  /// Removes every stub, marking each handle removed.
  func removeAll() {
    let removed = state.withLock { state -> [StubHandle] in
      defer {
        state = State(
          nextOrder: state.nextOrder, nextFallbackOrder: state.nextFallbackOrder, nextSerial: state.nextSerial,
          replacements: state.replacements + 1)
      }
      return state.all
    }
    for handle in removed { handle.remove() }
  }

  /// Every live stub, oldest first.
  var stubs: [StubHandle] { state.withLock { $0.all } }

  /// Changes whenever a stub is added or removed, so a front door can cache what it derives from
  /// the stubs (the stub server's origins).
  var revision: Int {
    state.withLock { ($0.nextOrder &+ ($0.nextFallbackOrder &- Int.min / 2)) << 32 | $0.all.count }
  }

  /// The newest stub that matches and still has answers left, with the answer taken from it and the
  /// path captures. With `claiming` false the answer is only looked at (see
  /// ``StubHandle/peek(machine:)``): the stub's call count and the backend's state stay as they are.
  func resolve(
    _ request: Request, machine: Locked<StateMachines>, claiming: Bool = true
  ) -> (stub: StubHandle, claim: StubHandle.Claim, captures: [String: String])? {
    // Every stub replaced while this request looked (a reload): the stubs it read are removed
    // now, so it looks again among the new ones rather than go unmatched.
    for _ in 0..<8 {
      let (found, seen) = resolveOnce(request, machine: machine, claiming: claiming)
      if found != nil { return found }
      if state.withLock({ $0.replacements }) == seen { return nil }
    }
    return nil
  }

  private func resolveOnce(
    _ request: Request, machine: Locked<StateMachines>, claiming: Bool
  ) -> (found: (stub: StubHandle, claim: StubHandle.Claim, captures: [String: String])?, replacements: Int) {
    // Copying the buckets out is a retain each; matching runs outside the lock so user closures can
    // call back into the backend.
    let (byPath, byHost, scanned, replacements) = state.withLock { state in
      (
        state.byPath.isEmpty ? Bucket.empty : state.byPath[request.path] ?? Bucket.empty,
        state.byHost.isEmpty ? Bucket.empty : state.byHost[request.host] ?? Bucket.empty,
        state.scanned, state.replacements
      )
    }
    var path = byPath.count - 1
    var host = byHost.count - 1
    var scan = scanned.count - 1
    while true {
      // Int.min marks an exhausted list (fallback stubs have negative orders).
      let pathOrder = path >= 0 ? byPath[path].order : Int.min
      let hostOrder = host >= 0 ? byHost[host].order : Int.min
      let scanOrder = scan >= 0 ? scanned[scan].order : Int.min
      let candidate: StubHandle
      if pathOrder >= hostOrder && pathOrder >= scanOrder && pathOrder > Int.min {
        candidate = byPath[path]
        path -= 1
      } else if hostOrder >= scanOrder && hostOrder > Int.min {
        candidate = byHost[host]
        host -= 1
      } else if scanOrder > Int.min {
        candidate = scanned[scan]
        scan -= 1
      } else {
        return (nil, replacements)
      }
      if let captures = candidate.evaluate(request),
        let claim = claiming ? candidate.claim(machine: machine) : candidate.peek(machine: machine)
      {
        return ((candidate, claim, captures), replacements)
      }
    }
  }

  private static func slot(for plan: Matcher.Plan) -> Slot {
    if let path = plan.path { return .path(path) }
    return plan.host.map(Slot.host) ?? .scanned
  }
}
