#if Server
  import Doppel
  import NIOCore

  /// Sheds clients that hold a connection without using it: the first handler of a connection's
  /// pipeline, in front of the HTTP decoder, so that it sees every byte as it arrives.
  ///
  /// `StubHTTPHandler` tells it where the connection is (waiting for a request, reading a body,
  /// answering); it keeps one timer running and, when a deadline passes:
  /// - waiting for a request with nothing of it received (``StubServer/Configuration/idleTimeout``
  ///   after the connection opened or the previous response ended): closes the connection silently;
  /// - a request head started but not finished (``StubServer/Configuration/headerTimeout`` after
  ///   its first byte, in total) or a body that paused (``StubServer/Configuration/bodyTimeout``
  ///   since the last read): answers `408 Request Timeout` with `Connection: close`, drops what
  ///   arrives after, and closes.
  ///
  /// Time is the event loop's (`EventLoop.now`), so that an embedded event loop controls it.
  ///
  /// While a response is planned or played there is no deadline: the server's own slowness (a
  /// delayed stub, `Response.never`) is not the client's fault.
  ///
  /// The 408 is written here, as bytes, rather than through the HTTP encoder: a head cut off mid-way
  /// was never delivered as a request, and NIO's pipelining handler refuses a response to a request
  /// it has not seen.
  final class ReadTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase {
      /// No byte of a request yet, since this time.
      case waitingForRequest(since: NIODeadline)
      /// Reading a request head whose first byte came at this time.
      case readingHead(since: NIODeadline)
      /// The head is in; reading the body.
      case readingBody
      /// A response is planned or played: no deadline.
      case answering
      /// Timed out: everything that arrives is dropped.
      case timedOut
    }

    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let lingerTime: TimeAmount
    private var phase = Phase.waitingForRequest(since: .now())
    private var lastRead = NIODeadline.now()
    private var timer: Scheduled<Void>?
    private var timerDue = NIODeadline.distantFuture
    private var context: ChannelHandlerContext?

    init(configuration: StubServer.Configuration, lingerTime: TimeAmount) {
      headerTimeout = TimeAmount(saturating: configuration.headerTimeout)
      bodyTimeout = TimeAmount(saturating: configuration.bodyTimeout)
      idleTimeout = TimeAmount(saturating: configuration.idleTimeout)
      self.lingerTime = lingerTime
    }

    // MARK: Where the connection is (called by StubHTTPHandler, on the event loop)

    /// The connection waits for its next request: the idle timeout runs from now.
    func waitForRequest() {
      phase = .waitingForRequest(since: context?.eventLoop.now ?? .now())
      check()
    }

    /// A request head was delivered: its body (if any) is read next.
    func readBody() {
      phase = .readingBody
    }

    /// The request is complete, or the connection is answering it or closing on its own: no
    /// deadline until ``waitForRequest()``.
    func answer() {
      if case .timedOut = phase { return }
      phase = .answering
    }

    /// Whether the connection timed out (and answered 408 or closed).
    var hasTimedOut: Bool {
      if case .timedOut = phase { return true }
      return false
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
      self.context = context
      if context.channel.isActive { waitForRequest() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
      cancelTimer()
      self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
      waitForRequest()
      context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
      cancelTimer()
      phase = .timedOut
      context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      if case .timedOut = phase { return }
      let now = context.eventLoop.now
      lastRead = now
      if case .waitingForRequest = phase { phase = .readingHead(since: now) }
      context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
      check()
      context.fireChannelReadComplete()
    }

    // MARK: Deadlines

    /// Acts on a deadline that passed, or makes sure the timer fires by the next one.
    private func check() {
      guard let context, context.channel.isActive else { return }
      let now = context.eventLoop.now
      let due: NIODeadline
      switch phase {
      case .waitingForRequest(let since):
        due = since + idleTimeout
        if now >= due {
          phase = .timedOut
          cancelTimer()
          context.close(promise: nil)
          return
        }
      case .readingHead(let since):
        due = since + headerTimeout
        if now >= due {
          timeOut(
            "The request head did not arrive within \(headerTimeout.secondsDescription), the header timeout. Send the whole head at once, or raise the timeout (StubServer.Configuration.headerTimeout, doppel serve --header-timeout).",
            context: context)
          return
        }
      case .readingBody:
        due = lastRead + bodyTimeout
        if now >= due {
          timeOut(
            "The request body stopped arriving: nothing came for \(bodyTimeout.secondsDescription), the body timeout. Check that Content-Length is the size of the body sent, send the body without pauses, or raise the timeout (StubServer.Configuration.bodyTimeout, doppel serve --body-timeout).",
            context: context)
          return
        }
      case .answering, .timedOut:
        return
      }
      // One timer at a time: an earlier one already running checks again when it fires.
      if timer != nil && timerDue <= due { return }
      cancelTimer()
      timerDue = due
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      timer = context.eventLoop.scheduleTask(deadline: due) {
        let handler = handler.value
        handler.timer = nil
        handler.timerDue = .distantFuture
        handler.check()
      }
    }

    private func cancelTimer() {
      timer?.cancel()
      timer = nil
      timerDue = .distantFuture
    }

    /// Sends `bytes` as they are (past the HTTP encoder: a fault's bytes are not a valid response),
    /// then closes the connection. Nothing more is read.
    func sendRawThenClose(_ bytes: [UInt8]) {
      guard let context else { return }
      phase = .timedOut
      cancelTimer()
      let boundContext = context.loopBound
      context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
        boundContext.value.close(promise: nil)
      }
    }

    /// Answers 408 and closes: the output at once, the connection when the client stops sending
    /// or after the linger time (closing with unread input would reset the connection, and the
    /// client could lose the answer).
    private func timeOut(_ text: String, context: ChannelHandlerContext) {
      phase = .timedOut
      cancelTimer()
      let body = text + "\n"
      let head =
        "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
      var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.utf8.count)
      buffer.writeString(head)
      buffer.writeString(body)
      let boundContext = context.loopBound
      let lingerTime = lingerTime
      context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
        let context = boundContext.value
        context.close(mode: .output, promise: nil)
        context.eventLoop.scheduleTask(in: lingerTime) { boundContext.value.close(promise: nil) }
      }
    }
  }

  extension TimeAmount {
    /// `duration` in nanoseconds, the largest amount for a duration too long to count (never
    /// trapping), zero for a negative one.
    init(saturating duration: Duration) {
      let (seconds, attoseconds) = duration.components
      guard seconds >= 0 else {
        self = .zero
        return
      }
      let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
      let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
      self = overflow || overflowAgain ? .nanoseconds(.max) : .nanoseconds(max(0, total))
    }

    /// The amount in seconds, for messages: `30 seconds`, `0.25 seconds`, `1 second`.
    var secondsDescription: String {
      let milliseconds = nanoseconds / 1_000_000
      if milliseconds == 1_000 { return "1 second" }
      if milliseconds.isMultiple(of: 1_000) { return "\(milliseconds / 1_000) seconds" }
      return "\(Double(milliseconds) / 1_000) seconds"
    }
  }
#endif
