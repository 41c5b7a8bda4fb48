#if Server
  import Doppel
  import Foundation
  import NIOCore
  import NIOHTTP1
  import NIOWebSocket

  /// One connection's front door: reads a request (within the size limits), asks the backend for a
  /// plan, and plays it back (see `StubHTTPHandler+Playback.swift`).
  ///
  /// NIO's `HTTPServerPipelineHandler` sits in front, so requests pipelined on the connection reach
  /// this handler one at a time, each after the previous response ended.
  final class StubHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    enum State {
      /// Waiting for a request head.
      case idle
      /// Reading a request's body.
      case receiving(HTTPRequestHead, ByteBuffer?)
      /// Planning or playing a response.
      case answering
      /// A response that never comes: the connection stays open and silent until the client or
      /// shutdown closes it.
      case silent
      /// Done with the connection: everything that arrives is dropped until it closes.
      case closing
    }

    /// Which of the server's listeners a connection came in on.
    enum Listener {
      /// The server's port: stubs, and the admin API unless it has a port of its own.
      case main
      /// The admin API's own port (``StubServer/AdminAPI/port``): the admin API only.
      case admin
    }

    let core: ServerCore
    let listener: Listener
    /// The connection's deadlines, told where the connection is.
    let timeouts: ReadTimeoutHandler
    var state = State.idle
    var isActive = true
    /// The server is shutting down: NIO's pipelining handler takes no new response.
    var shuttingDown = false

    // The response being played.
    var version = HTTPVersion.http1_1
    var keepAlive = true
    var backend: Backend?
    var beats: [FrontDoorPlayback.Beat] = []
    var nextBeat = 0
    var waitedForNextBeat = false
    var headSent = false
    /// The steps of the current beat not performed yet.
    var remainingSteps: ArraySlice<FrontDoorPlayback.Step> = []
    /// Body bytes being written, from ``unsentOffset`` on (see `writeUnsentBody`).
    var unsentBody: Data?
    var unsentOffset = 0
    /// A file body being sent from disk (see `StubHTTPHandler+FileBody.swift`).
    var unsentFile: UnsentFile?
    /// The body waits for the channel to become writable again.
    var awaitingWritability = false
    /// A request that arrived complete while the channel was not writable: it is answered when the
    /// client has read enough of what was sent before.
    var deferredRequest: (head: HTTPRequestHead, body: ByteBuffer?)?
    /// Which answer a scheduled resumption belongs to; a stale one is ignored.
    var generation = 0
    var pending: PendingWork?
    /// A WebSocket upgrade granted, until NIO performs it (see `StubHTTPHandler+WebSocket.swift`).
    var upgrade: WebSocketUpgrade?
    /// A request resolved when it asked to upgrade but was not upgraded: played as its answer when
    /// NIO passes the request on, so that it is resolved (and journaled) once.
    var resolvedAhead: (playback: FrontDoorPlayback, request: Request, backend: Backend)?
    /// Why the WebSocket upgrade resolved ahead was refused when its `101` head cannot be sent:
    /// answered with a `500` instead.
    var upgradeProblem: String?
    /// Why a WebSocket upgrade was refused before it was resolved (a foreign `Origin`): answered
    /// with a `403` when NIO passes the request on.
    var upgradeRefusal: String?
    /// The request's `Origin` when ``StubServer/Configuration/corsOrigins`` lets it read the
    /// answer: the answer's head names it (see `StubHTTPHandler+CORS.swift`).
    var corsOrigin: String?
    /// The dashboard's event stream, while this connection serves it (see
    /// `StubHTTPHandler+AdminEvents.swift`).
    var adminEvents: AdminEventFeed?
    /// Whether the answer being written is the admin API's or the dashboard's, which alone are not
    /// sandboxed (see ``stubPageSandbox``).
    var answeringAdmin = false

    /// The `Content-Security-Policy` of every answer on a port that serves the admin API beside the
    /// stubs, except the admin API's and the dashboard's own: what a stub, cassette, proxy or
    /// document serves cannot reach the admin API, though it comes from the same host and port.
    ///
    /// Why it holds: a browser runs a document sent with `sandbox` and without `allow-same-origin`
    /// in an opaque origin of its own, whatever its URL. Its `fetch` and form posts to
    /// `/__doppel/…` are then cross-origin requests that carry `Origin: null` and
    /// `Sec-Fetch-Site: cross-site`, which the admin API refuses (and it sends no CORS fields, so
    /// no answer could be read anyway). Without `allow-popups` it cannot open the dashboard in a
    /// window (`window.open` gives `null`, a `target=_blank` link or form does nothing); a frame it
    /// makes inherits the sandbox, so a dashboard in a frame runs in an opaque origin too and is
    /// refused in turn; navigating itself to the dashboard ends its own script. Two policies are
    /// both enforced, so a stub's own `Content-Security-Policy` cannot lift this one. Scripts,
    /// forms, dialogs and downloads stay allowed, so pages still work as pages; what they lose
    /// is their origin (storage, cookies, same-origin reads). A user serving a web app that needs
    /// those gives the admin API a port of its own (``StubServer/AdminAPI/port``, `--admin-port`)
    /// or turns it off: the stubs' port then carries no admin API, and no sandbox.
    static let stubPageSandbox = "sandbox allow-scripts allow-forms allow-modals allow-downloads"

    /// Whether answers on this connection carry ``stubPageSandbox``: on the main port while the
    /// admin API shares it.
    var sandboxesStubPages: Bool {
      listener == .main && core.admin.settings.pathPrefix != nil && core.admin.settings.port == nil
    }

    /// How long a rejected connection keeps reading (and dropping) what the client still sends, so
    /// that the client sees the error response rather than a reset.
    static let lingerTime = TimeAmount.seconds(2)

    /// The largest piece of a body written at once: 64 KiB. A larger body is written a piece at a
    /// time while the channel is writable, so that what waits to be sent to a client that does not
    /// read stays near the channel's write buffer high water mark.
    static let bodyChunkSize = 64 * 1024

    init(core: ServerCore, listener: Listener = .main, timeouts: ReadTimeoutHandler) {
      self.core = core
      self.listener = listener
      self.timeouts = timeouts
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        guard case .idle = state else { return }
        corsOrigin = nil
        answeringAdmin = false
        timeouts.readBody()
        version = head.version
        let hosts = head.headers["host"].count
        if hosts > 1 {
          // Which one counts is a guess that a proxy in front and this server could make apart.
          reject(
            400,
            "The request has \(hosts) Host header fields; HTTP/1.1 allows exactly one (RFC 9112 §3.2). Send a single Host field, such as Host: 127.0.0.1:\(context.channel.localAddress?.port ?? 80).",
            context: context)
          return
        }
        let limit = core.configuration.maximumBodySize
        if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > limit {
          reject(
            413, "The request body is \(length) bytes; this server accepts at most \(limit) bytes.", context: context)
          return
        }
        if head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" }) {
          context.writeAndFlush(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
        }
        state = .receiving(head, nil)
      case .body(var part):
        guard case .receiving(let head, var body) = state else { return }
        let limit = core.configuration.maximumBodySize
        guard (body?.readableBytes ?? 0) + part.readableBytes <= limit else {
          reject(413, "The request body is larger than \(limit) bytes, the most this server accepts.", context: context)
          return
        }
        state = .answering  // let go of the buffer so that appending does not copy it
        if body == nil {
          body = part
        } else {
          body!.writeBuffer(&part)
        }
        state = .receiving(head, body)
      case .end:
        guard case .receiving(let head, let body) = state else { return }
        state = .answering
        timeouts.answer()
        guard context.channel.isWritable else {
          // The client is not reading what was sent before (a pipelining client that never reads):
          // no new answer is made until it does.
          deferredRequest = (head, body)
          return
        }
        dispatch(head, body: body, context: context)
      }
    }

    /// Answers a complete request: the admin API, a CORS preflight, or the stubs.
    private func dispatch(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
      switch listener {
      case .admin:
        guard core.admin.owns(head.uri) else { return answerNotAdmin(head, context: context) }
        answerAdmin(head, body: body, context: context)
      case .main:
        if core.admin.settings.port == nil && core.admin.owns(head.uri) {
          answeringAdmin = true
          return answerAdmin(head, body: body, context: context)
        }
        corsOrigin = allowedCORSOrigin(head)
        if corsOrigin != nil && isPreflight(head) { return answerPreflight(head, context: context) }
        answer(head, body: body, context: context)
      }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
      defer { context.fireChannelWritabilityChanged() }
      guard isActive, context.channel.isWritable, case .answering = state else { return }
      if let deferred = deferredRequest {
        deferredRequest = nil
        dispatch(deferred.head, body: deferred.body, context: context)
      } else if awaitingWritability {
        awaitingWritability = false
        advance(context)
      }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      if case .closing = state { return }
      // An upgrade refused (no WebSocket stub, or no valid key): NIO passes the request on as HTTP.
      if error is NIOWebSocketUpgradeError { return }
      guard context.channel.isActive, !shuttingDown, !timeouts.hasTimedOut else {
        // A head cut off by the close, by shutdown or after a 408: there is no one to answer.
        close(context)
        return
      }
      guard let parserError = error as? HTTPParserError else {
        // An I/O error (the peer reset the connection, say): nothing more can be sent.
        close(context)
        return
      }
      if headSent || { if case .answering = state { return true } else { return false } }() {
        close(context)
      } else if parserError == .headerOverflow {
        reject(
          431,
          "The request head is larger than \(core.configuration.maximumHeadSize) bytes, the most this server accepts.",
          context: context)
      } else {
        reject(400, "The request is not valid HTTP/1.1 (\(parserError)).", context: context)
      }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
      if event is ServerShutdownEvent {
        shuttingDown = true
        if case .silent = state { close(context) }
        if adminEvents != nil { endAdminEvents(context: context) }
        return
      }
      context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
      isActive = false
      state = .closing
      pending?.cancel()
      pending = nil
      if adminEvents != nil { core.releaseEventStream() }
      adminEvents = nil
      unsentBody = nil
      unsentFile = nil
      deferredRequest = nil
      context.fireChannelInactive()
    }

    // MARK: Answering

    private func answer(_ head: HTTPRequestHead, body: ByteBuffer?, context: ChannelHandlerContext) {
      // After a request that asked to switch protocols and is answered here instead (no WebSocket
      // stub, another protocol, a refused handshake), NIO's parser reads no further request: the
      // connection closes after the answer, so a request sent behind it fails at once rather than
      // waiting for the connection's timeout.
      keepAlive = head.isKeepAlive && !head.asksToSwitchProtocols
      headSent = false
      if let refusal = upgradeRefusal {
        upgradeRefusal = nil
        if let report = core.configuration.onRequest,
          let request = core.request(for: head, body: nil, backend: core.backend)
        {
          report(
            ServedRequest(
              request: request, target: head.uri, stub: nil, status: 403,
              outcome: "refused: a WebSocket upgrade from another origin (--cors allows one)"))
        }
        respond(403, refusal, context: context)
        return
      }
      if let ahead = resolvedAhead {
        resolvedAhead = nil
        backend = ahead.backend
        generation += 1
        if let problem = upgradeProblem {
          upgradeProblem = nil
          core.configuration.onRequest?(
            ServedRequest(
              request: ahead.request, target: head.uri, stub: ahead.playback.stub, status: 500,
              outcome: "a header of the stub cannot be sent"))
          respond(500, problem, context: context)
          return
        }
        play(ahead.playback, request: ahead.request, target: head.uri, context: context)
        return
      }
      let backend = core.backend
      self.backend = backend
      guard let request = core.request(for: head, body: body, backend: backend) else {
        keepAlive = false
        respond(
          400, "The request target \"\(head.uri)\" is not a URL path (it should start with /) or an absolute http URL.",
          context: context)
        return
      }
      if let refusal = forwardingRefusal(head, request: request, backend: backend) {
        core.configuration.onRequest?(
          ServedRequest(
            request: request, target: head.uri, stub: nil, status: 403,
            outcome: "refused: forwarded only for a loopback Host or one --allow-host names"))
        respond(403, refusal, context: context)
        return
      }
      generation += 1
      switch backend.frontDoorPlan(for: request, unmatchedStatus: core.configuration.unmatchedStatus) {
      case .now(let playback):
        play(playback, request: request, target: head.uri, context: context)
      case .later(let work):
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let boundContext = context.loopBound
        let eventLoop = context.eventLoop
        let expected = generation
        let target = head.uri
        pending = .task(
          Task {
            let playback = await work()
            eventLoop.execute {
              let handler = handler.value
              guard handler.isActive, handler.generation == expected else { return }
              handler.pending = nil
              handler.play(playback, request: request, target: target, context: boundContext.value)
            }
          })
      }
    }

    /// Why a request that would reach an upstream (through `doppel record` or a proxying stub) is
    /// refused, or `nil` when it may: its `Host` is not a loopback name or address, nor one the user
    /// allowed (``StubServer/AdminAPI/allowedHosts``), as the admin API requires.
    ///
    /// A page whose own name an attacker made resolve to 127.0.0.1 (DNS rebinding) is the server's
    /// origin to the browser, so it could read what the upstream answers (a service only this
    /// computer reaches) and have it written into a cassette; its requests carry its name in
    /// `Host`. A request in absolute form (`GET http://api.example.com/x`) is exempt: only a client
    /// configured to use this server as its HTTP proxy sends one, never a page's `fetch`. Plain
    /// stubs answer whatever the `Host`: they serve only what the user wrote, and devices and
    /// emulators reach them by other names (`10.0.2.2`, a LAN name).
    private func forwardingRefusal(_ head: HTTPRequestHead, request: Request, backend: Backend) -> String? {
      guard head.uri.hasPrefix("/"), let value = head.headers.first(name: "host") else { return nil }
      if let host = AdminController.hostName(value), core.admin.allows(host: host) { return nil }
      guard backend.wouldForward(request) else { return nil }
      let shown = String(
        (AdminController.hostName(value) ?? value).filter { (0x21...0x7E).contains($0.asciiValue ?? 0) }.prefix(100))
      return
        "This request would be sent on to an upstream (doppel record, or a proxying stub), and this server forwards only requests whose Host is a loopback name or address (localhost, 127.0.0.1, [::1]) or one it allows; this one's is \(shown). A web page can make its own name resolve to this computer (DNS rebinding) and read the upstream's answers through it. Send the request to 127.0.0.1, or start doppel with --allow-host \(shown) (StubServer.AdminAPI.allowedHosts) to allow that name."
    }

    // MARK: Ending

    /// Answers with a plain-text body (an error of the server's own, or the near-miss report).
    func respond(
      _ status: Int, _ text: String, extraHeaders: [(String, String)] = [], lingering: Bool = false,
      context: ChannelHandlerContext
    ) {
      var headers = NIOHTTP1.HTTPHeaders()
      headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
      for (name, value) in extraHeaders { headers.add(name: name, value: value) }
      var body = context.channel.allocator.buffer(capacity: text.utf8.count + 1)
      body.writeString(text)
      body.writeString("\n")
      headers.add(name: "Content-Length", value: String(body.readableBytes))
      writeHead(status, headers, context: context)
      context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
      end(context, lingering: lingering)
    }

    /// Writes a response head, with `Connection` saying whether the connection stays open.
    func writeHead(_ status: Int, _ headers: NIOHTTP1.HTTPHeaders, context: ChannelHandlerContext) {
      writeHead(HTTPResponseStatus(statusCode: status), headers, closes: headers.asksToClose, context: context)
    }

    /// Writes a response head; `closes` says whether `headers` ask to close the connection.
    func writeHead(
      _ status: HTTPResponseStatus, _ headers: NIOHTTP1.HTTPHeaders, closes: Bool, context: ChannelHandlerContext
    ) {
      var headers = headers
      if let corsOrigin { addCORS(corsOrigin, to: &headers) }
      if !answeringAdmin && sandboxesStubPages {
        headers.add(name: "Content-Security-Policy", value: Self.stubPageSandbox)
      }
      if closes { keepAlive = false }
      if !keepAlive {
        headers.replaceOrAdd(name: "Connection", value: "close")
      } else if version.major == 1 && version.minor == 0 {
        headers.replaceOrAdd(name: "Connection", value: "keep-alive")
      }
      headSent = true
      let head = HTTPResponseHead(version: version, status: status, headers: headers)
      context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Ends the response: the connection is ready for the next request, or closes. `lingering`
    /// closes it after the client stops sending (see ``reject(_:_:context:)``).
    func end(_ context: ChannelHandlerContext, lingering: Bool = false) {
      beats = []
      remainingSteps = []
      unsentBody = nil
      unsentOffset = 0
      unsentFile = nil
      awaitingWritability = false
      headSent = false
      if keepAlive && !lingering {
        state = .idle
        // Before the write: it may deliver a pipelined request at once.
        timeouts.waitForRequest()
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
      } else if lingering {
        state = .closing
        timeouts.answer()
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        closeWhenClientStops(context)
      } else {
        state = .closing
        timeouts.answer()
        let boundContext = context.loopBound
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
          boundContext.value.close(promise: nil)
        }
      }
    }

    /// Refuses a request with `status` and closes the connection once the client stops sending.
    func reject(_ status: Int, _ text: String, context: ChannelHandlerContext) {
      if headSent {
        close(context)
        return
      }
      keepAlive = false
      respond(status, text, lingering: true, context: context)
    }

    /// Stops sending and keeps reading (and dropping) what the client still sends, then closes
    /// when it closes or after ``lingerTime``: closing at once with unread data would reset the
    /// connection, and the client could lose the error response.
    private func closeWhenClientStops(_ context: ChannelHandlerContext) {
      let boundContext = context.loopBound
      context.close(mode: .output, promise: nil)
      context.eventLoop.scheduleTask(in: Self.lingerTime) {
        boundContext.value.close(promise: nil)
      }
    }

    /// Closes the connection.
    func close(_ context: ChannelHandlerContext) {
      state = .closing
      context.close(promise: nil)
    }

    /// Resets the connection: the client sees `ECONNRESET` instead of a response.
    func reset(_ context: ChannelHandlerContext) {
      state = .closing
      let boundContext = context.loopBound
      guard let provider = context.channel as? any SocketOptionProvider else {
        context.close(promise: nil)
        return
      }
      provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
        boundContext.value.close(promise: nil)
      }
    }
  }

  /// Work scheduled for a connection: a timer on its event loop, a task sleeping on the
  /// backend's clock, or the repeated check of the dashboard's event stream.
  enum PendingWork {
    case scheduled(Scheduled<Void>)
    case task(Task<Void, Never>)
    case repeated(RepeatedTask)

    func cancel() {
      switch self {
      case .scheduled(let scheduled): scheduled.cancel()
      case .task(let task): task.cancel()
      case .repeated(let task): task.cancel()
      }
    }
  }
#endif
