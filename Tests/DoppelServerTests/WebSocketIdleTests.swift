#if Server
  import TestSupport
  import Doppel
  @_spi(Fuzzing) import DoppelServer
  import NIOCore
  import NIOEmbedded
  import Testing

  /// A WebSocket conversation's idle and ping timeout, on one connection's pipeline on an
  /// `EmbeddedChannel` with time moved by hand.
  @Suite struct WebSocketIdleTests {
    private static let handshake =
      "GET /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

    /// An upgraded connection, its 101 and greeting read; idle timeout 60 s, pong timeout 10 s.
    private func conversation() throws -> (EmbeddedChannel, Backend) {
      let backend = quietBackend()
      backend.stub(.get("/chat"), .webSocket(onConnect: [.send(.text("hi"))], on: [.on(.text("a"), reply: .text("b"))]))
      var configuration = StubServer.Configuration()
      configuration.webSocketIdleTimeout = .seconds(60)
      configuration.webSocketPongTimeout = .seconds(10)
      // Far shorter HTTP timeouts, which stop at the upgrade.
      configuration.idleTimeout = .seconds(1)
      configuration.headerTimeout = .seconds(1)
      let channel = EmbeddedChannel()
      try StubServer.configureConnection(channel, serving: backend, configuration: configuration)
      try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
      try send(Array(Self.handshake.utf8), on: channel)
      let upgrade = try written(by: channel)
      #expect(String(decoding: upgrade, as: UTF8.self).hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
      #expect(upgrade.suffix(4) == [0x81, 0x02, UInt8(ascii: "h"), UInt8(ascii: "i")])
      return (channel, backend)
    }

    private func send(_ bytes: [UInt8], on channel: EmbeddedChannel) throws {
      try channel.writeInbound(channel.allocator.buffer(bytes: bytes))
      channel.embeddedEventLoop.run()
    }

    private func written(by channel: EmbeddedChannel) throws -> [UInt8] {
      var bytes: [UInt8] = []
      while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
      return bytes
    }

    /// A masked client frame, payload under 126 bytes.
    private func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
      let mask: [UInt8] = [9, 8, 7, 6]
      return [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask
        + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    private static let ping: [UInt8] = [0x89, 0x06] + Array("doppel".utf8)

    @Test func anUpgradedConnectionHasNoHTTPIdleOrHeaderTimeout() throws {
      let (channel, _) = try conversation()
      // Silent for thirty times the HTTP timeouts: the conversation stays open, unpinged.
      channel.embeddedEventLoop.advanceTime(by: .seconds(30))
      #expect(try written(by: channel).isEmpty)
      #expect(channel.isActive)
      try send(frame(opcode: 0x1, Array("a".utf8)), on: channel)
      #expect(try written(by: channel) == [0x81, 0x01, UInt8(ascii: "b")])
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func anIdleConversationIsPingedThenClosedWith1001() throws {
      let (channel, backend) = try conversation()
      // Past the HTTP timeouts: nothing happens.
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(59_999))
      #expect(try written(by: channel).isEmpty)
      #expect(channel.isActive)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      #expect(try written(by: channel) == Self.ping)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
      #expect(try written(by: channel).isEmpty)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      let close = try written(by: channel)
      #expect(close.prefix(4) == [0x88, UInt8(close.count - 2), 0x03, 0xE9])
      #expect(
        String(decoding: close.dropFirst(4), as: UTF8.self) == "No frame for 60 seconds and no answer to a ping.")
      #expect(backend.webSocketEvents.last?.closeCode == 1001)
      // A client that answered no ping will not answer the close either: the connection closes.
      channel.embeddedEventLoop.run()
      #expect(!channel.isActive)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aConversationThatAnswersThePingStaysOpen() throws {
      let (channel, _) = try conversation()
      channel.embeddedEventLoop.advanceTime(by: .seconds(60))
      #expect(try written(by: channel) == Self.ping)
      channel.embeddedEventLoop.advanceTime(by: .seconds(5))
      try send(frame(opcode: 0xA, Array("doppel".utf8)), on: channel)
      // The pong counts as a frame: no close, and the next ping a whole idle timeout after it.
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(59_999))
      #expect(try written(by: channel).isEmpty)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      #expect(try written(by: channel) == Self.ping)
      #expect(channel.isActive)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func messagesEitherWayKeepAConversationFromIdling() throws {
      let (channel, _) = try conversation()
      for _ in 0..<5 {
        channel.embeddedEventLoop.advanceTime(by: .seconds(50))
        try send(frame(opcode: 0x1, Array("a".utf8)), on: channel)
        #expect(try written(by: channel) == [0x81, 0x01, UInt8(ascii: "b")])
      }
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(59_999))
      #expect(try written(by: channel).isEmpty)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      #expect(try written(by: channel) == Self.ping)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }
  }
#endif
