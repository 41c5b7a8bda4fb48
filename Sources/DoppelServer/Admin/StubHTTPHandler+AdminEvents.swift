#if Server
  import Doppel
  import NIOCore
  import NIOHTTP1

  /// The dashboard's stream of changes on one connection.
  struct AdminEventFeed {
    /// The summary last sent (``AdminController/changeSummary(_:)``).
    var lastSummary: String
    /// When the stream last sent anything, for the keep-alive comment.
    var lastWrite: NIODeadline
  }

  extension StubHTTPHandler {
    /// How often the stream compares the summary with the one it sent.
    static let adminEventsInterval = TimeAmount.milliseconds(250)
    /// The longest the stream stays silent: then it sends a comment, so that proxies and clients
    /// see the connection alive.
    static let adminEventsKeepAlive = TimeAmount.seconds(15)

    /// Answers `GET events` with a server-sent event stream: at once an `event: changed` with the
    /// summary of the server's state, then another each time the summary differs (checked every
    /// ``adminEventsInterval`` on the connection's event loop), and a `: keep-alive` comment after
    /// ``adminEventsKeepAlive`` of silence.
    ///
    /// The stream is a response being played: the idle timeout does not run (`ReadTimeoutHandler`
    /// has no deadline while the server answers), the connection counts against the connection
    /// limit as any other, nothing is written while the client does not read (the channel is not
    /// writable; `BackPressureHandler` closes the connection if that lasts), and it ends when the
    /// connection closes or the server shuts down.
    ///
    /// At most ``ServerCore/maximumEventStreams`` streams are open at once (a quarter of the
    /// connection limit); one more gets a `503` saying so, so that the other connections stay
    /// free for stubs and the admin API.
    func startAdminEvents(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
      guard core.takeEventStream() else {
        let limit = core.maximumEventStreams
        let answer = AdminController.Answer(
          status: 503,
          body: [
            "error": .string(
              "This server already serves \(limit) event \(limit == 1 ? "stream" : "streams") (GET \(core.admin.settings.pathPrefix ?? "/")events), the most it keeps open: a quarter of its \(core.configuration.maximumConnections) connections, so that the others stay free for requests. Close a dashboard tab or another stream, or raise --max-connections."
            )
          ], headers: [("Retry-After", "5")])
        writeAdmin(answer, for: head, context: context)
        return
      }
      // Nothing can follow the stream on its connection: it closes when the stream ends.
      keepAlive = false
      headSent = false
      var headers = NIOHTTP1.HTTPHeaders()
      headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
      headers.add(name: "Cache-Control", value: "no-store")
      headers.add(name: "X-Content-Type-Options", value: "nosniff")
      let summary = core.admin.changeSummary(core.backend)
      // Set before anything is written: a write that fails closes the connection at once, and the
      // place is given back when the feed is there to say it was taken.
      adminEvents = AdminEventFeed(lastSummary: summary, lastWrite: context.eventLoop.now)
      writeHead(200, headers, context: context)
      writeAdminEvents("retry: 2000\n" + Self.changedEvent(summary), context: context)
      guard isActive else { return }
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      let boundContext = context.loopBound
      pending = .repeated(
        context.eventLoop.scheduleRepeatedTask(
          initialDelay: Self.adminEventsInterval, delay: Self.adminEventsInterval
        ) { _ in
          handler.value.checkAdminEvents(context: boundContext.value)
        })
    }

    /// Sends an event when the summary changed, a comment when the stream was silent too long.
    private func checkAdminEvents(context: ChannelHandlerContext) {
      guard isActive, var feed = adminEvents else { return }
      // A client that does not read gets nothing more until it does: what waits to be sent stays
      // bounded, and the next check after it reads sends the latest summary.
      guard context.channel.isWritable else { return }
      let now = context.eventLoop.now
      let summary = core.admin.changeSummary(core.backend)
      if summary != feed.lastSummary {
        writeAdminEvents(Self.changedEvent(summary), context: context)
        feed.lastSummary = summary
        feed.lastWrite = now
      } else if now - feed.lastWrite >= Self.adminEventsKeepAlive {
        writeAdminEvents(": keep-alive\n\n", context: context)
        feed.lastWrite = now
      }
      adminEvents = feed
    }

    /// Ends the stream (the server shuts down): the end of the body, then the connection closes.
    func endAdminEvents(context: ChannelHandlerContext) {
      pending?.cancel()
      pending = nil
      if adminEvents != nil { core.releaseEventStream() }
      adminEvents = nil
      end(context)
    }

    private func writeAdminEvents(_ text: String, context: ChannelHandlerContext) {
      let buffer = context.channel.allocator.buffer(string: text)
      context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
    }

    /// `event: changed` with `summary` (one line of JSON) as its data.
    static func changedEvent(_ summary: String) -> String {
      "event: changed\ndata: \(summary)\n\n"
    }
  }
#endif
