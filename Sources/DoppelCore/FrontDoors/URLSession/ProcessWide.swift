@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What the classes that serve `URLSession.shared` for a process-wide backend have in common.
class ProcessWideURLProtocol: DoppelURLProtocol {
  /// The class that serves `URLSession.shared` while backend `id` intercepts.
  static func make(for id: UInt32) -> ProcessWideURLProtocol.Type {
    func interceptor<Number: ScopeNumber>(_: Number.Type) -> ProcessWideURLProtocol.Type {
      InterceptingURLProtocol<Number>.self
    }
    let made = interceptor(ScopedProtocolClass.number(for: id))
    ScopedProtocolClass.note(made, number: id)
    return made
  }
}

/// Serves `URLSession.shared` for the backend whose number `Number` spells.
///
/// It accepts requests only while that backend intercepts; otherwise the session's next class (the
/// built-in HTTP handler) takes them. So a session made from a copy of the shared configuration
/// while that backend intercepted uses the network again once it stops, and never reaches a
/// backend that intercepts later.
final class InterceptingURLProtocol<Number: ScopeNumber>: ProcessWideURLProtocol {
  // Read from the table `make(for:)` fills: spelling the number out costs a conformance lookup per bit.
  override class var routeID: UInt32 { ScopedProtocolClass.number(of: self) ?? Number.number }

  override class func canInit(with request: URLRequest) -> Bool {
    let number = routeID
    return ProcessWide.state.withLock { $0.backend } == number
  }
}

enum ProcessWide {
  struct State {
    /// The intercepting backend's number; 0 when none intercepts.
    var backend: UInt32 = 0
    /// Which sessions it covers.
    var coverage = ProcessWideCoverage.shared
  }

  static let state = Locked(State())
  static let gate = Gate()

  /// Lets one process-wide backend in at a time.
  actor Gate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
      if !busy {
        busy = true
        return
      }
      await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
      if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
  }

  static let busyMessage =
    "Another Backend already intercepts process-wide. Call stopInterceptingProcessWide() on it first, or use Backend.withProcessWideBackend { … }, which waits its turn."

  /// Puts the class for backend `id` where `URLSession.shared` consults it first.
  ///
  /// Linux (swift-corelibs-foundation): a task picks the first class of
  /// `session.configuration.protocolClasses` whose `canInit` accepts the request, reading that list
  /// each time a task is made, and `URLSession.shared.configuration` is the session's own live
  /// object (not a copy). Prepending the class there therefore works whenever it is done, even after
  /// `URLSession.shared` and other sessions exist. `URLProtocol.registerClass` would not: it
  /// appends to a list that `URLSession.shared` copies once, after the built-in HTTP handler.
  ///
  /// Apple platforms: `configuration` returns a copy there; `URLProtocol.registerClass` is the
  /// documented way to reach the shared session, and the latest registered class is consulted first.
  static func install(for id: UInt32) {
    // Copies of the shared configuration made now hold this class for good: the number must never
    // route to another backend.
    BackendRegistry.shared.keepNumber(id)
    let interceptor = ProcessWideURLProtocol.make(for: id)
    if Platform.current.interceptsThroughSharedConfiguration {
      let configuration = URLSession.shared.configuration
      configuration.protocolClasses = [interceptor] + withoutOurClasses(configuration.protocolClasses)
      if !NetworkGuard.activate() {
        IssueReporter.standardError.report(DoppelIssue(NetworkGuard.unavailableMessage))
      }
    } else {
      _ = URLProtocol.registerClass(interceptor)
    }
  }

  /// Takes the class for backend `id` out again, leaving the rest as it is now.
  static func uninstall(for id: UInt32) {
    if Platform.current.interceptsThroughSharedConfiguration {
      let configuration = URLSession.shared.configuration
      let rest = withoutOurClasses(configuration.protocolClasses)
      // An empty list and nil mean the same to URLSession: only registered classes are consulted.
      configuration.protocolClasses = rest.isEmpty ? nil : rest
      NetworkGuard.deactivate()
    } else {
      URLProtocol.unregisterClass(ProcessWideURLProtocol.make(for: id))
    }
  }

  static func withoutOurClasses(_ classes: [AnyClass]?) -> [AnyClass] {
    (classes ?? []).filter { !($0 is ProcessWideURLProtocol.Type) }
  }
}

extension Backend {
  /// Routes every request of `URLSession.shared` to this backend, for code that uses the shared
  /// session and cannot be given one.
  ///
  /// Prefer injecting ``session`` (or ``configuration(basedOn:)`` for a client that makes its own
  /// sessions): it is isolated, and parallel tests cannot disturb each other. Use this for code
  /// that reaches for `URLSession.shared` itself. Only one backend intercepts at a time; in tests,
  /// ``withProcessWideBackend(issueReporter:_:)`` waits its turn and always stops.
  ///
  /// What is covered:
  /// - **Linux** (swift-corelibs-foundation, measured with the Swift 6.3 toolchain): every request
  ///   of `URLSession.shared`, whenever interception starts, even after `URLSession.shared` and
  ///   other sessions were created and used (as in a `swift test` run, where XCTest and Swift
  ///   Testing tests share the process). Doppel puts its class first in the shared session's own
  ///   `protocolClasses`. Sessions made from a copy of `URLSession.shared.configuration` while
  ///   this backend intercepts are covered too, for as long as it intercepts.
  /// - **Apple platforms** (not measured here; from Apple's documentation): Doppel calls
  ///   `URLProtocol.registerClass`, whose classes the URL loading system consults in the reverse
  ///   order of their registration (Doppel's, registered last, first), and which, as the header of
  ///   `URLSessionConfiguration.protocolClasses` says, registers with the default (shared) session
  ///   rather than with sessions made from a configuration. So: `URLSession.shared`.
  ///
  /// What is not answered, on any platform: sessions the code under test makes itself from
  /// `URLSessionConfiguration.default` or `.ephemeral`, as a third-party SDK does. Those
  /// configurations list the built-in HTTP handler first and never consult Doppel (on Linux
  /// `.default` is a fixed list, and registered classes are only a fallback for requests no listed
  /// class accepts). Give such a client ``configuration(basedOn:)`` instead: see
  /// <doc:GettingStarted#Clients-that-make-their-own-sessions>.
  /// - **Linux:** while this backend intercepts, those requests are stopped before they reach the
  ///   network, and each is reported through this backend's ``issueReporter`` with that fix. Doppel
  ///   points libcurl's proxy variables (`http_proxy`, `https_proxy`, `no_proxy`) at a guard on
  ///   127.0.0.1 in this process, which reads the request line, reports it and closes the
  ///   connection: the caller gets `URLError(.badServerResponse)` for HTTP and
  ///   `URLError(.unknown)` for HTTPS. Loopback hosts stay direct, so local servers keep working.
  ///   ``stopInterceptingProcessWide()`` puts the variables back. Processes started meanwhile
  ///   inherit them, and this backend's own ``UnmatchedPolicy/passthrough`` to a host that is not
  ///   loopback is stopped too.
  /// - **Apple platforms:** they are not stopped (URLSession there reads no proxy variables).
  ///
  /// Sessions of other backends are never affected: their own class comes first.
  ///
  /// To cover those sessions too, use ``interceptProcessWide(covering:)`` with
  /// ``ProcessWideCoverage/everySession``.
  ///
  /// - Important: On Linux, start and stop interception while no task is being created on
  ///   `URLSession.shared` on another thread: the shared configuration is changed in place.
  /// - Throws: ``DoppelError`` when another backend intercepts already.
  public func interceptProcessWide() throws {
    try interceptProcessWide(covering: .shared)
  }

  /// Routes `URLSession.shared` to this backend, and with ``ProcessWideCoverage/everySession``
  /// also the sessions that code you cannot change makes itself from
  /// `URLSessionConfiguration.default` or `.ephemeral` (an analytics, payments or auth SDK).
  ///
  /// With `.shared` this is ``interceptProcessWide()``. With `.everySession`:
  /// - **Apple platforms:** `URLSessionConfiguration`'s class getters are swizzled (once per
  ///   process) so that every configuration taken from `.default` or `.ephemeral` while this backend
  ///   intercepts lists a Doppel class first, whoever takes it; sessions made from it are answered
  ///   by whichever backend intercepts every session at the time of each request, and by the
  ///   network when none does. `.background(withIdentifier:)` is reported through
  ///   ``issueReporter`` with the fix: background sessions run no custom `URLProtocol`.
  /// - **Linux:** no class can come before FoundationNetworking's own HTTP handler in those
  ///   sessions (`.default` is a fixed list there, and registered classes are only a fallback), so
  ///   Doppel answers them in the loopback network guard that libcurl is given as its proxy:
  ///   plain `http://` requests are answered by this backend and recorded in its journal; `https://`
  ///   ones (a `CONNECT` Doppel cannot look into) are stopped and reported, as with `.shared`.
  ///
  /// Not covered, on any platform: sessions made before interception started from a configuration
  /// taken before it started, and configurations made with `URLSessionConfiguration()`. Start
  /// interception before the code under test makes its sessions (in an app, first thing at launch).
  /// Sessions of other backends are never affected.
  ///
  /// Calling it again on the backend that intercepts changes its coverage.
  ///
  /// - Parameter coverage: which sessions to route to this backend.
  /// - Throws: ``DoppelError`` when another backend intercepts already.
  public func interceptProcessWide(covering coverage: ProcessWideCoverage) throws {
    if coverage.coversEverySession { _ = ConfigurationGetters.install() }
    try ProcessWide.state.withLock { state in
      if state.backend != id {
        if state.backend != 0 { throw DoppelError.usage(ProcessWide.busyMessage) }
        ProcessWide.install(for: id)
        state.backend = id
      }
      state.coverage = coverage
      EverySession.routing.withLock { $0 = coverage.coversEverySession ? id : nil }
    }
  }

  /// Stops process-wide interception by this backend. Does nothing when this backend is not the one
  /// intercepting.
  ///
  /// With ``ProcessWideCoverage/everySession``, configurations taken from `.default` or
  /// `.ephemeral` from now on are left as Foundation makes them (the swizzled getters stay
  /// installed but change nothing), and those taken meanwhile keep a Doppel class that declines
  /// every request until a backend intercepts every session again; on Linux the guard stops
  /// answering.
  ///
  /// What it restores: `URLSession.shared` uses the network again, with the protocol classes it had
  /// (Doppel's class is taken out of its list; on Apple platforms, unregistered). On Linux, the
  /// proxy variables get the values they had (one that was missing is set to the value curl read
  /// in its place, or empty, which curl reads as unset). Sessions made from
  /// a copy of the shared configuration while this backend intercepted still list its class, but
  /// that class declines every request once this backend stops, so they use the network again too,
  /// and never reach a backend that intercepts later.
  ///
  /// What it cannot undo: requests the backend is already answering (a delayed response, say)
  /// still get the backend's answer, and the code under test may have kept data from it. Stop only
  /// when the code under test is done.
  public func stopInterceptingProcessWide() {
    ProcessWide.state.withLock { state in
      guard state.backend == id else { return }
      EverySession.routing.withLock { $0 = nil }
      ProcessWide.uninstall(for: id)
      state.backend = 0
      state.coverage = .shared
    }
  }

  /// Whether this backend is the one intercepting process-wide.
  public var isInterceptingProcessWide: Bool { ProcessWide.state.withLock { $0.backend == id } }

  /// Which sessions this backend intercepts process-wide, or `nil` when it does not intercept.
  public var processWideCoverage: ProcessWideCoverage? {
    ProcessWide.state.withLock { $0.backend == id ? $0.coverage : nil }
  }

  /// Runs `body` with a new backend that intercepts process-wide, waiting for any other
  /// process-wide backend to finish first, and always stops intercepting afterwards.
  ///
  /// This is how tests that run in parallel share `URLSession.shared`: each waits its turn, while
  /// tests that use their own backend's sessions run on unaffected.
  ///
  /// - Parameters:
  ///   - issueReporter: Where the backend reports problems such as unmatched requests.
  ///   - body: The code that uses `URLSession.shared`, given the intercepting backend.
  public static func withProcessWideBackend<Result>(
    issueReporter: IssueReporter = .standardError,
    _ body: (Backend) async throws -> Result
  ) async throws -> Result {
    try await withProcessWideBackend(covering: .shared, issueReporter: issueReporter, body)
  }

  /// Runs `body` with a new backend that intercepts the sessions `coverage` names (see
  /// ``interceptProcessWide(covering:)``), waiting for any other process-wide backend to finish
  /// first, and always stops intercepting afterwards.
  ///
  /// - Parameters:
  ///   - coverage: which sessions the backend answers: ``ProcessWideCoverage/everySession`` for
  ///     code that makes its own sessions from `.default` or `.ephemeral`.
  ///   - issueReporter: Where the backend reports problems such as unmatched requests.
  ///   - body: The code under test, given the intercepting backend.
  public static func withProcessWideBackend<Result>(
    covering coverage: ProcessWideCoverage,
    issueReporter: IssueReporter = .standardError,
    _ body: (Backend) async throws -> Result
  ) async throws -> Result {
    await ProcessWide.gate.enter()
    let backend = Backend(issueReporter: issueReporter)
    do {
      try backend.interceptProcessWide(covering: coverage)
      let result = try await body(backend)
      backend.stopInterceptingProcessWide()
      await ProcessWide.gate.leave()
      return result
    } catch {
      backend.stopInterceptingProcessWide()
      await ProcessWide.gate.leave()
      throw error
    }
  }
}
