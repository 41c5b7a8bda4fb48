#if Server
  import TestSupport
  import Doppel
  @_spi(Fuzzing) import DoppelServer
  import Foundation
  import NIOCore
  import NIOEmbedded
  import Testing

  /// Write back-pressure, on one connection's pipeline on an `EmbeddedChannel`: a ``FakeSocket`` at
  /// the front of the pipeline takes the bytes the server writes and turns the channel unwritable
  /// past a high water mark, as a socket whose peer does not read does; the test "reads" by
  /// draining it. Nothing here waits on real time.
  @Suite struct BackPressureTests {
    /// What a socket does with writes, as far as back-pressure goes: holds written bytes until the
    /// test drains them, and says the channel is not writable while it holds more than
    /// `highWaterMark` bytes.
    final class FakeSocket: ChannelOutboundHandler {
      typealias OutboundIn = IOData
      typealias OutboundOut = IOData

      let highWaterMark: Int
      /// Bytes written since the last drain.
      var held = 0
      /// The largest single write.
      var largestWrite = 0
      /// Reads that reached the socket.
      var reads = 0

      init(highWaterMark: Int) { self.highWaterMark = highWaterMark }

      func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = unwrapOutboundIn(data).readableBytes
        held += bytes
        largestWrite = max(largestWrite, bytes)
        context.write(data, promise: promise)
        if held > highWaterMark, let channel = context.channel as? EmbeddedChannel, channel.isWritable {
          channel.isWritable = false
          context.fireChannelWritabilityChanged()
        }
      }

      func read(context: ChannelHandlerContext) {
        reads += 1
        context.read()
      }
    }

    /// A connection serving `backend`, with a ``FakeSocket`` of a 64 KiB high water mark (NIO's
    /// default) in front.
    private func connection(
      _ backend: Backend, configuration: StubServer.Configuration = StubServer.Configuration()
    ) throws -> (EmbeddedChannel, FakeSocket) {
      let channel = EmbeddedChannel()
      try StubServer.configureConnection(channel, serving: backend, configuration: configuration)
      let socket = FakeSocket(highWaterMark: 64 * 1024)
      try channel.pipeline.syncOperations.addHandler(socket, position: .first)
      try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
      return (channel, socket)
    }

    private func send(_ text: String, on channel: EmbeddedChannel) throws {
      try channel.writeInbound(channel.allocator.buffer(string: text))
      channel.embeddedEventLoop.run()
    }

    /// The client reads everything written so far: the bytes, and the channel writable again.
    private func drain(_ channel: EmbeddedChannel, _ socket: FakeSocket) throws -> [UInt8] {
      var bytes: [UInt8] = []
      while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
        bytes += buffer.readableBytesView
      }
      socket.held = 0
      if !channel.isWritable {
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.run()
      }
      return bytes
    }

    private static let megabyte = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    @Test func aClientThatDoesNotReadStopsTheServerReadingAndAnswering() throws {
      let backend = quietBackend()
      backend.stub(.get("/big"), .data(Self.megabyte))
      let (channel, socket) = try connection(backend)
      // Three pipelined downloads of 1 MiB each, in one packet.
      try send(String(repeating: "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", count: 3), on: channel)

      // The first answer stops at the high water mark: what waits for the client is one piece
      // past it, not the megabyte, and the next requests are not answered (nor journaled).
      #expect(!channel.isWritable)
      #expect(socket.held <= 64 * 1024 + 64 * 1024 + 1024)
      #expect(backend.requests.count == 1)

      // The client reads: the server goes on, a piece at a time.
      var received: [UInt8] = []
      for _ in 0..<1_000 {
        if backend.requests.count == 3 && channel.isWritable { break }
        received += try drain(channel, socket)
        #expect(socket.held <= 64 * 1024 + 64 * 1024 + 1024)
        if backend.requests.count == 1 {
          // The second request waits until the first answer is out.
          #expect(received.count < Self.megabyte.count)
        }
      }
      received += try drain(channel, socket)
      #expect(backend.requests.count == 3)
      #expect(socket.largestWrite <= 64 * 1024)

      // Three whole answers, in order.
      let head = Array("HTTP/1.1 200 OK\r\n".utf8)
      var answers = 0
      var rest = received[...]
      while let start = rest.firstRange(of: Array("\r\n\r\n".utf8)) {
        #expect(rest.starts(with: head))
        let body = rest[start.upperBound...].prefix(Self.megabyte.count)
        #expect(Data(body) == Self.megabyte)
        answers += 1
        rest = rest[(start.upperBound + Self.megabyte.count)...]
      }
      #expect(answers == 3)
      #expect(rest.isEmpty)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func nothingIsReadFromAClientThatDoesNotReadWhatWasSent() throws {
      let backend = quietBackend()
      // 64 KiB and a head: past the high water mark in one answer.
      backend.stub(.get("/medium"), .data(Self.megabyte.prefix(64 * 1024)))
      let (channel, socket) = try connection(backend)
      try send("GET /medium HTTP/1.1\r\nHost: x\r\n\r\n", on: channel)
      #expect(!channel.isWritable)
      let readsBefore = socket.reads
      channel.read()
      channel.embeddedEventLoop.run()
      #expect(socket.reads == readsBefore)
      // The client reads what was sent: the read held back is made.
      let received = try drain(channel, socket)
      #expect(received.count > 64 * 1024)
      #expect(socket.reads == readsBefore + 1)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    /// A file body the server keeps in memory (up to 1 MiB; a larger one is sent from disk, on a
    /// real event loop: `FileBodyStreamingTests`).
    @Test func aFileBodyIsWrittenInPiecesAsTheClientReads() throws {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      let file = directory.appendingPathComponent("big.bin")
      var contents = Self.megabyte
      contents.replaceSubrange(contents.count - 3..<contents.count, with: [1, 2, 3])
      try contents.write(to: file)
      let backend = quietBackend()
      backend.stub(.get("/file"), .file(file))
      let (channel, socket) = try connection(backend)
      try send("GET /file HTTP/1.1\r\nHost: x\r\n\r\n", on: channel)
      var received: [UInt8] = []
      for _ in 0..<1_000 {
        if channel.isWritable && !received.isEmpty { break }
        #expect(socket.held <= 64 * 1024 + 64 * 1024 + 1024)
        received += try drain(channel, socket)
      }
      received += try drain(channel, socket)
      #expect(socket.largestWrite <= 64 * 1024)
      let end = try #require(received.firstRange(of: Array("\r\n\r\n".utf8)))
      #expect(String(decoding: received[..<end.lowerBound], as: UTF8.self).contains("Content-Length: 1048576"))
      #expect(Data(received[end.upperBound...]) == contents)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }

    @Test func aClientThatReadsNothingForTheIdleTimeoutIsClosed() throws {
      let backend = quietBackend()
      backend.stub(.get("/big"), .data(Self.megabyte))
      var configuration = StubServer.Configuration()
      configuration.idleTimeout = .seconds(5)
      let (channel, _) = try connection(backend, configuration: configuration)
      try send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n", on: channel)
      #expect(!channel.isWritable)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(4_999))
      #expect(channel.isActive)
      channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
      #expect(!channel.isActive)
      _ = try channel.finish(acceptAlreadyClosed: true)
    }
  }
#endif
