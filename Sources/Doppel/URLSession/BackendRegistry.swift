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
final class BackendRegistry: Sendable {
  static let shared = BackendRegistry()

  struct Route: Sendable {
    var backend: WeakBox<Backend>
    var owner: UInt32
    var configuration: UncheckedSendable<URLSessionConfiguration>?
  }

  private struct State {
    var next: UInt32 = 1
    var routes: [UInt32: Route] = [:]
  }

  private let state = Locked(State())

  /// A new number for a backend being made.
  func reserve() -> UInt32 {
    state.withLock { state in
      defer { state.next &+= 1 }
      return state.next
    }
  }

  /// Registers the backend under its own number.
  func attach(_ backend: Backend) {
    state.withLock { $0.routes[backend.id] = Route(backend: WeakBox(object: backend), owner: backend.id) }
  }

  /// A new route to `backend` for sessions made from `configuration`.
  func addRoute(to backend: Backend, configuration: URLSessionConfiguration) -> UInt32 {
    state.withLock { state in
      let id = state.next
      state.next &+= 1
      state.routes[id] = Route(
        backend: WeakBox(object: backend), owner: backend.id, configuration: UncheckedSendable(configuration))
      return id
    }
  }

  /// Forgets a backend and all its routes.
  func unregister(_ id: UInt32) {
    state.withLock { state in
      state.routes = state.routes.filter { $0.value.owner != id }
    }
  }

  func route(_ id: UInt32) -> Route? {
    state.withLock { $0.routes[id] }
  }

  func backend(_ id: UInt32) -> Backend? { route(id)?.backend.object }
}
