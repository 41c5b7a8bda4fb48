@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Which sessions process-wide interception covers (see ``Backend/interceptProcessWide(covering:)``).
public struct ProcessWideCoverage: Sendable, Hashable, CustomStringConvertible {
  private enum Kind: Sendable, Hashable {
    case shared
    case everySession
  }

  private let kind: Kind

  /// `URLSession.shared` (and sessions made from a copy of its configuration while the backend
  /// intercepts): what ``Backend/interceptProcessWide()`` covers.
  public static let shared = ProcessWideCoverage(kind: .shared)

  /// `URLSession.shared`, and also every session made from a `URLSessionConfiguration.default` or
  /// `.ephemeral` taken while the backend intercepts, by any code, as a third-party SDK makes its
  /// own. On Apple platforms those configurations list Doppel's class first (the class getters
  /// are swizzled); on Linux, where no class can come before FoundationNetworking's own, their
  /// plain HTTP requests are answered through the loopback network guard and HTTPS ones are
  /// stopped and reported. Background configurations are reported: they run no custom protocol.
  public static let everySession = ProcessWideCoverage(kind: .everySession)

  /// Whether sessions made from `.default` and `.ephemeral` are covered too.
  var coversEverySession: Bool { kind == .everySession }

  /// `shared` or `everySession`.
  public var description: String { coversEverySession ? "everySession" : "shared" }
}

/// The class every configuration made from `.default` or `.ephemeral` lists first while a backend
/// intercepts ``ProcessWideCoverage/everySession`` (on Apple platforms, through the swizzled
/// getters of ``ConfigurationGetters``).
///
/// One class for all backends, unlike ``InterceptingURLProtocol``: a session an SDK made once (a
/// singleton, say) and keeps for the whole test run is answered by whichever backend intercepts
/// every session when a request is made, and by the network when none does (`canInit` is false,
/// so the session's next class, the built-in HTTP handler, takes the request). It is a
/// ``DoppelURLProtocol``, so a backend's own configurations (``Backend/configuration(basedOn:)``),
/// made from `.ephemeral` too, drop it and put their own class first: it never reaches a session of
/// another backend.
final class EverySessionURLProtocol: DoppelURLProtocol {
  override class var routeID: UInt32 { EverySession.routedBackend ?? 0 }

  override class func canInit(with request: URLRequest) -> Bool { EverySession.routedBackend != nil }
}

/// The decisions behind ``ProcessWideCoverage/everySession``, in plain Swift so that Linux tests
/// them: which configurations get ``EverySessionURLProtocol``, how it is put into and taken out of
/// a list of protocol classes, and what is reported for a background configuration. The
/// Objective-C glue that calls them on Apple platforms is ``ConfigurationGetters``.
enum EverySession {
  /// How a configuration handed to the code under test was made.
  enum Origin: Sendable, Equatable {
    /// `URLSessionConfiguration.default`.
    case `default`
    /// `URLSessionConfiguration.ephemeral`.
    case ephemeral
    /// `URLSessionConfiguration.background(withIdentifier:)`.
    case background(identifier: String)
  }

  /// What to do with a configuration just made.
  enum Decision: Sendable, Equatable {
    /// Hand it out as it is: no backend intercepts every session.
    case leave
    /// Put ``EverySessionURLProtocol`` first in its `protocolClasses`.
    case prepend
    /// Hand it out as it is, and report `message` through the intercepting backend.
    case report(String)
  }

  /// The backend that intercepts every session now, if one does.
  static var routedBackend: UInt32? { routing.withLock { $0 } }

  /// What ``routedBackend`` reads, set by process-wide interception while it holds
  /// ``ProcessWide/state`` (so the two always agree). A lock of its own, held only to read or write
  /// the number: a swizzled getter may run inside any call into Foundation, including one Doppel
  /// makes while it holds ``ProcessWide/state`` (`URLProtocol.registerClass`), so the getters never
  /// take that lock.
  static let routing = Locked<UInt32?>(nil)

  /// What to do with a configuration of `origin` made while backend `backend` (0: none) intercepts
  /// with `coverage`.
  static func decision(for origin: Origin, backend: UInt32, coverage: ProcessWideCoverage) -> Decision {
    guard backend != 0, coverage.coversEverySession else { return .leave }
    switch origin {
    case .default, .ephemeral: return .prepend
    case .background(let identifier): return .report(backgroundMessage(identifier: identifier))
    }
  }

  /// `classes` with ``EverySessionURLProtocol`` first, and only once.
  static func prepending(to classes: [AnyClass]?) -> [AnyClass] {
    [EverySessionURLProtocol.self] + removing(from: classes)
  }

  /// `classes` without ``EverySessionURLProtocol``.
  static func removing(from classes: [AnyClass]?) -> [AnyClass] {
    (classes ?? []).filter { ObjectIdentifier($0) != ObjectIdentifier(EverySessionURLProtocol.self) }
  }

  /// Applies the decision for a configuration of `origin` just made: what the swizzled getters do
  /// with each configuration they return. Returns the configuration.
  @discardableResult
  static func adjust(_ configuration: URLSessionConfiguration, madeAs origin: Origin) -> URLSessionConfiguration {
    let backend = routing.withLock { $0 }
    switch decision(for: origin, backend: backend ?? 0, coverage: backend == nil ? .shared : .everySession) {
    case .leave:
      break
    case .prepend:
      configuration.protocolClasses = prepending(to: configuration.protocolClasses)
    case .report(let message):
      let reporter = backend.flatMap { BackendRegistry.shared.backend($0) }?.issueReporter ?? .standardError
      reporter.report(DoppelIssue(message))
    }
    return configuration
  }

  /// What is reported when code makes a background configuration while a backend intercepts
  /// every session.
  static func backgroundMessage(identifier: String) -> String {
    "URLSessionConfiguration.background(withIdentifier: \"\(identifier)\") was made while a backend intercepts every session, but a background session's transfers run in a system process that never consults a URLProtocol, so Doppel cannot answer them and they reach the network. In tests, give that client backend.configuration(basedOn: .default) instead of a background configuration, or point it at a stub server (withStubServer)."
  }
}
