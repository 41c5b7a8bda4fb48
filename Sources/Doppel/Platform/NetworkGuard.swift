#if canImport(FoundationNetworking) && canImport(Glibc)
  import Foundation
  import FoundationNetworking
  import Glibc

  /// Linux only: while a backend intercepts process-wide, stops the requests of sessions Doppel
  /// does not serve before they reach the network, and reports each one.
  ///
  /// On Linux, a session the code under test makes itself from `URLSessionConfiguration.default`
  /// or `.ephemeral` (as a third-party SDK does) lists FoundationNetworking's own HTTP handler
  /// first, and nothing Doppel can register is consulted before it. Its requests go to libcurl,
  /// which reads the proxy from the environment (`http_proxy`, `https_proxy`, `no_proxy`) for each
  /// transfer, even in sessions made before the variables changed (measured with the Swift 6.3
  /// toolchain and libcurl 7.88). FoundationNetworking ignores `connectionProxyDictionary`, so no
  /// session overrides them.
  ///
  /// So while interception is on, those variables point at a listener on loopback in this
  /// process. It reads the request line (`GET http://host/path` for plain HTTP, `CONNECT host:443`
  /// for HTTPS), reports it through the intercepting backend, and closes the connection without a
  /// reply: the caller gets `URLError(.badServerResponse)` ("Empty reply from server") for HTTP
  /// and `URLError(.unknown)` ("Proxy CONNECT aborted") for HTTPS. Loopback hosts stay direct
  /// (`no_proxy`), so local servers in tests keep working.
  enum NetworkGuard {
    private struct State {
      /// The listener's port, once it runs. It runs for the rest of the process.
      var port: UInt16?
      /// The values to put back when interception stops, by variable.
      var saved: [(name: String, value: String)] = []
      var isActive = false
    }

    private static let state = Locked(State())

    /// What the guard reports for a request it stopped, given the request line's method and target.
    static func message(method: String, target: String) -> String {
      let what = method == "CONNECT" ? "An HTTPS request to \(target)" : "\(method) \(target)"
      return
        "\(what) was stopped before it reached the network: it came from a URLSession Doppel does not serve (one made from URLSessionConfiguration.default or .ephemeral, as a third-party SDK makes its own) while a backend intercepts process-wide. Give that client backend.configuration(basedOn:) so its requests reach the backend (see \"Clients that make their own sessions\" in Getting Started)."
    }

    static let unavailableMessage =
      "Doppel could not open its network guard on 127.0.0.1 (no socket could be bound), so sessions Doppel does not serve may reach the network while this backend intercepts process-wide."

    /// Points the proxy variables at the guard. Returns false when the listener cannot start
    /// (then nothing changed).
    @discardableResult
    static func activate() -> Bool {
      state.withLock { state in
        if state.isActive { return true }
        guard let port = state.port ?? startListener() else { return false }
        state.port = port
        let proxy = "http://127.0.0.1:\(port)"
        let wanted = [
          ("http_proxy", proxy, nil), ("https_proxy", proxy, "HTTPS_PROXY"),
          ("no_proxy", "127.0.0.1,localhost,::1,[::1]", "NO_PROXY"),
        ]
        state.saved = wanted.map { name, _, upper in
          // curl reads the lower-case name first and the upper-case one only when it is missing.
          // A missing variable is put back as the upper-case value (what curl would have read),
          // or empty, which curl reads as unset: removing it again would make the next
          // activation grow the environment while URLSession threads may be reading it.
          (name, environment(name) ?? upper.flatMap(environment) ?? "")
        }
        for (name, value, _) in wanted { setenv(name, value, 1) }
        state.isActive = true
        return true
      }
    }

    /// Puts the proxy variables back as they were before ``activate()``.
    static func deactivate() {
      state.withLock { state in
        guard state.isActive else { return }
        for (name, value) in state.saved { setenv(name, value, 1) }
        state.saved = []
        state.isActive = false
      }
    }

    private static func environment(_ name: String) -> String? {
      getenv(name).map { String(cString: $0) }
    }

    /// Starts the listener on 127.0.0.1 and a thread that serves it; returns its port.
    private static func startListener() -> UInt16? {
      guard let (socketFD, port) = LoopbackSocket.make(listening: 64) else { return nil }
      let thread = Thread { serve(listener: socketFD) }
      thread.name = "Doppel network guard"
      thread.start()
      return port
    }

    private static func serve(listener: Int32) {
      while true {
        let connection = accept(listener, nil, nil)
        if connection < 0 {
          if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { continue }
          return
        }
        handle(connection)
      }
    }

    /// Reads the request line (waiting at most a second for it), reports it, and closes.
    private static func handle(_ connection: Int32) {
      defer { close(connection) }
      // Not inherited by processes the tests start (accept4 is not visible to Swift here).
      _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
      var timeout = timeval(tv_sec: 1, tv_usec: 0)
      _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      var received: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 2048)
      while received.count < 8192, !received.contains(UInt8(ascii: "\n")) {
        let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        received += buffer[..<count]
      }
      let line = received.split(separator: UInt8(ascii: "\n"), maxSplits: 1).first.map {
        String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      }
      let parts = (line ?? "").split(separator: " ")
      let issue = DoppelIssue(
        message(
          method: parts.first.map(String.init) ?? "A request",
          target: parts.count > 1 ? String(parts[1]) : "(unreadable request)"))
      let id = ProcessWide.state.withLock { $0.backend }
      if let backend = BackendRegistry.shared.backend(id) {
        backend.issueReporter.report(issue)
      } else {
        IssueReporter.standardError.report(issue)
      }
    }
  }
#else
  /// Elsewhere than Linux with glibc, process-wide interception needs no guard of proxy variables:
  /// on Apple platforms it registers its class with `URLProtocol.registerClass`, and CFNetwork
  /// reads no proxy from the environment.
  enum NetworkGuard {
    /// Nothing to point anywhere: `true`.
    @discardableResult
    static func activate() -> Bool { true }
    /// Nothing to put back.
    static func deactivate() {}
    /// Never reported here.
    static let unavailableMessage = ""
  }
#endif
