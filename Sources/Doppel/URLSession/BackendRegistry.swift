import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Maps route numbers to backends, so that a `URLProtocol` class (which cannot hold a reference)
/// finds its backend and the configuration of the session it serves.
///
/// A backend's own number is a route with no configuration; each configuration it vends
/// (``Backend/configuration(basedOn:)``) is a route of its own, so the front door can read that
/// session's timeouts and cookie storage. Backends are held weakly: a backend that is gone is
/// reported clearly instead of kept alive by its sessions.
///
/// Numbers are reused, because each number used by a session costs a `URLProtocol` class that
/// Swift never frees (about 1 KB): a suite of 100,000 tests would otherwise keep 100 MB it does
/// not need. Reuse must never let a session of a backend that is gone reach a new backend, so a
/// number is reused only when nothing can still send requests through it:
/// - a backend's own number has no class, and is free as soon as the backend is gone;
/// - a route whose sessions Doppel made itself (``Backend/session``, ``Backend/makeSession(configuration:delegate:delegateQueue:)``)
///   is free once its backend and that session are both gone;
/// - a route whose configuration was handed out (``Backend/configuration(basedOn:)``) is never
///   reused: any number of sessions may be made from it, at any time; nor is the number of a
///   backend that intercepted process-wide, whose class copies of the shared configuration hold.
final class BackendRegistry: Sendable {
  static let shared = BackendRegistry()

  struct Route: Sendable {
    var backend: WeakBox<Backend>
    var owner: UInt32
    var configuration: UncheckedSendable<URLSessionConfiguration>?
  }

  /// What keeps a route's number from being reused.
  private enum Users {
    /// Sessions Doppel made itself, held weakly; the route is free when they are gone.
    case sessions([WeakBox<URLSession>])
    /// A configuration that was handed out: the number is never reused.
    case escaped
  }

  private struct State {
    var next: UInt32 = 1
    var free: [UInt32] = []
    var routes: [UInt32: Route] = [:]
    /// The route numbers each backend owns (its own number excluded), and who uses each.
    var owned: [UInt32: [UInt32: Users]] = [:]
    /// Routes of backends that are gone, waiting for their sessions to go too.
    var draining: [UInt32: [WeakBox<URLSession>]] = [:]
    /// Backend numbers that were turned into a class some session may still hold (a backend that
    /// intercepted process-wide): never reused.
    var kept: Set<UInt32> = []

    mutating func take() -> UInt32 {
      if let number = free.popLast() { return number }
      defer { next &+= 1 }
      return next
    }

    mutating func sweep() {
      for (number, sessions) in draining where sessions.allSatisfy({ $0.object == nil }) {
        draining[number] = nil
        free.append(number)
      }
    }
  }

  private let state = Locked(State())

  /// A number for a backend being made.
  func reserve() -> UInt32 {
    state.withLock { $0.take() }
  }

  /// Registers the backend under its own number.
  func attach(_ backend: Backend) {
    state.withLock { $0.routes[backend.id] = Route(backend: WeakBox(object: backend), owner: backend.id) }
  }

  /// A new route to `backend` for sessions made from `configuration`. Unless `tracked`, the
  /// configuration is handed out and the route's number is never reused; when `tracked`, the
  /// caller makes the session itself and passes it to ``track(_:route:owner:)``.
  func addRoute(to backend: Backend, configuration: URLSessionConfiguration, tracked: Bool = false) -> UInt32 {
    state.withLock { state in
      let id = state.take()
      state.routes[id] = Route(
        backend: WeakBox(object: backend), owner: backend.id, configuration: UncheckedSendable(configuration))
      state.owned[backend.id, default: [:]][id] = tracked ? .sessions([]) : .escaped
      return id
    }
  }

  /// Notes that `session`, made by Doppel, sends its requests through `route`.
  func track(_ session: URLSession, route: UInt32, owner: UInt32) {
    state.withLock { state in
      guard case .sessions(let sessions) = state.owned[owner]?[route] else { return }
      state.owned[owner]?[route] = .sessions(sessions + [WeakBox(object: session)])
    }
  }

  /// Keeps backend `id`'s own number from ever being reused: a class was made for it that sessions
  /// Doppel cannot track may hold (copies of `URLSession.shared`'s configuration while the backend
  /// intercepted process-wide).
  func keepNumber(_ id: UInt32) {
    state.withLock { _ = $0.kept.insert(id) }
  }

  /// Forgets a backend and all its routes; frees the numbers nothing can use any more.
  func unregister(_ id: UInt32) {
    state.withLock { state in
      state.routes[id] = nil
      if state.kept.remove(id) == nil { state.free.append(id) }
      for (route, users) in state.owned.removeValue(forKey: id) ?? [:] {
        state.routes[route] = nil
        if case .sessions(let sessions) = users { state.draining[route] = sessions }
      }
      state.sweep()
    }
  }

  func route(_ id: UInt32) -> Route? {
    state.withLock { $0.routes[id] }
  }

  func backend(_ id: UInt32) -> Backend? { route(id)?.backend.object }

  /// How many numbers were ever handed out, for tests: reuse keeps it flat.
  var highestNumber: UInt32 { state.withLock { $0.next &- 1 } }
}
