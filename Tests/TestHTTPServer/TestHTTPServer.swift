import Foundation

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests that need a real server: differential tests
/// (a stub against the real thing) and recording.
///
/// ```swift
/// let server = try TestHTTPServer.start { request in
///   request.path == "/breeds" ? .text("[]", headers: [("Content-Type", "application/json")]) : .init(status: 404)
/// }
/// defer { server.stop() }
/// let (data, _) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appending(path: "breeds"))
/// ```
///
/// It keeps connections alive (several requests per connection), reads `Content-Length` and
/// `Transfer-Encoding: chunked` request bodies, answers `Expect: 100-continue`, adds
/// `Content-Length` to responses, honours `Connection: close`, sends no body for `HEAD`, and answers
/// a malformed request with a 4xx before closing. Each connection is served by its own thread with
/// blocking I/O; the handler runs on that thread.
public final class TestHTTPServer: Sendable {
  /// The port the server listens on.
  public let port: Int
  private let core: Core

  /// `http://127.0.0.1:PORT`.
  public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// Every request received so far, in the order each was fully read.
  public var requests: [Request] { core.state.withLock { $0.requests } }

  /// How many connections the server has accepted so far: with keep-alive, fewer than requests.
  public var connectionCount: Int { core.state.withLock { $0.accepted } }

  private init(port: Int, core: Core) {
    self.port = port
    self.core = core
  }

  /// Binds 127.0.0.1 on a port the system chooses and serves until ``stop()``; `handler` runs once
  /// per request, on the connection's thread.
  ///
  /// - Throws: ``StartError`` when the socket cannot be created or bound.
  public static func start(_ handler: @escaping @Sendable (Request) -> Response) throws -> TestHTTPServer {
    let (listener, port) = try Socket.listenOnLoopback()
    let wake: (read: Int32, write: Int32)
    do {
      wake = try Socket.makePipe()
    } catch {
      Socket.close(listener)
      throw error
    }
    let core = Core(handler: handler, listener: listener, wakeRead: wake.read, wakeWrite: wake.write)
    let thread = Thread { core.acceptLoop() }
    thread.name = "TestHTTPServer \(port) accept"
    thread.start()
    return TestHTTPServer(port: port, core: core)
  }

  /// Closes the listener and every open connection, waking the threads blocked on them. Requests
  /// in flight fail; new connections are refused. Calling it again does nothing.
  public func stop() { core.stop() }

  deinit { core.stop() }
}

extension TestHTTPServer {
  /// The state the accept thread, the connection threads and `stop()` share.
  final class Core: Sendable {
    let handler: @Sendable (Request) -> Response
    let listener: Int32
    let wakeRead: Int32
    let wakeWrite: Int32
    let state = ServerLock(State())
    /// Signalled when the accept thread has closed the listener.
    let acceptEnded = DispatchSemaphore(value: 0)
    /// Entered while the server runs: connections holding a response (``Response/hold``) wait on it.
    let running = DispatchGroup()

    struct State {
      var requests: [Request] = []
      /// Open connections. A descriptor is shut down only while it is in here (under the lock) and
      /// removed (under the lock) before it is closed, so `stop()` never touches a reused one.
      var connections: Set<Int32> = []
      var stopped = false
      var accepted = 0
    }

    init(handler: @escaping @Sendable (Request) -> Response, listener: Int32, wakeRead: Int32, wakeWrite: Int32) {
      self.handler = handler
      self.listener = listener
      self.wakeRead = wakeRead
      self.wakeWrite = wakeWrite
      running.enter()
    }

    func acceptLoop() {
      defer {
        Socket.close(listener)
        Socket.close(wakeRead)
        acceptEnded.signal()
      }
      while Socket.waitReadable(listener, orWake: wakeRead) {
        guard let client = Socket.accept(listener) else { continue }
        let admitted = state.withLock { state -> Bool in
          guard !state.stopped else { return false }
          state.connections.insert(client)
          state.accepted += 1
          return true
        }
        guard admitted else {
          Socket.close(client)
          return
        }
        Socket.configureAccepted(client)
        let thread = Thread { [self] in serve(client) }
        thread.name = "TestHTTPServer connection \(client)"
        thread.start()
      }
    }

    private func serve(_ fd: Int32) {
      var connection = Connection(fd: fd)
      connection.run { request in
        state.withLock { $0.requests.append(request) }
        return handler(request)
      } waitForStop: {
        _ = running.wait(timeout: .now() + 60)
      }
      Socket.drainBeforeClose(fd)
      state.withLock { _ = $0.connections.remove(fd) }
      Socket.close(fd)
    }

    func stop() {
      let first = state.withLock { state -> Bool in
        guard !state.stopped else { return false }
        state.stopped = true
        for fd in state.connections { Socket.shutdownBoth(fd) }
        return true
      }
      guard first else { return }
      running.leave()
      Socket.wake(wakeWrite)
      acceptEnded.wait()
      Socket.close(wakeWrite)
    }
  }
}
