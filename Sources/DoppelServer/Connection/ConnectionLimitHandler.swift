#if Server
  import NIOCore

  /// Holds the number of open connections at ``StubServer/Configuration/maximumConnections``: a
  /// handler on the listening channel that stops accepting at the limit and accepts again when a
  /// connection closes. Meanwhile new connections wait in the system's listen queue, as they do
  /// with nginx or Apache at their limits.
  ///
  /// The listening channel accepts one connection per read (`maxMessagesPerRead` 1), so the count
  /// is checked before every accept and never overshoots. A closed connection leaves the server's
  /// ``ConnectionRegistry`` before the listening channel may accept again, so
  /// ``StubServer/openConnectionCount`` never shows more than the limit either.
  final class ConnectionLimitHandler: ChannelDuplexHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = Never

    private let limit: Int
    private let registry: ConnectionRegistry
    private var open = 0
    private var readPending = false

    init(limit: Int, registry: ConnectionRegistry) {
      self.limit = limit
      self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let connection = unwrapInboundIn(data)
      open += 1
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      let boundContext = context.loopBound
      let eventLoop = context.eventLoop
      let registry = self.registry
      connection.closeFuture.whenComplete { _ in
        registry.remove(connection)
        eventLoop.execute { handler.value.connectionClosed(context: boundContext.value) }
      }
      context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
      if open >= limit {
        readPending = true
      } else {
        context.read()
      }
    }

    private func connectionClosed(context: ChannelHandlerContext) {
      open -= 1
      if readPending && open < limit && context.channel.isActive {
        readPending = false
        context.read()
      }
    }
  }
#endif
