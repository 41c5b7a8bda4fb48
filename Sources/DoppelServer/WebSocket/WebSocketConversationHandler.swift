#if Server
  import Doppel
  import Foundation
  import NIOCore
  import NIOWebSocket

  /// Plays a ``WebSocketScript`` on an upgraded connection: the greeting, a reply for each client
  /// message a rule matches, pongs for pings, and the closing handshake. Every message in and out
  /// is recorded in the backend's `webSocketEvents`.
  ///
  /// Actions run one after the other, each after its delay on the backend's clock (the event loop's
  /// timer for the continuous clock, a task sleeping on any other).
  ///
  /// A conversation with no frame either way for ``StubServer/Configuration/webSocketIdleTimeout``
  /// gets a ping; when nothing comes back within ``StubServer/Configuration/webSocketPongTimeout``
  /// the server sends a close frame with code 1001 and closes the connection, so that an abandoned conversation gives its connection
  /// slot back. That timer runs on the event loop's clock, whatever the backend's.
  final class WebSocketConversationHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The largest message a client may send (1 MiB, FoundationNetworking's default too).
    static let maximumMessageSize = 1 << 20
    /// How long the server waits for the client's close frame after sending its own.
    static let closeTimeout = TimeAmount.seconds(2)

    private let script: WebSocketScript
    private let url: URL
    private let backend: Backend
    private var connection = 0
    private var queue: [WebSocketAction] = []
    private var waitedForNext = false
    private var pending: PendingWork?
    /// The server sent its close frame (or dropped the connection): nothing more is sent.
    private var closing = false
    private var context: ChannelHandlerContext?
    private let idleTimeout: TimeAmount
    private let pongTimeout: TimeAmount
    /// When the last frame was read or written.
    private var lastFrame = NIODeadline.now()
    /// When the server pinged an idle conversation, until any frame comes back.
    private var pingedAt: NIODeadline?
    private var idleTimer: Scheduled<Void>?

    init(_ upgrade: WebSocketUpgrade) {
      script = upgrade.script
      url = upgrade.url
      backend = upgrade.backend
      idleTimeout = upgrade.idleTimeout
      pongTimeout = upgrade.pongTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
      self.context = context
      connection = backend.nextWebSocketConnection()
      sawFrame()
      perform(script.onConnect)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
      pending?.cancel()
      pending = nil
      idleTimer?.cancel()
      idleTimer = nil
      self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
      pending?.cancel()
      pending = nil
      idleTimer?.cancel()
      idleTimer = nil
      closing = true
      context.fireChannelInactive()
    }

    // MARK: Idle conversations

    /// A frame went either way: the conversation is not idle, and a ping was answered.
    private func sawFrame() {
      guard let context else { return }
      lastFrame = context.eventLoop.now
      pingedAt = nil
      if idleTimer == nil { scheduleIdleCheck(at: lastFrame + idleTimeout) }
    }

    private func scheduleIdleCheck(at deadline: NIODeadline) {
      guard let context else { return }
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      idleTimer = context.eventLoop.scheduleTask(deadline: deadline) {
        handler.value.idleTimer = nil
        handler.value.checkIdle()
      }
    }

    /// Pings a conversation idle for the idle timeout; closes one whose ping went unanswered for
    /// the pong timeout; otherwise checks again when the next of those is due.
    private func checkIdle() {
      guard let context, context.channel.isActive, !closing else { return }
      let now = context.eventLoop.now
      if let pingedAt {
        guard now < pingedAt + pongTimeout else {
          sendClose(
            code: 1001,
            reason: "No frame for \(idleTimeout.secondsDescription) and no answer to a ping.",
            waitingForAnswer: false)
          return
        }
        scheduleIdleCheck(at: pingedAt + pongTimeout)
        return
      }
      guard now >= lastFrame + idleTimeout else {
        scheduleIdleCheck(at: lastFrame + idleTimeout)
        return
      }
      pingedAt = now
      let payload = context.channel.allocator.buffer(string: "doppel")
      context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: payload)), promise: nil)
      scheduleIdleCheck(at: now + pongTimeout)
    }

    // MARK: Frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let frame = unwrapInboundIn(data)
      sawFrame()
      switch frame.opcode {
      case .text:
        guard let text = String(bytes: frame.unmaskedData.readableBytesView, encoding: .utf8) else {
          sendClose(code: 1007, reason: "The text message is not valid UTF-8.")
          return
        }
        received(.text(text))
      case .binary:
        received(.binary(Data(frame.unmaskedData.readableBytesView)))
      case .ping:
        guard !closing else { return }
        context.writeAndFlush(
          wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
      case .connectionClose:
        var bytes = frame.unmaskedData
        let code = bytes.readInteger(as: UInt16.self)
        let reason = bytes.readString(length: bytes.readableBytes) ?? ""
        backend.record(
          WebSocketEvent(connection: connection, url: url, isFromClient: true, closeCode: code, reason: reason))
        if closing {
          context.close(promise: nil)
        } else {
          // Echo the client's close, then close the connection.
          closing = true
          queue = []
          pending?.cancel()
          pending = nil
          let frame = closeFrame(code: code, reason: "", allocator: context.channel.allocator)
          let boundContext = context.loopBound
          context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in boundContext.value.close(promise: nil) }
        }
      default:
        break
      }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      // A malformed frame (NIO's protocol error handler answered it) or an I/O error.
      context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
      if event is ServerShutdownEvent || event is ChannelShouldQuiesceEvent {
        sendClose(code: 1001, reason: "The server is shutting down.")
        return
      }
      context.fireUserInboundEventTriggered(event)
    }

    // MARK: The script

    private func received(_ message: WebSocketMessage) {
      backend.record(WebSocketEvent(connection: connection, url: url, isFromClient: true, message: message))
      guard !closing else { return }
      perform(script.actions(for: message))
    }

    private func perform(_ actions: [WebSocketAction]) {
      guard !actions.isEmpty, !closing else { return }
      let idle = queue.isEmpty
      queue.append(contentsOf: actions)
      if idle { advance() }
    }

    /// Performs actions until one needs a wait (scheduled) or none is left.
    private func advance() {
      guard let context else { return }
      while !queue.isEmpty && !closing {
        let action = queue[0]
        if action.delay > .zero && !waitedForNext {
          waitedForNext = true
          // What was sent before the wait goes out now, not with the next action after it.
          context.flush()
          schedule(after: action.delay, context: context)
          return
        }
        waitedForNext = false
        queue.removeFirst()
        act(action, context: context)
      }
      context.flush()
    }

    private func act(_ action: WebSocketAction, context: ChannelHandlerContext) {
      switch action.kind {
      case .send(let message):
        let buffer = context.channel.allocator.buffer(bytes: message.data)
        let frame = WebSocketFrame(fin: true, opcode: message.isBinary ? .binary : .text, data: buffer)
        context.write(wrapOutboundOut(frame), promise: nil)
        lastFrame = context.eventLoop.now
        backend.record(WebSocketEvent(connection: connection, url: url, isFromClient: false, message: message))
      case .close(let code, let reason):
        sendClose(code: code, reason: reason)
      case .drop:
        closing = true
        queue = []
        backend.record(.drop(connection: connection, url: url))
        context.flush()
        context.close(promise: nil)
      }
    }

    /// Sends a close frame, then closes the connection when the client answers it or after
    /// ``closeTimeout``; at once when `waitingForAnswer` is `false` (a client that answered no
    /// ping will not answer the close either).
    private func sendClose(code: UInt16, reason: String, waitingForAnswer: Bool = true) {
      guard let context, !closing else { return }
      closing = true
      queue = []
      pending?.cancel()
      pending = nil
      backend.record(
        WebSocketEvent(connection: connection, url: url, isFromClient: false, closeCode: code, reason: reason))
      let written = context.writeAndFlush(
        wrapOutboundOut(closeFrame(code: code, reason: reason, allocator: context.channel.allocator)))
      let boundContext = context.loopBound
      guard waitingForAnswer else {
        written.whenComplete { _ in boundContext.value.close(promise: nil) }
        return
      }
      pending = .scheduled(
        context.eventLoop.scheduleTask(in: Self.closeTimeout) { boundContext.value.close(promise: nil) })
    }

    private func closeFrame(code: UInt16?, reason: String, allocator: ByteBufferAllocator) -> WebSocketFrame {
      var buffer = allocator.buffer(capacity: 2 + reason.utf8.count)
      if let code {
        buffer.writeInteger(code)
        // A control frame carries at most 125 bytes.
        buffer.writeBytes(reason.utf8.prefix(123))
      }
      return WebSocketFrame(fin: true, opcode: .connectionClose, data: buffer)
    }

    /// Waits on the event loop's timer when the backend runs on the continuous clock, otherwise in a
    /// task sleeping on the backend's clock (a `ManualClock` in tests).
    private func schedule(after wait: Duration, context: ChannelHandlerContext) {
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      let eventLoop = context.eventLoop
      if backend.clock is ContinuousClock {
        pending = .scheduled(
          eventLoop.scheduleTask(in: TimeAmount(saturating: wait)) {
            handler.value.resume()
          })
        return
      }
      let backend = backend
      pending = .task(
        Task {
          guard await backend.sleepOnClock(for: wait) else { return }
          eventLoop.execute { handler.value.resume() }
        })
    }

    private func resume() {
      pending = nil
      advance()
    }
  }
#endif
