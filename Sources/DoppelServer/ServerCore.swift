#if Server
  import Doppel
  @_spi(DoppelInternals) import DoppelToolkit
  import Foundation
  import NIOCore
  import NIOHTTP1
  import NIOWebSocket

  #if TLS
    import NIOSSL
  #endif

  /// What every connection of one server shares: the backend, the configuration, the origins
  /// derived from the stubs, and the open connections.
  final class ServerCore: Sendable {
    let configuration: StubServer.Configuration
    private let backendBox: Locked<Backend>
    private let authorityBox = Locked("localhost")
    private let originCache = Locked<OriginCache?>(nil)
    let connections = ConnectionRegistry()
    /// How many connections serve the admin API's event stream now (see ``maximumEventStreams``).
    private let eventStreams = Locked(0)
    /// The admin API (see ``StubServer/AdminAPI``).
    let admin: AdminController
    /// `https` when the server speaks TLS, otherwise `http`.
    let scheme: String
    #if TLS
      /// The TLS context every connection shares, or `nil` for plain HTTP.
      let tlsContext: NIOSSLContext?
    #endif

    init(backend: Backend, configuration: StubServer.Configuration) throws {
      self.configuration = configuration
      backendBox = Locked(backend)
      #if TLS
        tlsContext = try configuration.tls?.makeContext()
        scheme = tlsContext == nil ? "http" : "https"
      #else
        scheme = "http"
      #endif
      admin = AdminController(
        settings: configuration.admin, scheme: scheme, unmatchedStatus: configuration.unmatchedStatus)
    }

    /// `host:port` the server listens on, for requests that name no host.
    var localAuthority: String {
      get { authorityBox.withLock { $0 } }
      set { authorityBox.withLock { $0 = newValue } }
    }

    /// The most connections that may serve the admin API's event stream (`GET events`) at once:
    /// a quarter of ``StubServer/Configuration/maximumConnections`` (256 of the default 1,024), at
    /// least 1. A stream holds its connection for as long as the client keeps it, so without a
    /// bound a local caller opening streams would hold every slot and no request would be served.
    var maximumEventStreams: Int { max(1, configuration.maximumConnections / 4) }

    /// Takes a place for an event stream: `false` when ``maximumEventStreams`` are open.
    func takeEventStream() -> Bool {
      let limit = maximumEventStreams
      return eventStreams.withLock { count in
        guard count < limit else { return false }
        count += 1
        return true
      }
    }

    /// Gives back the place an event stream took.
    func releaseEventStream() {
      eventStreams.withLock { $0 = max(0, $0 - 1) }
    }

    var backend: Backend {
      get { backendBox.withLock { $0 } }
      set { backendBox.withLock { $0 = newValue } }
    }

    /// Sets up a new connection's pipeline, on its event loop: with HTTPS, a
    /// ``PlainHTTPRefusalHandler`` and NIO's TLS handler nearest the socket; then back-pressure (no
    /// reading while the client does not read; see ``BackPressureHandler``) and the read timeouts
    /// in front of the bytes, NIO's HTTP/1.1 decoder, encoder, WebSocket upgrader and pipelining
    /// handler, then the stub handler. The upgrader asks the stub handler whether a WebSocket stub
    /// answers the connection's first request; when one does, the stub handler gives way to a
    /// ``WebSocketConversationHandler`` (see `StubHTTPHandler+WebSocket.swift`). The admin API's own
    /// port (``StubServer/AdminAPI/port``) has no upgrader: it serves no stubs.
    func configure(_ channel: any Channel, listener: StubHTTPHandler.Listener = .main) throws {
      var limits = NIOHTTPDecoderLimitConfiguration()
      limits.maxHeaderFieldSize = configuration.maximumHeadSize
      limits.maxHeaderListSize = configuration.maximumHeadSize
      let timeouts = ReadTimeoutHandler(configuration: configuration, lingerTime: StubHTTPHandler.lingerTime)
      let handler = StubHTTPHandler(core: self, listener: listener, timeouts: timeouts)
      var upgrade: NIOHTTPServerUpgradeConfiguration?
      if listener == .main {
        let boundHandler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        let upgrader = NIOWebSocketServerUpgrader(
          maxFrameSize: WebSocketConversationHandler.maximumMessageSize, automaticErrorHandling: true,
          shouldUpgrade: { channel, head in boundHandler.value.shouldUpgrade(head, channel: channel) },
          upgradePipelineHandler: { channel, _ in boundHandler.value.startWebSocket(channel: channel) })
        upgrade = (upgraders: [upgrader], completionHandler: { _ in })
      }
      #if TLS
        if let tlsContext {
          try channel.pipeline.syncOperations.addHandler(
            PlainHTTPRefusalHandler { [weak self] in self?.localAuthority ?? "localhost" })
          try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext))
        }
      #endif
      try channel.pipeline.syncOperations.addHandler(
        BackPressureHandler(stallTimeout: TimeAmount(saturating: configuration.idleTimeout)))
      try channel.pipeline.syncOperations.addHandler(timeouts)
      try channel.pipeline.syncOperations.configureHTTPServerPipeline(
        withPipeliningAssistance: true, withServerUpgrade: upgrade,
        // The stub handler checks the heads of stubs' answers itself, once per reused answer (see
        // `PreparedAnswer`); the server's own heads are made of fixed names and checked values.
        withErrorHandling: false, withOutboundHeaderValidation: false,
        withEncoderConfiguration: HTTPResponseEncoder.Configuration(), withDecoderLimitConfiguration: limits)
      try channel.pipeline.syncOperations.addHandler(handler)
    }

    // MARK: Requests

    /// The request a backend sees for what arrived, or `nil` when its target cannot form a URL.
    func request(for head: HTTPRequestHead, body: ByteBuffer?, backend: Backend) -> Request? {
      guard let target = target(for: head, backend: backend) else { return nil }
      var headers = Doppel.HTTPHeaders()
      for (name, value) in head.headers { headers.add(name, value) }
      if let host = target.host, headers.contains("Host") {
        // The request is matched (and journaled, recorded, passed through) as sent to its origin.
        headers.replace("Host", with: host)
      }
      let data = body.flatMap { $0.readableBytes > 0 ? Data($0.readableBytesView) : nil }
      return Request(
        method: Doppel.HTTPMethod(head.method.rawValue), target: target.target, headers: headers, body: data)
    }

    /// A URL a request was made for, parsed, with the `Host` header it is matched with.
    private struct ParsedTarget {
      let target: Request.Target
      /// `host[:port]` of the URL, or `nil` when it has no host.
      let host: String?
    }

    /// The URLs of recent requests, by their text (at most 1,024): looking one up costs less than
    /// parsing it.
    private let parsedTargets = BoundedCache<String, ParsedTarget>(limit: 1_024)
    /// The longest URL text (in bytes) ``parsedTargets`` keeps.
    private static let longestParsedTarget = 2_048

    private func target(for head: HTTPRequestHead, backend: Backend) -> ParsedTarget? {
      let target = head.uri
      let text: String
      if target.hasPrefix("/") {
        text = base(for: head, backend: backend) + target
      } else {
        // Absolute form, as sent to a proxy: matched as its own URL.
        let lowered = target.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        text = target
      }
      // Only ASCII text is kept: strings that differ in their bytes but not in their characters
      // (é composed or not) are equal keys, and each must be parsed as sent. Only short URLs are
      // kept, so that clients sending long ones cannot make the server hold 1,024 request heads.
      let keepable = text.utf8.count <= Self.longestParsedTarget && text.utf8.allSatisfy { $0 < 0x80 }
      if keepable, let parsed = parsedTargets[text] { return parsed }
      guard let url = URL(string: text), target.hasPrefix("/") || url.host != nil else { return nil }
      let host = url.host.map {
        ($0.utf8.contains(UInt8(ascii: ":")) ? "[\($0)]" : $0) + (url.port.map { ":\($0)" } ?? "")
      }
      let parsed = ParsedTarget(target: Request.Target(url), host: host)
      if keepable { parsedTargets.insert(parsed, for: text) }
      return parsed
    }

    /// `scheme://authority` the request is matched as.
    private func base(for head: HTTPRequestHead, backend: Backend) -> String {
      let sentHost = head.headers.first(name: "host").flatMap(Self.validAuthority)
      switch configuration.origin.kind {
      case .fixed(let scheme, let authority):
        return scheme + "://" + authority
      case .asSent:
        return scheme + "://" + (sentHost ?? localAuthority)
      case .automatic:
        let origins = origins(of: backend)
        if let sentHost, !origins.byHost.isEmpty, let origin = origins.byHost[Self.hostPart(of: sentHost)] {
          return origin
        }
        if origins.all.count == 1 { return origins.all[0] }
        return scheme + "://" + (sentHost ?? localAuthority)
      }
    }

    private struct OriginCache {
      let backend: ObjectIdentifier
      let revision: Int
      let all: [String]
      let byHost: [String: String]
    }

    private func origins(of backend: Backend) -> OriginCache {
      let id = ObjectIdentifier(backend)
      let revision = backend.stubRevision
      if let cached = originCache.withLock({ $0 }), cached.backend == id, cached.revision == revision { return cached }
      let urls = backend.stubOrigins()
      var byHost: [String: String] = [:]
      var all: [String] = []
      for url in urls {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        all.append(text)
        if let host = url.host?.lowercased(), byHost[host] == nil { byHost[host] = text }
      }
      let cache = OriginCache(backend: id, revision: revision, all: all, byHost: byHost)
      originCache.withLock { $0 = cache }
      return cache
    }

    /// The `Host` header when it is a plain `host[:port]`; anything else is ignored.
    private static func validAuthority(_ value: String) -> String? {
      guard !value.isEmpty, value.utf8.count <= 255,
        value.utf8.allSatisfy({ byte in
          switch byte {
          case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"),
            UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            return true
          default:
            return false
          }
        })
      else { return nil }
      return value
    }

    /// `api.example.com` of `api.example.com:8080`, `::1` of `[::1]:8080`, lower-cased.
    private static func hostPart(of authority: String) -> String {
      if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
        return String(authority[authority.index(after: authority.startIndex)..<close]).lowercased()
      }
      if let colon = authority.lastIndex(of: ":") { return String(authority[..<colon]).lowercased() }
      return authority.lowercased()
    }
  }

  /// The server's open connections, so that shutdown can quiesce and, after the grace period,
  /// close them.
  final class ConnectionRegistry: Sendable {
    private struct State {
      var channels: [ObjectIdentifier: any Channel] = [:]
      var closing = false
    }

    private let state = Locked(State())

    /// Adds a new connection; `false` when the server is shutting down (close it then).
    func add(_ channel: any Channel) -> Bool {
      let added = state.withLock { state -> Bool in
        guard !state.closing else { return false }
        state.channels[ObjectIdentifier(channel)] = channel
        return true
      }
      guard added else { return false }
      channel.closeFuture.whenComplete { [self] _ in remove(channel) }
      return true
    }

    /// Removes a closed connection; removing one twice, or one never added, does nothing.
    func remove(_ channel: any Channel) {
      _ = state.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Stops accepting connections and returns the open ones.
    func close() -> [any Channel] {
      state.withLock { state in
        state.closing = true
        return Array(state.channels.values)
      }
    }

    var count: Int { state.withLock { $0.channels.count } }
  }

  /// Sent through each connection's pipeline when the server shuts down, after NIO's
  /// `ChannelShouldQuiesceEvent`: a connection waiting for a response that never comes closes.
  struct ServerShutdownEvent: Sendable {}
#endif
