@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Backend {
  /// A `URLSession` whose every request is answered by this backend. The same session every time.
  ///
  /// Its configuration is ``configuration`` (an ephemeral one), except that on Linux it has no URL
  /// cache (`urlCache` is `nil`): stubbed answers are never cached, and a cache costs a lookup on
  /// every request. Hand it to the code under test in place of `URLSession.shared`.
  public var session: URLSession {
    cachedSession {
      let platform = Platform.current
      if platform.reusesSessionStorages {
        return makeSession(configuration: BackendRegistry.shared.sessionBase(), recycles: true)
      }
      return makeSession()
    }
  }

  /// A new ephemeral configuration routed to this backend (see ``configuration(basedOn:)``).
  public var configuration: URLSessionConfiguration { configuration(basedOn: .ephemeral) }

  /// A copy of `base` (keeping its other settings: headers, timeouts, cookie storage…) whose
  /// requests are all answered by this backend.
  ///
  /// The backend's own `URLProtocol` class is put first in `protocolClasses`. It accepts every
  /// request, so none reaches the network; requests no stub matches follow ``unmatchedPolicy``.
  /// Each backend has a distinct class, which is how requests from its sessions find it and only
  /// it, even when many backends stub the same URLs in parallel.
  public func configuration(basedOn base: URLSessionConfiguration) -> URLSessionConfiguration {
    routedConfiguration(basedOn: base, tracked: false).configuration
  }

  /// A routed copy of `base`, and its route. A `tracked` route is for a session Doppel makes
  /// itself, whose number can be reused once the backend and the session are gone.
  /// When `recycles`, `base` is a configuration made for this session alone (by
  /// ``BackendRegistry/sessionBase()``) and is used as it is, not copied.
  private func routedConfiguration(
    basedOn base: URLSessionConfiguration, tracked: Bool, recycles: Bool = false
  ) -> (configuration: URLSessionConfiguration, route: UInt32) {
    let configuration = recycles ? base : (base.copy() as? URLSessionConfiguration) ?? .ephemeral
    let others = (base.protocolClasses ?? []).filter { !($0 is DoppelURLProtocol.Type) }
    let route = BackendRegistry.shared.addRoute(
      to: self, configuration: configuration, tracked: tracked, recycles: recycles)
    configuration.protocolClasses = [ScopedProtocolClass.make(for: route)] + others
    if Platform.current.guardsUnservedTasks, let proxy = UnservedTaskGuard.refusingProxy {
      configuration.connectionProxyDictionary = proxy
    }
    return (configuration, route)
  }

  /// A new session answered by this backend, with your configuration, delegate and queue.
  ///
  /// On Apple platforms the session's `delegate` is a Doppel object that forwards every delegate
  /// method to yours (`delegate`), and reports and cancels a WebSocket task as it is made, since
  /// URLSession never hands one to a `URLProtocol`. Compare your delegate with the one you passed,
  /// not with `session.delegate`.
  public func makeSession(
    configuration base: URLSessionConfiguration = .ephemeral,
    delegate: (any URLSessionDelegate)? = nil, delegateQueue: OperationQueue? = nil
  ) -> URLSession {
    let guarded =
      Platform.current.guardsUnservedTasks ? UnservedTaskGuard.delegate(for: self, forwardingTo: delegate) : delegate
    return makeSession(configuration: base, delegate: guarded, delegateQueue: delegateQueue, recycles: false)
  }

  /// A new session; when `recycles`, `base` came from ``BackendRegistry/sessionBase()`` and its cookie
  /// storage may serve another session once this one and the backend are gone.
  private func makeSession(
    configuration base: URLSessionConfiguration, delegate: (any URLSessionDelegate)? = nil,
    delegateQueue: OperationQueue? = nil, recycles: Bool
  ) -> URLSession {
    let (configuration, route) = routedConfiguration(basedOn: base, tracked: true, recycles: recycles)
    let session = Platform.current.makeSession(
      configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    BackendRegistry.shared.track(session, route: route, owner: id)
    return session
  }
}
