#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(Glibc)
    /// A correct client is served while others attack the server on loopback: clients that
    /// pipeline large downloads (from memory, and a 1.5 GB file fixture) and never read, and
    /// WebSocket conversations left idle.
    @Suite struct SoakTests {
      private static let eightMegabytes = Data(repeating: 0x61, count: 8 << 20)

      /// A sparse 1.5 GB file (it takes no disk), in a folder of its own.
      private static let hugeFile: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-soak-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("huge.bin")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        if let handle = try? FileHandle(forWritingTo: url) {
          try? handle.truncate(atOffset: 1_500_000_000)
          try? handle.close()
        }
        return url
      }()

      private func backend() -> Backend {
        let backend = quietBackend()
        backend.stub(.get("/ok"), .text("ok"))
        backend.stub(.get("/big"), .data(Self.eightMegabytes))
        backend.stub(.get("/huge"), .file(Self.hugeFile))
        backend.stub(.get("/chat"), .webSocket(onConnect: [], on: []))
        return backend
      }

      @Test func webSocketsCountAgainstTheConnectionLimit() async throws {
        var configuration = StubServer.Configuration()
        configuration.maximumConnections = 3
        try await withStubServer(backend(), configuration: configuration) { server in
          var sockets: [WebSocketClient] = []
          for _ in 0..<3 { sockets.append(try await WebSocketClient.connect(port: server.port, path: "/chat")) }
          defer { for socket in sockets { socket.raw.close() } }
          #expect(server.openConnectionCount == 3)
          // A fourth connection waits: the conversations hold every slot.
          let waiting = try await RawConnection.connect(port: server.port)
          defer { waiting.close() }
          try await waiting.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
          waiting.setReadTimeout(.milliseconds(300))
          let (nothing, end) = try await waiting.readUntilEnd()
          #expect(nothing.isEmpty)
          #expect(end == .timedOut)
          // One conversation ends: the request is served.
          sockets.removeFirst().raw.close()
          waiting.setReadTimeout(.seconds(10))
          #expect(try await waiting.readResponse()?.body == "ok")
        }
      }

      @Test func anIdleWebSocketGivesItsSlotBack() async throws {
        var configuration = StubServer.Configuration()
        configuration.maximumConnections = 1
        configuration.webSocketIdleTimeout = .milliseconds(300)
        configuration.webSocketPongTimeout = .milliseconds(300)
        try await withStubServer(backend(), configuration: configuration) { server in
          let socket = try await WebSocketClient.connect(port: server.port, path: "/chat")
          defer { socket.raw.close() }
          // Waits for the only slot, which the conversation holds until it idles out.
          let waiting = try await RawConnection.connect(port: server.port)
          defer { waiting.close() }
          try await waiting.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
          #expect(try await waiting.readResponse()?.body == "ok")
          // The conversation answered no ping: a close frame with 1001, and the connection closed.
          var frames: [WebSocketClient.Frame] = []
          while let frame = try await socket.readFrame() { frames.append(frame) }
          #expect(frames == [.other(9), .close(1001)])
          #expect(server.openConnectionCount <= 1)
        }
      }

      @Test func aCorrectClientIsServedThroughoutAnAttack() async throws {
        let backend = backend()
        var configuration = StubServer.Configuration()
        configuration.maximumConnections = 9
        configuration.webSocketIdleTimeout = .milliseconds(500)
        configuration.webSocketPongTimeout = .milliseconds(500)
        try await withStubServer(backend, configuration: configuration) { server in
          // Three clients pipeline ten 8 MiB downloads each and never read; a fourth pipelines ten
          // downloads of the 1.5 GB file fixture.
          var attackers: [RawConnection] = []
          defer { for attacker in attackers { attacker.close() } }
          for path in ["/big", "/big", "/big", "/huge"] {
            let attacker = try await RawConnection.connect(port: server.port)
            try await attacker.send(String(repeating: "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n", count: 10))
            attackers.append(attacker)
          }
          // Four idle WebSocket conversations.
          for _ in 0..<4 {
            attackers.append(try await WebSocketClient.connect(port: server.port, path: "/chat").raw)
          }
          // The ninth slot serves a correct client, again and again.
          let client = try await RawConnection.connect(port: server.port)
          defer { client.close() }
          for _ in 0..<5 {
            try await client.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse()?.body == "ok")
          }
          // A tenth connection is served once the idle conversations give their slots back.
          let another = try await RawConnection.connect(port: server.port)
          defer { another.close() }
          try await another.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
          #expect(try await another.readResponse()?.body == "ok")
          // The pipeliners got what their sockets' buffers hold, not their thirty answers.
          let downloads = backend.requests.filter { $0.url.path == "/big" }.count
          #expect(downloads < 30)
          // The file is sent as it is read: its first answer is still going out, and nothing
          // after it was answered.
          #expect(backend.requests.filter { $0.url.path == "/huge" }.count == 1)
          #expect(server.openConnectionCount <= 9)
        }
      }
    }
  #endif
#endif
