@_spi(DoppelInternals) import DoppelToolkit

#if canImport(FoundationNetworking) && canImport(Glibc)
  import Foundation
  import FoundationNetworking
  import Glibc
  import Synchronization

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
  ///
  /// While a backend intercepts ``ProcessWideCoverage/everySession``, the guard answers a plain
  /// HTTP request itself instead: libcurl sends it whole to its proxy (`GET http://host/path`, its
  /// headers and body), so the guard hands it to that backend (``Backend/respond(to:)``, which
  /// journals it) and writes the answer back as an HTTP/1.1 response. HTTPS reaches a proxy as a
  /// `CONNECT` tunnel whose bytes are encrypted for the real host, so it is still stopped and
  /// reported. This is the only route to such sessions FoundationNetworking leaves: measured with
  /// the Swift 6.3 toolchain, a class registered with `URLProtocol.registerClass` before any
  /// session exists reaches `URLSession.shared` only; sessions made from `.default`, `.ephemeral` or
  /// `URLSessionConfiguration()` list FoundationNetworking's `_HTTPURLProtocol` (which accepts
  /// every http and https request) first, and consult registered classes only for requests no
  /// listed class accepts.
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
        addMissingVariables(wanted.map(\.0))
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

    /// Adds each of `names` that the environment lacks, empty, in one step that readers on
    /// other threads cannot see half done.
    ///
    /// glibc's `setenv` adds a variable by `realloc`ing the `environ` array, which frees the array
    /// a thread iterating the environment may be reading at that moment (FoundationEssentials'
    /// `ProcessInfo.environment` does, as `URLSessionConfiguration.ephemeral` makes its cache):
    /// a test making a session while another starts interception crashed in `strlen` that way.
    /// So the missing variables are added here by building a new array and publishing it with one
    /// pointer store; the old array is left allocated for readers that still hold it (once per
    /// process: later activations find the variables and `setenv` replaces an entry in place,
    /// which leaves both the old and the new string readable).
    static func addMissingVariables(_ names: [String]) {
      publication.withLock { _ in
        let missing = names.filter { getenv($0) == nil }
        // RTLD_DEFAULT (a null handle) finds the `environ` this process's libc reads.
        guard !missing.isEmpty, let symbol = dlsym(nil, "environ") else { return }
        typealias Entries = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        let slot = symbol.assumingMemoryBound(to: Entries?.self)
        let old = slot.pointee
        var count = 0
        while let old, old[count] != nil { count += 1 }
        let entries = Entries.allocate(capacity: count + missing.count + 1)
        for index in 0..<count { entries[index] = old?[index] }
        for (offset, name) in missing.enumerated() { entries[count + offset] = strdup("\(name)=") }
        entries[count + missing.count] = nil
        // The entries are visible before the array that holds them.
        atomicMemoryFence(ordering: .releasing)
        slot.pointee = entries
      }
    }

    /// One environment array published at a time.
    private static let publication = Locked(())

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
        // Not inherited by processes the tests start (accept4 is not visible to Swift here).
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        // A request a backend answers may take time (a delayed stub): each connection gets a thread
        // of its own, at most `maximumConnections` at once; one more is closed at once.
        let admitted = connections.withLock { count in
          guard count < maximumConnections else { return false }
          count += 1
          return true
        }
        guard admitted else {
          close(connection)
          continue
        }
        Thread.detachNewThread {
          handle(connection)
          connections.withLock { $0 -= 1 }
        }
      }
    }

    /// Connections being handled now.
    private static let connections = Locked(0)
    /// Connections handled at once, at most.
    static let maximumConnections = 64
    /// The largest request head read, in bytes.
    static let maximumHeadSize = 64 * 1024
    /// The largest request body read, in bytes.
    static let maximumBodySize = 16 * 1024 * 1024

    /// Reads the request; answers it from the backend that intercepts every session when it is a
    /// plain HTTP request, else reports it; and closes.
    private static func handle(_ connection: Int32) {
      defer { close(connection) }
      var timeout = timeval(tv_sec: 1, tv_usec: 0)
      _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      var received: [UInt8] = []
      let served = EverySession.routedBackend.flatMap { BackendRegistry.shared.backend($0) }
      // The request line is enough to report; answering needs the whole head.
      let end: [UInt8] = served == nil ? [UInt8(ascii: "\n")] : Array("\r\n\r\n".utf8)
      while received.count < (served == nil ? 8192 : maximumHeadSize), received.firstRange(of: end) == nil {
        guard let more = readSome(connection) else { break }
        received += more
      }
      let line = received.split(separator: UInt8(ascii: "\n"), maxSplits: 1).first.map {
        String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      }
      let parts = (line ?? "").split(separator: " ")
      let method = parts.first.map(String.init) ?? "A request"
      let target = parts.count > 1 ? String(parts[1]) : "(unreadable request)"
      if let served, method != "CONNECT", target.hasPrefix("http://"),
        let request = request(method: method, target: target, received: received, connection: connection)
      {
        answer(request, from: served, on: connection)
        return
      }
      let issue = DoppelIssue(
        served != nil && method == "CONNECT"
          ? httpsMessage(target: target) : message(method: method, target: target))
      let id = ProcessWide.state.withLock { $0.backend }
      if let backend = BackendRegistry.shared.backend(id) {
        backend.issueReporter.report(issue)
      } else {
        IssueReporter.standardError.report(issue)
      }
    }

    /// What the guard reports for an HTTPS request while a backend intercepts every session.
    static func httpsMessage(target: String) -> String {
      "An HTTPS request to \(target) was stopped before it reached the network: on Linux, Doppel answers the sessions code makes itself from URLSessionConfiguration.default or .ephemeral for plain http:// only (libcurl sends HTTPS to its proxy as a CONNECT tunnel Doppel cannot look into). Give that client backend.configuration(basedOn:) so its requests reach the backend (see \"Clients that make their own sessions\" in Getting Started)."
    }

    /// Up to 64 KiB more from `connection`, or `nil` at its end, on an error or after a second
    /// without bytes.
    private static func readSome(_ connection: Int32) -> [UInt8]? {
      var buffer = [UInt8](repeating: 0, count: 65_536)
      let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
      return count > 0 ? Array(buffer[..<count]) : nil
    }

    /// The request libcurl sent to its proxy (`GET http://host/path HTTP/1.1`, headers, a
    /// `Content-Length` body), reading the rest of its body; `nil` when it is incomplete, too
    /// large, or has a chunked body (then it is reported, and not answered).
    private static func request(method: String, target: String, received: [UInt8], connection: Int32) -> URLRequest? {
      guard let url = URL(string: target), let headEnd = received.firstRange(of: Array("\r\n\r\n".utf8)) else {
        return nil
      }
      var request = URLRequest(url: url)
      request.httpMethod = method
      var length = 0
      let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self)
      for field in head.components(separatedBy: "\r\n").dropFirst() {
        guard let colon = field.firstIndex(of: ":") else { continue }
        let name = String(field[..<colon])
        let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        switch name.lowercased() {
        case "transfer-encoding": return nil
        case "content-length": length = Int(value) ?? -1
        // What curl adds for its proxy, which a URLSession door never shows a stub.
        case "host", "proxy-connection": continue
        default: request.addValue(value, forHTTPHeaderField: name)
        }
      }
      guard (0...maximumBodySize).contains(length) else { return nil }
      var body = Array(received[headEnd.upperBound...])
      while body.count < length {
        guard let more = readSome(connection) else { return nil }
        body += more
      }
      if length > 0 { request.httpBody = Data(body.prefix(length)) }
      return request
    }

    /// Answers `request` from `backend` and writes the response, closing the connection without one
    /// when the backend fails the request (the caller gets `URLError(.badServerResponse)`; the
    /// backend reported why). Waits at most ten minutes.
    private static func answer(_ request: URLRequest, from backend: Backend, on connection: Int32) {
      let outcome = Locked<(Data, HTTPURLResponse)?>(nil)
      let done = DispatchSemaphore(value: 0)
      let task = Task {
        let answered = try? await backend.respond(to: request)
        outcome.withLock { $0 = answered }
        done.signal()
      }
      if done.wait(timeout: .now() + 600) == .timedOut {
        task.cancel()
        return
      }
      guard let (data, response) = outcome.withLock({ $0 }) else { return }
      let reason = HTTPURLResponse.localizedString(forStatusCode: response.statusCode).capitalized
      var head = "HTTP/1.1 \(response.statusCode) \(reason)\r\n"
      let skipped: Set<String> = ["content-length", "transfer-encoding", "connection"]
      for (name, value) in response.allHeaderFields {
        guard let name = name as? String, !skipped.contains(name.lowercased()) else { continue }
        head += "\(name): \(value)\r\n"
      }
      let body = request.httpMethod == "HEAD" ? Data() : data
      head += "Content-Length: \(request.httpMethod == "HEAD" ? data.count : body.count)\r\nConnection: close\r\n\r\n"
      write(Array(head.utf8) + Array(body), to: connection)
    }

    /// Writes all of `bytes`, giving up when the caller has gone (no `SIGPIPE`).
    private static func write(_ bytes: [UInt8], to connection: Int32) {
      var sent = 0
      while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes {
          send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return }
        sent += count
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
