#if Server
  import TestSupport
  import Doppel
  @_spi(Fuzzing) import DoppelServer
  import NIOCore
  import NIOEmbedded
  import Testing

  /// The read timeouts on the event loop's own clock: one connection's pipeline on an
  /// `EmbeddedChannel`, time moved by hand, so that what is measured is the rule and not how
  /// loaded the machine running the tests is.
  @Suite struct VirtualTimeoutTests {
    /// A connection serving `POST /upload`, with the header and body timeouts given.
    private func connection(header: Duration, body: Duration) throws -> (EmbeddedChannel, Backend) {
      let backend = quietBackend()
      backend.stub(.post("/upload"), .text("stored"))
      var configuration = StubServer.Configuration()
      configuration.headerTimeout = header
      configuration.bodyTimeout = body
      let channel = EmbeddedChannel()
      try StubServer.configureConnection(channel, serving: backend, configuration: configuration)
      try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
      return (channel, backend)
    }

    private func send(_ text: String, on channel: EmbeddedChannel) throws {
      try channel.writeInbound(channel.allocator.buffer(string: text))
      channel.embeddedEventLoop.run()
    }

    /// Everything the server wrote so far, as text.
    private func written(by channel: EmbeddedChannel) throws -> String {
      var text = ""
      while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
        text += String(buffer: buffer)
      }
      return text
    }

    @Test func aSlowButSteadyUploadIsNotCutOff() throws {
      // 35 bytes one second apart: 35 seconds, far beyond both 2-second timeouts, while no pause
      // reaches the body timeout, which runs from the last read.
      let (channel, backend) = try connection(header: .seconds(2), body: .seconds(2))
      try send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 35\r\n\r\n", on: channel)
      for _ in 0..<35 {
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(try written(by: channel).isEmpty)
        try send("z", on: channel)
      }
      let answer = try written(by: channel)
      #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(answer.hasSuffix("\r\n\r\nstored"))
      #expect(backend.requests.map { $0.body?.count } == [35])
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aPauseAsLongAsTheBodyTimeoutGetsA408() throws {
      let (channel, backend) = try connection(header: .seconds(2), body: .seconds(2))
      try send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 35\r\n\r\nabc", on: channel)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_999))
      #expect(try written(by: channel).isEmpty)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      let answer = try written(by: channel)
      #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
      #expect(
        answer.hasSuffix(
          "\r\n\r\nThe request body stopped arriving: nothing came for 2 seconds, the body timeout. Check that Content-Length is the size of the body sent, send the body without pauses, or raise the timeout (StubServer.Configuration.bodyTimeout, doppel serve --body-timeout).\n"
        ))
      #expect(backend.requests.isEmpty)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }
  }
#endif
