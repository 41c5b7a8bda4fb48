#if Server
  import NIOCore

  /// Stops reading from a connection while it is not writable: a client that sends requests and
  /// never reads the answers (pipelining 8 MiB downloads, say) gets no further request read, and so
  /// none answered, until it reads what was sent. With `StubHTTPHandler` writing bodies in pieces
  /// as the channel can take them, what a connection holds stays near the channel's write buffer
  /// high water mark (64 KiB by default), whatever the client does.
  ///
  /// A connection that stays unwritable for ``StubServer/Configuration/idleTimeout`` (its client
  /// read nothing for that long) is closed, so that it does not hold a connection slot forever.
  ///
  /// The first handler of a connection's pipeline, so that it sees the reads every handler behind
  /// it asks for. On the event loop only, as every channel handler.
  final class BackPressureHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    private let stallTimeout: TimeAmount
    /// A read was asked for while the channel was not writable: it is made when it becomes so.
    private var readPending = false
    /// Closes the connection when the channel stays unwritable too long.
    private var stallTimer: Scheduled<Void>?

    init(stallTimeout: TimeAmount) {
      self.stallTimeout = stallTimeout
    }

    func read(context: ChannelHandlerContext) {
      if context.channel.isWritable {
        context.read()
      } else {
        readPending = true
      }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
      if context.channel.isWritable {
        stallTimer?.cancel()
        stallTimer = nil
        if readPending {
          readPending = false
          context.read()
        }
      } else if stallTimer == nil {
        let boundContext = context.loopBound
        stallTimer = context.eventLoop.scheduleTask(in: stallTimeout) {
          boundContext.value.close(promise: nil)
        }
      }
      context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
      stallTimer?.cancel()
      stallTimer = nil
      context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
      stallTimer?.cancel()
      stallTimer = nil
    }
  }
#endif
