#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// WebSocket stubs on the stub server: the scripted conversation, its journal and its faults.
  @Suite(.timeLimit(.minutes(1))) struct WebSocketTests {
    static let chat = Response.webSocket(
      onConnect: [.send(.text("welcome"))],
      on: [
        .on(.text("ping"), reply: .text("pong")),
        .on(.regex("^echo "), do: [.send(.text("echoed")), .send(.binary(Data([1, 2, 3])))]),
        .on(.json(containing: ["type": "bye"]), do: [.close(code: 1001, reason: "see you")]),
        .on(.text("crash"), do: [.drop()]),
      ])

    @Test func urlSessionWebSocketTaskTalksToTheScript() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chat"), Self.chat)
      try await withStubServer(backend) { server in
        let url = URL(string: "ws://127.0.0.1:\(server.port)/chat")!
        let task = realSession.webSocketTask(with: url)
        task.resume()
        guard let greeting = try await receiveUnlessLibcurlLacksWebSockets(task, backend: backend) else { return }
        #expect(greeting.text == "welcome")
        try await task.send(.string("ping"))
        #expect(try await task.receive().text == "pong")
        try await task.send(.string("echo this"))
        #expect(try await task.receive().text == "echoed")
        #expect(try await task.receive().data == Data([1, 2, 3]))
        try await task.send(.string(#"{"type": "bye", "id": 7}"#))
        await #expect(throws: (any Error).self) { try await task.receive() }
        #expect(task.closeCode == .goingAway)
        #expect(task.closeReason == Data("see you".utf8))

        // The upgrade request is journaled like any request, the messages in the events.
        #expect(backend.requests.count == 1)
        let entry = try #require(backend.journal.first)
        #expect(entry.request.url.path == "/chat")
        #expect(entry.response?.status == 101)
        #expect(entry.response?.webSocketScript != nil)
        #expect(
          backend.webSocketEvents.map(\.description) == [
            #"#1 server → text "welcome""#,
            #"#1 client → text "ping""#,
            #"#1 server → text "pong""#,
            #"#1 client → text "echo this""#,
            #"#1 server → text "echoed""#,
            "#1 server → binary, 3 bytes",
            #"#1 client → text "{\"type\": \"bye\", \"id\": 7}""#,
            #"#1 server → close 1001 "see you""#,
          ])
      }
    }

    @Test func theServerDropsTheConnectionMidConversation() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chat"), Self.chat)
      try await withStubServer(backend) { server in
        let connection = try await WebSocketClient.connect(port: server.port, path: "/chat")
        defer { connection.raw.close() }
        #expect(try await connection.readFrame() == .text("welcome"))
        try await connection.send(text: "crash")
        // No close frame: the connection just ends.
        let (bytes, end) = try await connection.raw.readUntilEnd()
        #expect(bytes.isEmpty)
        #expect(end == .closed)
        #expect(backend.webSocketEvents.last?.isDrop == true)
        #expect(backend.webSocketEvents.last?.description == "#1 server dropped the connection")
      }
    }

    @Test func aURLSessionClientSeesTheDropAsAnError() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chat"), Self.chat)
      try await withStubServer(backend) { server in
        let task = realSession.webSocketTask(with: URL(string: "ws://127.0.0.1:\(server.port)/chat")!)
        task.resume()
        guard let greeting = try await receiveUnlessLibcurlLacksWebSockets(task, backend: backend) else { return }
        #expect(greeting.text == "welcome")
        try await task.send(.string("crash"))
        await #expect(throws: (any Error).self) { try await task.receive() }
        #expect(backend.webSocketEvents.last?.isDrop == true)
      }
    }

    @Test func repliesWaitOnTheBackendsClock() async throws {
      let clock = ManualClock()
      let backend = quietBackend(clock: clock)
      backend.stub(
        .get("/slow"),
        .webSocket(on: [.on(.any, reply: .text("later"), after: .seconds(30))]))
      try await withStubServer(backend) { server in
        let connection = try await WebSocketClient.connect(port: server.port, path: "/slow")
        defer { connection.raw.close() }
        try await connection.send(text: "hello")
        await clock.waitForSleepers()
        #expect(backend.webSocketEvents.count == 1)
        clock.advance(by: .seconds(30))
        #expect(try await connection.readFrame() == .text("later"))
      }
    }

    @Test func theClientsCloseIsAnsweredAndRecorded() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chat"), Self.chat)
      try await withStubServer(backend) { server in
        let connection = try await WebSocketClient.connect(port: server.port, path: "/chat")
        defer { connection.raw.close() }
        #expect(try await connection.readFrame() == .text("welcome"))
        try await connection.sendClose(code: 1000, reason: "done")
        #expect(try await connection.readFrame() == .close(1000))
        let (_, end) = try await connection.raw.readUntilEnd()
        #expect(end == .closed)
        #expect(backend.webSocketEvents.last?.description == #"#1 client → close 1000 "done""#)
      }
    }

    @Test func aManifestScriptIsPlayedByTheServer() async throws {
      let json = """
        {"stubs": [{"request": "/feed", "response": {"websocket": {
          "onConnect": [{"json": {"type": "hello"}}],
          "on": [
            {"json": {"type": "subscribe"}, "reply": [{"send": "subscribed"}, {"close": {"code": 1008, "reason": "no"}}]}
          ]
        }}}]}
        """
      let manifest = try Manifest(data: Data(json.utf8), url: URL(fileURLWithPath: "/project/doppel.json"))
      let backend = try Backend(manifest: manifest, issueReporter: .ignore)
      try await withStubServer(backend) { server in
        let connection = try await WebSocketClient.connect(port: server.port, path: "/feed")
        defer { connection.raw.close() }
        #expect(try await connection.readFrame() == .text(#"{"type":"hello"}"#))
        try await connection.send(text: #"{"type": "subscribe", "topic": "cats"}"#)
        #expect(try await connection.readFrame() == .text("subscribed"))
        #expect(try await connection.readFrame() == .close(1008))
      }
    }

    /// A manifest's script, as a client meets it: the greeting at once and the delayed one on the
    /// backend's clock, each reply to the message it answers, each close with its code, and a drop
    /// after its delay (one conversation per ending).
    @Test func aManifestsChatScriptIsPlayedAsWritten() async throws {
      let clock = ManualClock()
      let manifest = try Manifest(
        data: Data(chatScriptManifest.utf8), url: URL(fileURLWithPath: "/project/doppel.json"))
      let backend = try Backend(manifest: manifest, issueReporter: .ignore, clock: clock)
      try await withStubServer(backend) { server in
        func greeted() async throws -> WebSocketClient {
          let connection = try await WebSocketClient.connect(port: server.port, path: "/chat")
          // At once: the greeting does not wait for the delayed one after it.
          #expect(try await connection.readFrame() == .text("welcome"))
          await clock.waitForSleepers()
          clock.advance(by: .milliseconds(249))
          #expect(clock.sleeperCount == 1)
          clock.advance(by: .milliseconds(1))
          #expect(try await connection.readFrame() == .text(#"{"type":"hello"}"#))
          return connection
        }

        let chat = try await greeted()
        defer { chat.raw.close() }
        try await chat.send(text: "ping")
        #expect(try await chat.readFrame() == .text("pong"))
        try await chat.send(text: "echo me")
        #expect(try await chat.readFrame() == .binary([1, 2, 3]))
        try await chat.send(text: #"{"type": "bye", "at": 3}"#)
        #expect(try await chat.readFrame() == .close(4000))

        let quit = try await greeted()
        defer { quit.raw.close() }
        try await quit.send(text: "quit")
        #expect(try await quit.readFrame() == .close(1000))

        let dropped = try await greeted()
        defer { dropped.raw.close() }
        try await dropped.send(binary: [9])
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        // No close frame: the connection just ends.
        let (bytes, end) = try await dropped.raw.readUntilEnd()
        #expect(bytes.isEmpty)
        #expect(end == .closed)
        #expect(backend.webSocketEvents.last?.description == "#3 server dropped the connection")
      }
    }

    /// The HTTP timeouts stop at the upgrade; the conversation has its own idle timeout
    /// (``StubServer/Configuration/webSocketIdleTimeout``, tested on virtual time in
    /// `WebSocketIdleTests`), far longer here.
    @Test func aClientThatDoesNotUpgradeGets426() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chat"), Self.chat)
      let expected =
        "This endpoint speaks WebSocket only: connect with a WebSocket client (Upgrade: websocket) through the stub server (DoppelServer), which plays the stub's script."
      try await withStubServer(backend) { server in
        let (body, response) = try await fetch(server.url("/chat"))
        #expect(response.statusCode == 426)
        #expect(response.value(forHTTPHeaderField: "Upgrade") == "websocket")
        #expect(body == expected)
      }
      // The URLSession door answers the same.
      let (data, response) = try await backend.session.data(from: URL(string: "http://127.0.0.1/chat")!)
      #expect((response as? HTTPURLResponse)?.statusCode == 426)
      #expect(String(decoding: data, as: UTF8.self) == expected)
    }

    @Test func anUpgradeNoWebSocketStubAnswersIsServedAsHTTPAndJournaledOnce() async throws {
      let backend = quietBackend()
      backend.stub(.get("/plain"), .text("just HTTP"))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        defer { connection.close() }
        try await connection.send(WebSocketClient.handshake(path: "/plain"))
        let response = try #require(try await connection.readResponse())
        #expect(response.head.hasPrefix("HTTP/1.1 200 OK"))
        #expect(response.body == "just HTTP")
        #expect(backend.requests.count == 1)
        #expect(backend.webSocketEvents.isEmpty)
      }
    }

    /// A request that names `Upgrade: websocket` without `upgrade` in `Connection` is not an upgrade
    /// for the HTTP parser, which goes on to parse a request pipelined behind it. NIO's upgrader
    /// still asks to upgrade it; the server used to agree, and the upgrade handed that parsed request
    /// to the WebSocket frame decoder, which crashed the process (found by FuzzServer). Now the
    /// server refuses, and both requests are answered as plain HTTP, in order.
    @Test func anUpgradeWithoutConnectionUpgradeIsServedAsHTTP() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chat"), Self.chat)
      backend.stub(.get("/next"), .text("next"))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        defer { connection.close() }
        try await connection.send(
          "GET /chat HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: keep-alive\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            + "GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let first = try #require(try await connection.readResponse())
        #expect(first.head.hasPrefix("HTTP/1.1 426 Upgrade Required"))
        let second = try #require(try await connection.readResponse())
        #expect(second.head.hasPrefix("HTTP/1.1 200 OK"))
        #expect(second.body == "next")
        #expect(backend.requests.map(\.path) == ["/chat", "/next"])
        #expect(backend.webSocketEvents.isEmpty)
      }
    }

    /// NIO's HTTP parser reads nothing more on a connection after a request that asks to switch
    /// protocols (`Connection: Upgrade` with an `Upgrade`), even when the switch is refused: the
    /// server answers that request and closes, so a request sent behind it fails at once instead
    /// of waiting for the connection's timeout.
    @Test(arguments: ["websocket", "h2c"])
    func aRefusedUpgradeClosesTheConnectionAfterItsAnswer(upgrade: String) async throws {
      let backend = quietBackend()
      backend.stub(.get("/plain"), .text("plain"))
      backend.stub(.get("/next"), .text("next"))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        defer { connection.close() }
        // An answer that must come, and a close that follows it at once: the bound is only for a
        // server that never answers, and leaves room for a loaded machine (5 s ran out in CI
        // beside a build).
        connection.setReadTimeout(.seconds(30))
        try await connection.send(
          "GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: \(upgrade)\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            + "GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let first = try #require(try await connection.readResponse())
        #expect(first.head.hasPrefix("HTTP/1.1 200 OK"))
        #expect(first.head.lowercased().contains("\r\nconnection: close\r\n"))
        #expect(first.body == "plain")
        let rest = try await connection.readUntilEnd()
        #expect(rest.end == .closed)
        #expect(rest.bytes.isEmpty)
        #expect(backend.requests.map(\.path) == ["/plain"])
      }
    }

    @Test func anUpgradeToTheAdminAPIIsNotAStub() async throws {
      let backend = quietBackend()
      backend.stub(.path(glob: "/**"), Self.chat)
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        defer { connection.close() }
        try await connection.send(WebSocketClient.handshake(path: "/__doppel/journal"))
        let response = try #require(try await connection.readResponse())
        #expect(!response.head.hasPrefix("HTTP/1.1 101"))
        #expect(backend.requests.isEmpty)
        // As after any upgrade answered as HTTP: the connection closes after the answer.
        connection.setReadTimeout(.seconds(30))
        #expect(try await connection.readUntilEnd().end == .closed)
      }
    }

    @Test func shutdownClosesAConversationWithGoingAway() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chat"), Self.chat)
      let server = try await StubServer.start(serving: backend)
      let connection = try await WebSocketClient.connect(port: server.port, path: "/chat")
      defer { connection.raw.close() }
      #expect(try await connection.readFrame() == .text("welcome"))
      let shutdown = Task { await server.shutdown() }
      #expect(try await connection.readFrame() == .close(1001))
      try await connection.sendClose(code: 1001, reason: "")
      await shutdown.value
      #expect(server.openConnectionCount == 0)
    }
  }

  /// The first message of `task`, or `nil` when FoundationNetworking's libcurl was built without
  /// WebSockets (curl before 8.11 leaves them off unless configured with `--enable-websockets`:
  /// Debian 12's 7.88.1, Ubuntu 24.04's 8.5). Then no `URLSessionWebSocketTask` can connect to
  /// any server: the task fails at once, before any byte reaches the server, and this asserts
  /// exactly that. The raw-frame tests play the same conversations on every machine.
  func receiveUnlessLibcurlLacksWebSockets(
    _ task: URLSessionWebSocketTask, backend: Backend
  ) async throws -> URLSessionWebSocketTask.Message? {
    do {
      return try await task.receive()
    } catch {
      let error = error as NSError
      guard error.domain == NSURLErrorDomain, error.code == NSURLErrorUnsupportedURL else { throw error }
      #expect(error.localizedDescription == "WebSockets not supported by libcurl")
      #expect(backend.requests.isEmpty)
      return nil
    }
  }

  extension URLSessionWebSocketTask.Message {
    var text: String? {
      if case .string(let text) = self { return text }
      return nil
    }
    var data: Data? {
      if case .data(let data) = self { return data }
      return nil
    }
  }

  /// A minimal WebSocket client on a raw connection, to see the frames themselves.
  struct WebSocketClient {
    let raw: RawConnection

    enum Frame: Equatable {
      case text(String)
      case binary([UInt8])
      case close(UInt16?)
      case other(UInt8)
    }

    static func handshake(path: String) -> String {
      "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    static func connect(port: Int, path: String) async throws -> WebSocketClient {
      let raw = try await RawConnection.connect(port: port)
      try await raw.send(handshake(path: path))
      let response = try #require(try await raw.readResponse())
      try #require(response.head.hasPrefix("HTTP/1.1 101 Switching Protocols"))
      #expect(response.head.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
      return WebSocketClient(raw: raw)
    }

    /// Reads one (unfragmented, unmasked, short) frame from the server.
    func readFrame() async throws -> Frame? {
      guard let head = try await raw.read(exactly: 2) else { return nil }
      var length = Int(head[1] & 0x7F)
      if length == 126 {
        guard let extended = try await raw.read(exactly: 2) else { return nil }
        length = Int(extended[0]) << 8 | Int(extended[1])
      }
      let payload = length == 0 ? [] : try await raw.read(exactly: length) ?? []
      switch head[0] & 0x0F {
      case 1: return .text(String(decoding: payload, as: UTF8.self))
      case 2: return .binary(payload)
      case 8: return .close(payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
      case let opcode: return .other(opcode)
      }
    }

    func send(text: String) async throws { try await send(opcode: 1, payload: Array(text.utf8)) }

    func send(binary: [UInt8]) async throws { try await send(opcode: 2, payload: binary) }

    func sendClose(code: UInt16, reason: String) async throws {
      try await send(opcode: 8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    /// Sends one masked frame (a client must mask), payload under 126 bytes.
    private func send(opcode: UInt8, payload: [UInt8]) async throws {
      let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
      let masked = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
      try await raw.send([0x80 | opcode, 0x80 | UInt8(payload.count)] + mask + masked)
    }
  }
#endif
