#if Server
  import Doppel
  import Foundation

  /// A backend inside the app under test, which a UI test in another process drives through the
  /// admin API (`DoppelRemote`), as it drives `doppel serve`: in a debug build, the app starts it
  /// first thing at launch from its launch environment, and it answers every session the app makes
  /// (SDKs' own included: `ProcessWideCoverage.everySession`), with no base URL to change.
  ///
  /// ```swift
  /// // In the app, debug builds only, before anything makes a session:
  /// #if DEBUG
  ///   let doppel = try await InAppBackend.start()  // nil unless DOPPEL_ADMIN_PORT is set
  /// #endif
  /// ```
  ///
  /// It reads the launch environment (an XCUITest sets it with `XCUIApplication().launchEnvironment`):
  /// - `DOPPEL_ADMIN_PORT` (required, or nothing starts): the loopback port of the admin API; 0
  ///   lets the system choose, and then `DOPPEL_ADMIN_PORT_FILE`, when set, names a file the port
  ///   is written to. Give each parallel test runner its own port.
  /// - `DOPPEL_ADMIN_TOKEN`: a token every admin request must send (`DoppelRemote(url, token:)`).
  /// - `DOPPEL_MANIFEST`: a manifest to load at once, as a path or as the JSON itself (text
  ///   starting with `{`); `DOPPEL_SCENARIO` picks its scenario.
  /// - `DOPPEL_WAIT_FOR_STUBS`: seconds (at most 120) that ``start(environment:coverage:)`` waits
  ///   until the test has added its stubs and called `DoppelRemote.signalReady()`.
  ///
  /// Once the admin API listens, one line on standard error says where (`Doppel: the in-app
  /// backend answers every session of this process; its admin API listens on
  /// http://127.0.0.1:PORT.`), before any wait.
  ///
  /// The trust model is the stub server's: the admin API listens on 127.0.0.1 only, answers only
  /// loopback `Host`s without a foreign `Origin`, JSON bodies, and the token when one is set. Keep
  /// this out of release builds: link DoppelServer only in the debug configuration (or behind
  /// `#if DEBUG`).
  public final class InAppBackend: Sendable {
    /// `DOPPEL_ADMIN_PORT`: the admin API's loopback port (0: the system chooses).
    public static let portVariable = "DOPPEL_ADMIN_PORT"
    /// `DOPPEL_ADMIN_PORT_FILE`: a file the bound port is written to.
    public static let portFileVariable = "DOPPEL_ADMIN_PORT_FILE"
    /// `DOPPEL_ADMIN_TOKEN`: the token admin requests must send.
    public static let tokenVariable = "DOPPEL_ADMIN_TOKEN"
    /// `DOPPEL_MANIFEST`: a manifest's path, or its JSON.
    public static let manifestVariable = "DOPPEL_MANIFEST"
    /// `DOPPEL_WAIT_FOR_STUBS`: how many seconds to wait for `DoppelRemote.signalReady()`.
    public static let waitVariable = "DOPPEL_WAIT_FOR_STUBS"
    /// The longest wait `DOPPEL_WAIT_FOR_STUBS` may ask for, in seconds.
    public static let maximumWait = 120.0

    /// The backend every session of the app is answered by.
    public let backend: Backend
    /// The stub server that carries the admin API (and answers stubs over HTTP too).
    public let server: StubServer
    /// Where to point `DoppelRemote`: `http://127.0.0.1:PORT`.
    public var adminURL: URL { server.baseURL }
    /// Whether the test signalled it was ready within `DOPPEL_WAIT_FOR_STUBS` (true when no wait
    /// was asked for).
    public let wasSignalledReady: Bool

    private init(backend: Backend, server: StubServer, ready: Bool) {
      self.backend = backend
      self.server = server
      wasSignalledReady = ready
    }

    /// Starts the in-app backend from the launch environment, or returns `nil` when
    /// `DOPPEL_ADMIN_PORT` is not set (an ordinary launch).
    ///
    /// It makes a backend (its unmatched requests fail and are reported on standard error), loads
    /// `DOPPEL_MANIFEST`, serves the admin API on 127.0.0.1, intercepts `coverage` process-wide,
    /// and waits for the test when `DOPPEL_WAIT_FOR_STUBS` asks (reporting on standard error when
    /// the wait ends without the signal, then going on).
    ///
    /// - Parameters:
    ///   - environment: the launch environment: the process's own by default.
    ///   - coverage: which sessions the backend answers: every session by default.
    /// - Throws: `DoppelError` naming the variable when one is invalid, the manifest cannot be
    ///   loaded, the port cannot be bound, or another backend intercepts process-wide already.
    public static func start(
      environment: [String: String] = ProcessInfo.processInfo.environment,
      coverage: ProcessWideCoverage = .everySession
    ) async throws -> InAppBackend? {
      guard let portText = environment[portVariable] else { return nil }
      guard let port = Int(portText.trimmingCharacters(in: .whitespaces)), (0...65_535).contains(port) else {
        throw DoppelError(
          "\(portVariable)=\(portText) is not a TCP port. Set it to a port from 1 to 65535, or 0 to let the system choose (then read it from \(portFileVariable)).",
          kind: .server)
      }
      let wait = try waitSeconds(environment[waitVariable])
      let backend = Backend()
      if let manifest = environment[manifestVariable], !manifest.isEmpty {
        try backend.addStubs(from: try loadManifest(manifest))
      }
      var configuration = StubServer.Configuration()
      if let token = environment[tokenVariable], !token.isEmpty { configuration.admin.token = token }
      let server = try await StubServer.start(serving: backend, port: port, configuration: configuration)
      do {
        if let file = environment[portFileVariable], !file.isEmpty {
          try Data("\(server.port)\n".utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        }
        try backend.interceptProcessWide(covering: coverage)
      } catch {
        await server.shutdown()
        throw error
      }
      let waiting = wait.map { " Waiting up to \(formatted($0)) seconds for DoppelRemote.signalReady()." } ?? ""
      FileHandle.standardError.write(
        Data(
          "Doppel: the in-app backend answers \(coverage == .everySession ? "every session" : "URLSession.shared") of this process; its admin API listens on \(server.baseURL.absoluteString).\(waiting)\n"
            .utf8))
      var ready = true
      if let wait {
        ready = await waitUntilReady(backend, seconds: wait)
        if !ready {
          IssueReporter.standardError.report(
            DoppelIssue(
              "The app went on after \(waitVariable)=\(formatted(wait)) seconds without the test's signal: call DoppelRemote.signalReady() once the stubs are added, or raise \(waitVariable)."
            ))
        }
      }
      return InAppBackend(backend: backend, server: server, ready: ready)
    }

    /// Stops intercepting and shuts the admin API down.
    public func stop() async {
      backend.stopInterceptingProcessWide()
      await server.shutdown()
    }

    /// The seconds `DOPPEL_WAIT_FOR_STUBS` asks for, or `nil` for no wait.
    static func waitSeconds(_ text: String?) throws -> Double? {
      guard let text, !text.isEmpty else { return nil }
      guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds >= 0, seconds <= maximumWait
      else {
        throw DoppelError(
          "\(waitVariable)=\(text) is not a number of seconds from 0 to \(formatted(maximumWait)). Set it to how long the app may wait for DoppelRemote.signalReady(), such as 10.",
          kind: .server)
      }
      return seconds
    }

    /// The manifest `DOPPEL_MANIFEST` names: JSON when it starts with `{`, else a path.
    static func loadManifest(_ value: String) throws -> Manifest {
      let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
      if trimmed.hasPrefix("{") {
        return try Manifest(data: Data(trimmed.utf8), url: URL(fileURLWithPath: manifestVariable))
      }
      return try Manifest.load(contentsOf: URL(fileURLWithPath: trimmed))
    }

    /// Waits until the test puts `DoppelRemote.launchMachine` in `DoppelRemote.readyState`,
    /// looking every 10 ms, for at most `seconds`.
    private static func waitUntilReady(_ backend: Backend, seconds: Double) async -> Bool {
      let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
      while true {
        if backend.state(ofMachine: DoppelRemote.launchMachine) == DoppelRemote.readyState { return true }
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
      }
    }

    private static func formatted(_ seconds: Double) -> String {
      seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
  }
#endif
