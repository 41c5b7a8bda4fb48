@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Keeps the tasks a backend's session cannot hand to its `URLProtocol` from reaching the network
/// on Apple platforms, where no `URLSession` subclass can route them (Apple's `URLSession`
/// initializers are class factories a subclass cannot call) and a WebSocket task never consults
/// the session's protocol classes:
///
/// - ``backend.session`` gets this object as its delegate, which is told of every task as it is
///   made (`urlSession(_:didCreateTask:)`, macOS 13, iOS 16): a WebSocket task is reported through
///   the backend's issue reporter, with what to use instead, and cancelled before it starts, so its
///   caller gets `URLError(.cancelled)` at once. A session made with your own delegate
///   (`makeSession(delegate:)`) gets a ``ForwardingTaskGuard``: this guard first, then every
///   delegate method forwarded to yours.
/// - Every configuration a backend routes names a proxy on a loopback port this process holds
///   bound and never listens on (``refusingProxy``): whatever CFNetwork would send without the
///   protocol is refused on loopback, never sent to the internet. FoundationNetworking ignores
///   `connectionProxyDictionary` (Linux has ``DoppelSession`` and the network guard instead).
///
/// Only a Mac run can show which errors CFNetwork reports for the refused proxy; the tests on
/// Linux drive the delegate with real task objects.
final class UnservedTaskGuard: NSObject, URLSessionTaskDelegate, Sendable {
  private let backend: WeakBox<Backend>

  init(backend: Backend) { self.backend = WeakBox(object: backend) }

  /// The delegate for a backend's session on Apple platforms: this guard alone, or with
  /// `delegate` given, a ``ForwardingTaskGuard`` in front of it. Where there is no Objective-C
  /// runtime to forward messages (Linux, whose sessions need no guard), `delegate` itself.
  static func delegate(for backend: Backend, forwardingTo delegate: (any URLSessionDelegate)?)
    -> any URLSessionDelegate
  {
    let guarding = UnservedTaskGuard(backend: backend)
    guard let delegate else { return guarding }
    #if canImport(ObjectiveC)
      return ForwardingTaskGuard(guarding: guarding, forwardingTo: delegate)
    #else
      return delegate
    #endif
  }

  func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
    guard task is URLSessionWebSocketTask else { return }
    let url = task.originalRequest?.url
    backend.object?.issueReporter.report(DoppelIssue(DoppelURLProtocol.webSocketProblem(for: url)))
    task.cancel()
  }

  /// A proxy configuration whose every connection is refused on loopback, or `nil` when no port
  /// could be held.
  static var refusingProxy: [AnyHashable: Any]? {
    RefusingPort.port.map { port in
      [
        "HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": Int(port),
        "HTTPSEnable": 1, "HTTPSProxy": "127.0.0.1", "HTTPSPort": Int(port),
      ]
    }
  }
}

#if canImport(ObjectiveC)
  /// A session delegate that runs ``UnservedTaskGuard`` as each task is made, then hands every
  /// delegate message to the delegate the user gave `makeSession(delegate:)`, through the
  /// Objective-C runtime: it says it responds to what that delegate responds to, and forwards each
  /// message it does not implement itself (the pattern of RxCocoa's and others' delegate proxies).
  /// URLSession asks `responds(to:)` before each optional delegate method, so the user's
  /// delegate sees exactly the calls it would see alone, on the session's delegate queue.
  ///
  /// Only a Mac can run this (Linux has no Objective-C runtime, and its sessions need no guard).
  // @unchecked Sendable: both stored properties are constants set in init, and the user's
  // delegate is only messaged by URLSession, as it would be were it the session's delegate.
  final class ForwardingTaskGuard: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let guarding: UnservedTaskGuard
    /// Kept strongly, as URLSession keeps its delegate until it is invalidated.
    private let forwarded: any URLSessionDelegate

    init(guarding: UnservedTaskGuard, forwardingTo delegate: any URLSessionDelegate) {
      self.guarding = guarding
      self.forwarded = delegate
    }

    override func responds(to aSelector: Selector!) -> Bool {
      super.responds(to: aSelector) || forwarded.responds(to: aSelector)
    }

    override func forwardingTarget(for aSelector: Selector!) -> Any? {
      forwarded.responds(to: aSelector) ? forwarded : super.forwardingTarget(for: aSelector)
    }

    func urlSession(_ session: URLSession, didCreateTask task: URLSessionTask) {
      guarding.urlSession(session, didCreateTask: task)
      (forwarded as? any URLSessionTaskDelegate)?.urlSession?(session, didCreateTask: task)
    }
  }
#endif

/// A loopback TCP port this process holds bound for its whole life and never listens on, so every
/// connection to it is refused at once.
enum RefusingPort {
  static let port: UInt16? = reserve()

  private static func reserve() -> UInt16? {
    // Bound and never listened on, so connecting is refused.
    LoopbackSocket.make(listening: nil)?.port
  }
}

extension Platform {
  /// Whether sessions a backend makes carry ``UnservedTaskGuard``'s defences (its delegate on
  /// `backend.session`, its refusing proxy on every routed configuration): on Apple platforms,
  /// where nothing else stops a task URLSession does not hand to the protocol. On Linux,
  /// ``DoppelSession`` routes or reports those tasks, and a delegate would change how
  /// FoundationNetworking delivers to completion handlers.
  var guardsUnservedTasks: Bool { self == .apple }
}
