#if Server
  import Doppel
  import Foundation
  import NIOCore
  import NIOHTTP1
  import NIOWebSocket

  extension StubHTTPHandler: RemovableChannelHandler {}

  /// The upgrade a WebSocket stub granted, kept from NIO's question (``StubHTTPHandler/shouldUpgrade(_:channel:)``)
  /// until the upgrade happens.
  struct WebSocketUpgrade {
    let script: WebSocketScript
    let url: URL
    let backend: Backend
    /// ``StubServer/Configuration/webSocketIdleTimeout`` and ``StubServer/Configuration/webSocketPongTimeout``.
    let idleTimeout: TimeAmount
    let pongTimeout: TimeAmount
  }

  extension StubHTTPHandler {
    /// NIO's WebSocket upgrader asks whether to upgrade a request that asks for it (with a valid
    /// `Sec-WebSocket-Key` and version 13), as soon as its head arrives. The request is resolved
    /// (and journaled) here, once: a WebSocket stub answers with the headers of the `101`; any other
    /// answer is kept in ``resolvedAhead`` and played when NIO passes the request on, as `nil` tells
    /// it to.
    func shouldUpgrade(_ head: HTTPRequestHead, channel: any Channel) -> EventLoopFuture<NIOHTTP1.HTTPHeaders?> {
      let eventLoop = channel.eventLoop
      // The head is complete: no header timeout while the backend decides.
      timeouts.answer()
      let hasBody =
        head.headers.first(name: "content-length").map { $0 != "0" } ?? false
        || head.headers.contains(name: "transfer-encoding")
      let admin = core.admin.settings.port == nil && core.admin.owns(head.uri)
      // NIO's upgrader asks even when `Connection` does not name `upgrade`. The HTTP parser then did
      // not stop at this head (for it, no upgrade was asked) and may have parsed a request
      // pipelined behind it, which an upgrade would hand to the WebSocket frame decoder: a crash.
      // Such a request is served as plain HTTP, as the parser already treats it.
      // A head with two `Host` fields is not upgraded either: passed on, it gets its 400.
      guard !shuttingDown, !hasBody, !admin, head.headers.connectionNames("upgrade"), head.headers["host"].count <= 1
      else {
        return eventLoop.makeSucceededFuture(nil)
      }
      let backend = core.backend
      guard let request = core.request(for: head, body: nil, backend: backend) else {
        return eventLoop.makeSucceededFuture(nil)
      }
      if let refusal = webSocketOriginRefusal(
        head, port: channel.localAddress?.port, request: request, backend: backend)
      {
        // Not upgraded: NIO passes the request on, and it is answered with the refusal.
        upgradeRefusal = refusal
        return eventLoop.makeSucceededFuture(nil)
      }
      switch backend.frontDoorPlan(for: request) {
      case .now(let playback):
        return eventLoop.makeSucceededFuture(
          decide(playback, request: request, target: head.uri, backend: backend))
      case .later(let work):
        let promise = eventLoop.makePromise(of: NIOHTTP1.HTTPHeaders?.self)
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        let target = head.uri
        Task {
          let playback = await work()
          eventLoop.execute {
            promise.succeed(handler.value.decide(playback, request: request, target: target, backend: backend))
          }
        }
        return promise.futureResult
      }
    }

    /// Why a WebSocket upgrade is refused for its `Origin`, or `nil` when it may go ahead: no
    /// `Origin` (a test, a script, an app), the server's own origin, one that
    /// ``StubServer/Configuration/corsOrigins`` lists (`*` for any), or one the WebSocket stub
    /// that would answer names in its `Access-Control-Allow-Origin` header (a manifest's; a stub
    /// added through the admin API cannot set that header).
    ///
    /// Browsers do not apply CORS to WebSockets: any page the developer has open could otherwise
    /// talk to a WebSocket stub and fill the journal, so an upgrade from another origin must be
    /// allowed as a page reading the stubs' HTTP answers is.
    func webSocketOriginRefusal(_ head: HTTPRequestHead, port: Int?, request: Request, backend: Backend) -> String? {
      let origins = head.headers["origin"]
      guard !origins.isEmpty else { return nil }
      if origins.count == 1, core.admin.allows(origin: origins[0], port: port) || allowedCORSOrigin(head) != nil {
        return nil
      }
      if origins.count == 1,
        backend.webSocketAllowedOrigins(for: request).contains(where: { $0 == "*" || $0 == origins[0] })
      {
        return nil
      }
      let shown = String(
        origins.joined(separator: ", ").filter { (0x20...0x7E).contains($0.asciiValue ?? 0) }.prefix(200))
      return
        "The WebSocket upgrade comes from a web page at \(shown), which is not this server's own origin, and browsers let any page open a WebSocket: it is refused. Start doppel serve with --cors \(shown) (StubServer.Configuration.corsOrigins) to let that page connect, as it lets it read the stubs' answers, or give this WebSocket stub the header Access-Control-Allow-Origin: \(shown) in the manifest."
    }

    private func decide(
      _ playback: FrontDoorPlayback, request: Request, target: String, backend: Backend
    ) -> NIOHTTP1.HTTPHeaders? {
      guard isActive, let (script, fields) = playback.webSocket else {
        resolvedAhead = (playback, request, backend)
        return nil
      }
      if let problem = fields.unsendableField {
        // Not upgraded: NIO passes the request on, and it is answered with the problem.
        resolvedAhead = (playback, request, backend)
        upgradeProblem = problem
        return nil
      }
      if let report = core.configuration.onRequest {
        report(
          ServedRequest(
            request: request, target: target, stub: playback.stub, status: 101, outcome: "upgraded to WebSocket"))
      }
      upgrade = WebSocketUpgrade(
        script: script, url: request.url, backend: backend,
        idleTimeout: TimeAmount(saturating: core.configuration.webSocketIdleTimeout),
        pongTimeout: TimeAmount(saturating: core.configuration.webSocketPongTimeout))
      var headers = NIOHTTP1.HTTPHeaders()
      for field in fields { headers.add(name: field.name, value: field.value) }
      return headers
    }

    /// NIO sent the `101` and put the WebSocket frame codec in place: this handler leaves the
    /// pipeline to the conversation.
    func startWebSocket(channel: any Channel) -> EventLoopFuture<Void> {
      guard let upgrade else { return channel.close() }
      self.upgrade = nil
      state = .closing
      let operations = channel.pipeline.syncOperations
      return operations.removeHandler(self).flatMapThrowing {
        try channel.pipeline.syncOperations.addHandler(
          NIOWebSocketFrameAggregator(
            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1_000,
            maxAccumulatedFrameSize: WebSocketConversationHandler.maximumMessageSize))
        try channel.pipeline.syncOperations.addHandler(WebSocketConversationHandler(upgrade))
      }
    }
  }
#endif
