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
    /// A connection serving `POST /upload`, `GET /ok` and `GET /slow` (5 seconds late), with the
    /// timeouts given.
    private func connection(
      header: Duration, body: Duration, idle: Duration = .seconds(60)
    ) throws -> (EmbeddedChannel, Backend) {
      let backend = quietBackend()
      backend.stub(.post("/upload"), .text("stored"))
      backend.stub(.get("/ok"), .text("ok"))
      backend.stub(.get("/slow"), Response.text("late").delayed(by: .seconds(5)))
      var configuration = StubServer.Configuration()
      configuration.headerTimeout = header
      configuration.bodyTimeout = body
      configuration.idleTimeout = idle
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

    @Test func aHalfSentHeadGetsA408() throws {
      let (channel, backend) = try connection(header: .milliseconds(300), body: .seconds(30))
      try send("GET /ok HTTP/1.1\r\nHost: x\r\n", on: channel)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(299))
      #expect(try written(by: channel).isEmpty)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      let answer = try written(by: channel)
      #expect(answer.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
      #expect(answer.contains("\r\nConnection: close\r\n"))
      #expect(
        answer.hasSuffix(
          "\r\n\r\nThe request head did not arrive within 0.3 seconds, the header timeout. Send the whole head at once, or raise the timeout (StubServer.Configuration.headerTimeout, doppel serve --header-timeout).\n"
        ))
      // The server stops sending, and closes once the client has had time to read the answer.
      channel.embeddedEventLoop.advanceTime(by: .seconds(2))
      #expect(!channel.isActive)
      #expect(backend.requests.isEmpty)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aConnectionNeverUsedIsClosedSilentlyAfterTheIdleTimeout() throws {
      let (channel, _) = try connection(header: .seconds(30), body: .seconds(30), idle: .seconds(5))
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(4_999))
      #expect(channel.isActive)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      #expect(!channel.isActive)
      #expect(try written(by: channel).isEmpty)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aConnectionKeptAliveAfterAnAnswerIsClosedSilentlyAfterTheIdleTimeout() throws {
      let (channel, _) = try connection(header: .seconds(30), body: .seconds(30), idle: .seconds(5))
      try send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n", on: channel)
      #expect(try written(by: channel).hasSuffix("\r\n\r\nok"))
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(4_999))
      #expect(channel.isActive)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      #expect(!channel.isActive)
      #expect(try written(by: channel).isEmpty)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aSlowAnswerIsNotTheClientsFault() throws {
      // The answer takes longer than the header and body timeouts; the idle timeout runs after it.
      let (channel, _) = try connection(header: .seconds(3), body: .seconds(3), idle: .seconds(10))
      try send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", on: channel)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(4_999))
      #expect(try written(by: channel).isEmpty)
      #expect(channel.isActive)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      let answer = try written(by: channel)
      #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(answer.hasSuffix("\r\n\r\nlate"))
      // The idle timeout starts from the answer.
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
      #expect(channel.isActive)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      #expect(!channel.isActive)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }
  }
#endif
