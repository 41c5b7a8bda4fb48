import Doppel
@_spi(Fuzzing) import DoppelServer
import Foundation
import NIOCore
import NIOEmbedded

/// The backend a connection answers with (a new one each time, so that no journal grows): a few
/// stubs of each kind the server plays back without a task of its own (no closures, no delays on
/// another clock), so that everything runs on the embedded event loop.
private func makeBackend() -> Backend {
  let backend = Backend(issueReporter: .ignore)
  backend.stub(.get("/ok"), .text("ok"))
  backend.stub(.post("/items") && .jsonBody(containing: ["name": "a"]), .json(["id": 1], status: 201))
  backend.stub(.path("/users/{id}"), .json(raw: #"{"id": 7}"#))
  backend.stub(.header("X-Mode", "chunked") && .path("/feed"), .text("aabbccdd").chunked(size: 2, every: .seconds(1)))
  backend.stub(.path("/slow"), .text("slow").throttled(bytesPerSecond: 4))
  backend.stub(.path("/drop"), .text("0123456789").droppingConnection(afterBytes: 3))
  backend.stub(.path("/reset"), .fault(.connectionReset))
  backend.stub(.path("/never"), .never)
  backend.stub(.path("/redirect"), .redirect(to: "/ok"))
  backend.stub(.path(glob: "/files/*"), .status(204))
  backend.stub(
    .get("/chat"),
    .webSocket(
      onConnect: [.send(.text("welcome"))],
      on: [
        .on(.text("ping"), reply: .text("pong")),
        .on(.regex("^echo "), do: [.send(.text("echoed")), .send(.binary(Data([1, 2, 3])))]),
        .on(.json(containing: ["type": "bye"]), do: [.close(code: 1001, reason: "bye")]),
        .on(.text("drop"), do: [.drop()]),
      ]))
  return backend
}

/// Small limits and timeouts, so that inputs reach them.
private let configuration: StubServer.Configuration = {
  var configuration = StubServer.Configuration()
  configuration.maximumHeadSize = 2_048
  configuration.maximumBodySize = 4_096
  configuration.headerTimeout = .seconds(2)
  configuration.bodyTimeout = .seconds(2)
  configuration.idleTimeout = .seconds(5)
  return configuration
}()

/// One input: the bytes a client sends on one connection, in two reads (the first byte of the
/// input chooses where to split), with time passing between and after them so that timeouts,
/// pacing and lingering closes run. Nothing the client sends may crash the server.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServer(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
  let channel = EmbeddedChannel()
  do {
    try StubServer.configureConnection(channel, serving: makeBackend(), configuration: configuration)
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
  } catch {
    fatalError("The fuzz harness could not set up a connection: \(error)")
  }
  let split = bytes.isEmpty ? 0 : min(bytes.count, 1 + Int(bytes[0]) % max(1, bytes.count))
  for part in [bytes[..<split], bytes[split...]] where !part.isEmpty && channel.isActive {
    _ = try? channel.writeInbound(channel.allocator.buffer(bytes: part))
    channel.embeddedEventLoop.run()
    channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_500))
    drain(channel)
  }
  channel.embeddedEventLoop.advanceTime(by: .seconds(30))
  drain(channel)
  _ = try? channel.finish(acceptAlreadyClosed: true)
  return 0
}

/// Reads and drops what the server wrote.
private func drain(_ channel: EmbeddedChannel) {
  while (try? channel.readOutbound(as: ByteBuffer.self)) != nil {}
  while (try? channel.readInbound(as: ByteBuffer.self)) != nil {}
}
