import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Backend {
  /// A `URLSession` whose every request is answered by this backend. The same session every time.
  ///
  /// Its configuration is ``configuration``. Hand it to the code under test in place of
  /// `URLSession.shared`.
  public var session: URLSession {
    cachedSession { makeSession() }
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
    let configuration = (base.copy() as? URLSessionConfiguration) ?? .ephemeral
    let others = (base.protocolClasses ?? []).filter { !($0 is DoppelURLProtocol.Type) }
    let route = BackendRegistry.shared.addRoute(to: self, configuration: configuration)
    configuration.protocolClasses = [ScopedProtocolClass.make(for: route)] + others
    return configuration
  }

  /// A new session answered by this backend, with your configuration, delegate and queue.
  public func makeSession(
    configuration base: URLSessionConfiguration = .ephemeral,
    delegate: (any URLSessionDelegate)? = nil, delegateQueue: OperationQueue? = nil
  ) -> URLSession {
    #if canImport(FoundationNetworking)
      // Routes the task types a URLProtocol cannot serve on Linux through ones it can.
      DoppelSession(configuration: configuration(basedOn: base), delegate: delegate, delegateQueue: delegateQueue)
    #else
      URLSession(configuration: configuration(basedOn: base), delegate: delegate, delegateQueue: delegateQueue)
    #endif
  }
}
