#if Server
  #if canImport(Glibc)
    import TestSupport
    import Doppel
    import DoppelServer
    import Foundation
    import Testing

    /// Many clients that hold connections without using them, on real sockets: slowloris clients
    /// shed by the header timeout while a correct client is served, and the connection limit. Each
    /// timeout's rule alone (the header, body and idle timeouts, a slow answer) is tested on virtual
    /// time in `VirtualTimeoutTests`. The tests wait with bounded reads, and pace slow clients with
    /// them too.
    @Suite(.timeLimit(.minutes(1))) struct SlowClientTests {
      /// A backend with `GET /ok` and `POST /upload` (which answers with the body's size).
      private func backend() -> Backend {
        let backend = quietBackend()
        backend.stub(.get("/ok"), .text("ok"))
        backend.stub(.post("/upload")) { request in .text("\(request.body?.count ?? 0)") }
        return backend
      }

      private func configuration(
        header: Duration = .seconds(30), body: Duration = .seconds(30), idle: Duration = .seconds(30)
      ) -> StubServer.Configuration {
        var configuration = StubServer.Configuration()
        configuration.headerTimeout = header
        configuration.bodyTimeout = body
        configuration.idleTimeout = idle
        return configuration
      }

      /// Sends `byte` every `interval` (waiting with a bounded read, which also notices the close)
      /// until the server closes or resets the connection; what it sent back and how it ended.
      private func trickle(
        _ connection: RawConnection, byte: String = "a", every interval: Duration = .milliseconds(50),
        atMost ticks: Int = 200
      ) async throws -> (bytes: [UInt8], end: RawConnection.End) {
        connection.setReadTimeout(interval)
        var received: [UInt8] = []
        for _ in 0..<ticks {
          try await connection.send(byte)
          let (bytes, end) = try await connection.readUntilEnd()
          received += bytes
          if end != .timedOut { return (received, end) }
        }
        return (received, .timedOut)
      }

      @Test func slowlorisConnectionsAreClosedWithinTheHeaderTimeoutWhileOthersAreServed() async throws {
        let backend = backend()
        // 3 seconds: the correct client below must get its head read within it on a loaded machine
        // (ThreadSanitizer with the rest of the suite running).
        try await withStubServer(backend, configuration: configuration(header: .seconds(3))) { server in
          let clock = ContinuousClock()
          var slow: [(RawConnection, ContinuousClock.Instant)] = []
          for _ in 0..<20 {
            let connection = try await RawConnection.connect(port: server.port)
            let start = clock.now  // before the server can see the first byte
            try await connection.send("GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            slow.append((connection, start))
          }
          // A correct client, while the slow ones hold their connections.
          let (body, response) = try await fetch(server.url("/ok"))
          #expect(response.statusCode == 200)
          #expect(body == "ok")

          try await withThrowingTaskGroup(of: ([UInt8], RawConnection.End, Duration).self) { group in
            for (connection, start) in slow {
              group.addTask {
                let (bytes, end) = try await trickle(connection, atMost: 400)
                return (bytes, end, start.duration(to: clock.now))
              }
            }
            for try await (bytes, end, elapsed) in group {
              #expect(statusLine(bytes) == "HTTP/1.1 408 Request Timeout")
              #expect(String(decoding: bytes, as: UTF8.self).contains("\r\nConnection: close\r\n"))
              #expect(end == .closed)
              #expect(elapsed >= .seconds(3))
              #expect(elapsed < .seconds(60))  // generous: a loaded machine (ThreadSanitizer) is slow
            }
          }
        }
        #expect(backend.requests.count == 1)
      }

      @Test func theConnectionLimitHolds() async throws {
        var configuration = StubServer.Configuration()
        configuration.maximumConnections = 3
        try await withStubServer(backend(), configuration: configuration) { server in
          var open: [RawConnection] = []
          for _ in 0..<3 {
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await connection.readResponse()?.body == "ok")
            open.append(connection)
          }
          // The fourth waits in the listen queue: not accepted, not answered.
          let waiting = try await RawConnection.connect(port: server.port)
          try await waiting.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
          waiting.setReadTimeout(.milliseconds(300))
          let (nothing, end) = try await waiting.readUntilEnd()
          #expect(nothing.isEmpty)
          #expect(end == .timedOut)
          #expect(server.openConnectionCount == 3)

          // One closes: the waiting one is accepted and served.
          open.removeFirst().close()
          waiting.setReadTimeout(.seconds(10))
          #expect(try await waiting.readResponse()?.body == "ok")
          #expect(server.openConnectionCount <= 3)
        }
      }

      @Test func outOfRangeSettingsAreRefused() async throws {
        var zero = StubServer.Configuration()
        zero.idleTimeout = .zero
        await #expect(
          throws: DoppelError(
            "StubServer.Configuration.idleTimeout is 0.0 seconds, which is not a timeout. Use a positive duration, such as .seconds(30)."
          )
        ) {
          try await StubServer.start(serving: quietBackend(), configuration: zero)
        }
        var none = StubServer.Configuration()
        none.maximumConnections = 0
        await #expect(
          throws: DoppelError(
            "StubServer.Configuration.maximumConnections is 0; the server needs at least 1 connection. Use 1 or more (1024 by default)."
          )
        ) {
          try await StubServer.start(serving: quietBackend(), configuration: none)
        }
      }
    }
  #endif
#endif
