#if Server
  import Doppel
  import Foundation
  import NIOCore
  import NIOHTTP1
  import NIOPosix
  @_spi(DoppelInternals) import DoppelToolkit

  /// A real HTTP/1.1 server on loopback that answers with a `Backend`: the same stubs, journal,
  /// verification and diagnostics as in process, for clients that are not URLSession (AsyncHTTPClient,
  /// a web view, another process) or for running a backend that does not exist yet.
  ///
  /// In tests, use ``withStubServer(_:host:port:configuration:isolation:_:)``, which always shuts
  /// the server down. For a server that lives longer (the `doppel serve` tool), start and stop it
  /// yourself:
  ///
  /// ```swift
  /// let server = try await StubServer.start(serving: backend, port: 8080)
  /// print("Serving at \(server.baseURL)")
  /// try await server.run()  // until the task is cancelled, then shuts down
  /// ```
  ///
  /// Built on SwiftNIO: keep-alive, pipelining, `TCP_NODELAY`, `Content-Length` and chunked bodies.
  /// Delays and pacing run on the backend's clock; faults happen on the connection itself
  /// (see the article "The stub server").
  public final class StubServer: Sendable {
    /// The URL the server listens on, such as `http://127.0.0.1:54321` (`https://` with
    /// ``Configuration/tls``): send requests to paths under it.
    public let baseURL: URL
    /// The port the server listens on (the one the system chose when started with port 0).
    public let port: Int
    /// The configuration it was started with.
    public let configuration: Configuration

    /// Where the admin API answers: ``baseURL`` and the prefix (`http://127.0.0.1:54321/__doppel/`),
    /// or its own port with the prefix when ``AdminAPI/port`` is set; `nil` when the admin API is
    /// off. Hand it, without the prefix, to `DoppelRemote`.
    public let adminURL: URL?

    let core: ServerCore
    private let channel: any Channel
    private let adminChannel: (any Channel)?
    private let shutdownState = Locked<ShutdownState>(.running)

    private enum ShutdownState {
      case running
      case shuttingDown([CheckedContinuation<Void, Never>])
      case finished
    }

    private init(
      core: ServerCore, channel: any Channel, adminChannel: (any Channel)?, baseURL: URL, adminURL: URL?, port: Int
    ) {
      self.core = core
      self.channel = channel
      self.adminChannel = adminChannel
      self.baseURL = baseURL
      self.adminURL = adminURL
      self.port = port
      configuration = core.configuration
    }

    /// The backend the server answers with. Setting it switches every later request to the new
    /// backend at once (`doppel serve` reloads an edited manifest this way).
    public var backend: Backend {
      get { core.backend }
      set { core.backend = newValue }
    }

    /// Starts a server answering with `backend`.
    ///
    /// - Parameters:
    ///   - backend: the stubs and journal.
    ///   - host: the address to listen on: `127.0.0.1` by default. An address that is not loopback
    ///     needs ``Configuration/allowsNonLoopback``.
    ///   - port: the port; 0 (the default) lets the system choose a free one (see ``port``).
    ///   - configuration: limits and timeouts, the origin requests are matched as, logging.
    /// - Throws: `DoppelError` when the address is not loopback and that was not allowed, cannot
    ///   be resolved, or cannot be bound (a port in use, say), when a limit or timeout of the
    ///   configuration is out of range, or when HTTPS (``Configuration/tls``) cannot be set up.
    public static func start(
      serving backend: Backend, host: String = "127.0.0.1", port: Int = 0,
      configuration: Configuration = Configuration()
    ) async throws -> StubServer {
      guard (0...65_535).contains(port) else {
        throw DoppelError.server("The port \(port) is not a TCP port. Use 1 to 65535, or 0 to let the system choose.")
      }
      try configuration.admin.validate()
      let address: SocketAddress
      do {
        address = try SocketAddress.makeAddressResolvingHost(host, port: port)
      } catch {
        throw DoppelError.server(
          "Cannot listen on \(host): the address does not resolve (\(error)). Use 127.0.0.1 or ::1.")
      }
      if !address.isLoopback && !configuration.allowsNonLoopback {
        throw DoppelError.server(
          "Refusing to listen on \(host) (\(address.ipAddress ?? host)), which is not a loopback address: anyone who can reach it could use the stub server. Listen on 127.0.0.1 or ::1, or allow it explicitly (StubServer.Configuration.allowsNonLoopback, or doppel serve --allow-remote)."
        )
      }
      if !address.isLoopback && configuration.admin.pathPrefix != nil && configuration.admin.token == nil {
        throw DoppelError.server(
          "Refusing to serve the admin API on \(host) (\(address.ipAddress ?? host)), which is not a loopback address, without a token: anyone who can reach it could change the stubs. Give it a token (doppel serve --admin-token-file <path> or DOPPEL_ADMIN_TOKEN; StubServer.Configuration.admin.token), or turn it off (--admin-prefix off; admin.pathPrefix = nil)."
        )
      }
      try configuration.validate()
      let core = try ServerCore(backend: backend, configuration: configuration)
      let channel = try await listen(core: core, listener: .main, at: address, host: host, port: port)
      let boundPort = channel.localAddress?.port ?? port
      let ip = channel.localAddress?.ipAddress ?? host
      let authority = (ip.contains(":") ? "[\(ip)]" : ip) + ":\(boundPort)"
      core.localAuthority = authority
      let url = URL(string: "\(core.scheme)://\(authority)")!
      var adminChannel: (any Channel)?
      var adminURL = configuration.admin.pathPrefix.flatMap { URL(string: "\(core.scheme)://\(authority)\($0)") }
      if let adminPort = configuration.admin.port, let prefix = configuration.admin.pathPrefix {
        let adminAddress: SocketAddress
        do {
          adminAddress = try SocketAddress.makeAddressResolvingHost(host, port: adminPort)
          adminChannel = try await listen(core: core, listener: .admin, at: adminAddress, host: host, port: adminPort)
        } catch {
          try? await channel.close()
          throw error
        }
        let boundAdminPort = adminChannel?.localAddress?.port ?? adminPort
        adminURL = URL(
          string: "\(core.scheme)://" + (ip.contains(":") ? "[\(ip)]" : ip) + ":\(boundAdminPort)\(prefix)")
      }
      return StubServer(
        core: core, channel: channel, adminChannel: adminChannel, baseURL: url, adminURL: adminURL, port: boundPort)
    }

    /// Binds one listener of the server: the main one, or the admin API's own.
    private static func listen(
      core: ServerCore, listener: StubHTTPHandler.Listener, at address: SocketAddress, host: String, port: Int
    ) async throws -> any Channel {
      let configuration = core.configuration
      let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(ChannelOptions.backlog, value: 256)
        .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
        .serverChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
        .serverChannelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              ConnectionLimitHandler(limit: configuration.maximumConnections, registry: core.connections))
          }
        }
        .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
        .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
        .childChannelInitializer { channel in
          guard core.connections.add(channel) else { return channel.close() }
          return channel.eventLoop.makeCompletedFuture { try core.configure(channel, listener: listener) }
        }
      do {
        return try await bootstrap.bind(to: address).get()
      } catch {
        let what = listener == .admin ? "the admin API's port" : "port"
        // The system's words for the error, not NIO's description of the call that failed.
        let reason = (error as? IOError).map { "\(String(cString: strerror($0.errnoCode))) (errno \($0.errnoCode))" }
        throw DoppelError.server(
          "Cannot listen on \(host) \(what) \(port): \(reason ?? "\(error)"). Choose another port, or 0 to let the system choose."
        )
      }
    }

    /// Serves until the calling task is cancelled, then shuts down gracefully (see ``shutdown()``).
    /// Returns early when another caller shut the server down.
    public func run() async {
      await withTaskCancellationHandler {
        try? await channel.closeFuture.get()
      } onCancel: {
        channel.close(promise: nil)
      }
      await shutdown()
    }

    /// Stops accepting connections, closes idle ones, lets responses in progress finish (for at
    /// most ``Configuration/shutdownGracePeriod``; a response that never comes is not waited for),
    /// then closes what is left. Calling it again waits for the first call to finish.
    public func shutdown() async {
      let first = shutdownState.withLock { state -> Bool in
        guard case .running = state else { return false }
        state = .shuttingDown([])
        return true
      }
      guard first else {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          shutdownState.withLock { state in
            if case .shuttingDown(var waiting) = state {
              waiting.append(continuation)
              state = .shuttingDown(waiting)
            } else {
              continuation.resume()
            }
          }
        }
        return
      }
      try? await channel.close()
      try? await adminChannel?.close()
      let open = core.connections.close()
      for connection in open {
        connection.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        connection.pipeline.fireUserInboundEventTriggered(ServerShutdownEvent())
      }
      if !open.isEmpty {
        let eventLoop = channel.eventLoop
        let closed = EventLoopFuture.andAllComplete(open.map(\.closeFuture), on: eventLoop)
        let grace = TimeAmount(saturating: configuration.shutdownGracePeriod)
        let deadline = eventLoop.scheduleTask(in: grace) {
          for connection in open { connection.close(promise: nil) }
        }
        try? await closed.get()
        deadline.cancel()
      }
      let waiting = shutdownState.withLock { state -> [CheckedContinuation<Void, Never>] in
        defer { state = .finished }
        if case .shuttingDown(let waiting) = state { return waiting }
        return []
      }
      for continuation in waiting { continuation.resume() }
    }

    /// How many client connections are open.
    public var openConnectionCount: Int { core.connections.count }
  }

  extension SocketAddress {
    /// Whether the address is loopback: `127.0.0.0/8` or `::1` (or `::ffff:127.x.x.x`).
    fileprivate var isLoopback: Bool {
      guard let ip = ipAddress else { return false }
      switch self.protocol {
      case .inet: return ip.hasPrefix("127.")
      case .inet6: return ip == "::1" || ip.lowercased().hasPrefix("::ffff:127.")
      default: return false
      }
    }
  }
#endif
