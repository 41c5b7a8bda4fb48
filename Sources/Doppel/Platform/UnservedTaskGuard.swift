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
///   (`makeSession(delegate:)`) cannot also have this one, and relies on the proxy below.
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
