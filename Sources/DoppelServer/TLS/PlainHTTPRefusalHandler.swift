#if TLS
  import NIOCore

  /// Answers a plain-HTTP request sent to an HTTPS server with a readable 400 instead of a failed
  /// handshake: the first handler of each connection when the server speaks TLS, it looks at the
  /// connection's first byte. A TLS handshake starts with 0x16 and goes on to NIO's TLS handler
  /// (this handler then leaves the pipeline); a request line starts with a letter, and gets
  /// `400 Bad Request` in plain text naming the `https://` URL, and the connection closes.
  final class PlainHTTPRefusalHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// `host:port` the server listens on, for the message.
    private let authority: @Sendable () -> String
    private var refused = false

    init(authority: @escaping @Sendable () -> String) {
      self.authority = authority
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      guard !refused else { return }
      let buffer = unwrapInboundIn(data)
      guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first)
      else {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        return
      }
      refused = true
      let message = "This server speaks HTTPS: send the request to https://\(authority())/ instead.\n"
      let head =
        "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(message.utf8.count)\r\nConnection: close\r\n\r\n"
      let answer = context.channel.allocator.buffer(string: head + message)
      let channel = context.channel
      context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
    }
  }
#endif
