@_spi(DoppelInternals) import DoppelToolkit
import Foundation

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
package final class BackendRegistry: Sendable {
  package static let shared = BackendRegistry()

  struct Route: Sendable {
    var backend: WeakBox<Backend>
    var owner: UInt32
    var configuration: UncheckedSendable<URLSessionConfiguration>?
    /// Whose URLSession contract the protocol follows: the running platform's, except in tests
    /// that drive the other side's delivery on Linux.
    var platform = Platform.current
  }

  /// What keeps a route's number from being reused.
  private enum Users {
    /// Sessions Doppel made itself, held weakly; the route is free when they are gone. When
    /// `recycles`, the route's configuration came from ``sessionBase()`` and its cookie storage
    /// goes back to the spares once nothing else holds it.
    case sessions([WeakBox<URLSession>], recycles: Bool)
    /// A configuration that was handed out: the number is never reused.
    case escaped
  }

  private struct State {
    var next: UInt32 = 1
    var free: [UInt32] = []
    var routes: [UInt32: Route] = [:]
    /// The route numbers each backend owns (its own number excluded), and who uses each.
    var owned: [UInt32: [UInt32: Users]] = [:]
    /// Routes of backends that are gone, waiting for their sessions to go too, with the
    /// configuration whose cookie storage is to be recycled then.
    var draining: [UInt32: (sessions: [WeakBox<URLSession>], recycled: UncheckedSendable<URLSessionConfiguration>?)] =
      [:]
    /// Emptied cookie storages of sessions that are gone, for new sessions (see ``sessionBase()``).
    var spareCookies: [UncheckedSendable<HTTPCookieStorage>] = []
    /// Backend numbers that were turned into a class some session may still hold (a backend that
    /// intercepted process-wide): never reused.
    var kept: Set<UInt32> = []

    mutating func take() -> UInt32 {
      if let number = free.popLast() { return number }
      defer { next &+= 1 }
      return next
    }

    /// Frees the numbers of draining routes whose sessions are gone, and hands back the
    /// configurations whose cookie storages may be recycled, to be looked at outside the lock.
    mutating func sweep() -> [UncheckedSendable<URLSessionConfiguration>] {
      let gone = draining.compactMap { number, route in
        route.sessions.allSatisfy { $0.object == nil } ? number : nil
      }
      var recycled: [UncheckedSendable<URLSessionConfiguration>] = []
      for number in gone {
        free.append(number)
        if let configuration = draining.removeValue(forKey: number)?.recycled { recycled.append(configuration) }
      }
      return recycled
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
  func addRoute(
    to backend: Backend, configuration: URLSessionConfiguration, tracked: Bool = false, recycles: Bool = false,
    platform: Platform = .current
  ) -> UInt32 {
    state.withLock { state in
      let id = state.take()
      state.routes[id] = Route(
        backend: WeakBox(object: backend), owner: backend.id, configuration: UncheckedSendable(configuration),
        platform: platform)
      state.owned[backend.id, default: [:]][id] = tracked ? .sessions([], recycles: recycles) : .escaped
      return id
    }
  }

  /// Notes that `session`, made by Doppel, sends its requests through `route`.
  func track(_ session: URLSession, route: UInt32, owner: UInt32) {
    state.withLock { state in
      guard case .sessions(let sessions, let recycles) = state.owned[owner]?[route] else { return }
      state.owned[owner]?[route] = .sessions(sessions + [WeakBox(object: session)], recycles: recycles)
    }
  }

  /// Keeps backend `id`'s own number from ever being reused: a class was made for it that sessions
  /// Doppel cannot track may hold (copies of `URLSession.shared`'s configuration while the backend
  /// intercepted process-wide).
  func keepNumber(_ id: UInt32) {
    state.withLock { _ = $0.kept.insert(id) }
  }

  /// Forgets a backend and all its routes; frees the numbers nothing can use any more.
  ///
  /// Only bookkeeping happens under the lock, which every request's `startLoading` takes too:
  /// emptying the cookie storages of sessions that are gone (each a `sync` onto the storage's
  /// queue) and releasing their configurations happen after it.
  func unregister(_ id: UInt32) {
    var recycled = state.withLock { state in
      state.routes[id] = nil
      if state.kept.remove(id) == nil { state.free.append(id) }
      for (route, users) in state.owned.removeValue(forKey: id) ?? [:] {
        let configuration = state.routes.removeValue(forKey: route)?.configuration
        if case .sessions(let sessions, let recycles) = users {
          state.draining[route] = (sessions, recycles ? configuration : nil)
        }
      }
      return state.sweep()
    }
    var spares: [UncheckedSendable<HTTPCookieStorage>] = []
    while !recycled.isEmpty {
      // Taking the storage out drops the configuration: the storage is then held only here, or
      // also by someone else, and then it is not reused.
      guard var storage = Self.cookieStorage(of: recycled.removeLast()),
        isKnownUniquelyReferenced(&storage), Self.empty(storage)
      else { continue }
      spares.append(UncheckedSendable(storage))
    }
    guard !spares.isEmpty else { return }
    state.withLock { state in
      let room = max(0, Self.maximumSpareCookieStorages - state.spareCookies.count)
      state.spareCookies += spares.prefix(room)
    }
  }

  private static func cookieStorage(of configuration: UncheckedSendable<URLSessionConfiguration>) -> HTTPCookieStorage?
  {
    configuration.value.httpCookieStorage
  }

  func route(_ id: UInt32) -> Route? {
    state.withLock { $0.routes[id] }
  }

  func backend(_ id: UInt32) -> Backend? { route(id)?.backend.object }

  /// A configuration for a session Doppel makes for ``Backend/session``: ephemeral (its own cookie
  /// and credential storage, nothing on disk) and without a URL cache, since stubbed answers are
  /// never cached.
  ///
  /// Making `URLSessionConfiguration.ephemeral` costs about 80 µs on Linux (its URL cache looks up
  /// the cache directory), more than the rest of a small test, and a cache is looked up on every
  /// request. So the base is a copy of one prototype with a new credential storage and a cookie
  /// storage that is either new or a spare: the emptied storage of a session made here that is gone,
  /// and that nothing else holds any more (checked with `isKnownUniquelyReferenced`), so no cookie
  /// of one backend can reach another.
  func sessionBase() -> URLSessionConfiguration {
    let spare = state.withLock { $0.spareCookies.popLast() }
    guard let spare, let configuration = Self.prototype.value.copy() as? URLSessionConfiguration else {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.urlCache = nil
      return configuration
    }
    spare.value.cookieAcceptPolicy = Self.prototype.value.httpCookieStorage?.cookieAcceptPolicy ?? .always
    configuration.httpCookieStorage = spare.value
    configuration.urlCredentialStorage = URLCredentialStorage()
    return configuration
  }

  /// What ``sessionBase()`` copies; its own storages are never used.
  private static let prototype: UncheckedSendable<URLSessionConfiguration> = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    return UncheckedSendable(configuration)
  }()

  /// Spare cookie storages kept at most: a suite runs a few tests at a time.
  static let maximumSpareCookieStorages = 64

  /// Empties `storage`; whether it is empty now.
  private static func empty(_ storage: HTTPCookieStorage) -> Bool {
    storage.removeCookies(since: .distantPast)
    return storage.cookies?.isEmpty ?? true
  }

  /// How many spare cookie storages wait for a session, for tests.
  var spareCookieStorages: Int { state.withLock { $0.spareCookies.count } }

  /// How many numbers were ever handed out: reuse keeps it flat (the benchmarks' memory check
  /// fails when it is not).
  package var highestNumber: UInt32 { state.withLock { $0.next &- 1 } }
}
