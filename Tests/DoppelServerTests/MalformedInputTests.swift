#if Server
  #if canImport(Glibc)
    import TestSupport
    import Doppel
    import DoppelServer
    import Foundation
    import Testing

    /// What no HTTP client would send: the server answers what it can, closes the connection, and
    /// keeps serving everyone else.
    @Suite(.timeLimit(.minutes(1))) struct MalformedInputTests {
      /// A backend with one stub, `GET /ok`.
      private func backend() -> Backend {
        let backend = quietBackend()
        backend.stub(.get("/ok"), .text("ok"))
        return backend
      }

      /// Expects a good request on a new connection to be answered.
      private func expectStillServing(_ server: StubServer) async throws {
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response?.head.hasPrefix("HTTP/1.1 200 OK") == true)
        #expect(response?.body == "ok")
      }

      @Test(
        arguments: [
          "HELLO THERE\r\n\r\n",
          "GET / HTTP/9.9\r\n\r\n",
          "GET /ok HTTP/1.1\r\nHost x\r\n\r\n",
          "GET /ok HTTP/1.1\r\nContent-Length: nope\r\n\r\n",
          "GET /ok HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
          "POST /ok HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n",
          "\u{0}\u{1}\u{2}\u{3}garbage\r\n\r\n",
        ] as [RawText])
      func garbageGetsA400AndTheConnectionCloses(_ garbage: RawText) async throws {
        let garbage = garbage.text
        try await withStubServer(backend()) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send(garbage)
          let (bytes, end) = try await connection.readUntilEnd()
          #expect(statusLine(bytes) == "HTTP/1.1 400 Bad Request")
          #expect(String(decoding: bytes, as: UTF8.self).contains("Connection: close"))
          #expect(end == .closed)
          try await expectStillServing(server)
        }
      }

      @Test(arguments: ["OPTIONS * HTTP/1.1", "GET ftp://example.com/file HTTP/1.1"])
      func aTargetThatIsNotAURLGetsA400(_ requestLine: String) async throws {
        try await withStubServer(backend()) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send("\(requestLine)\r\nHost: x\r\n\r\n")
          let (bytes, end) = try await connection.readUntilEnd()
          #expect(statusLine(bytes) == "HTTP/1.1 400 Bad Request")
          #expect(String(decoding: bytes, as: UTF8.self).contains("is not a URL path"))
          #expect(end == .closed)
          try await expectStillServing(server)
        }
      }

      @Test func anOversizedHeadGetsA431() async throws {
        try await withStubServer(backend()) { server in
          let connection = try await RawConnection.connect(port: server.port)
          let huge = String(repeating: "a", count: 100_000)
          try await connection.send("GET /ok HTTP/1.1\r\nHost: x\r\nX-Huge: \(huge)\r\n\r\n")
          let (bytes, end) = try await connection.readUntilEnd()
          #expect(statusLine(bytes) == "HTTP/1.1 431 Request Header Fields Too Large")
          #expect(end == .closed)
          try await expectStillServing(server)
        }
      }

      @Test func anOversizedRequestLineGetsA431() async throws {
        var configuration = StubServer.Configuration()
        configuration.maximumHeadSize = 1_024
        try await withStubServer(backend(), configuration: configuration) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send("GET /\(String(repeating: "p", count: 2_000)) HTTP/1.1\r\nHost: x\r\n\r\n")
          let (bytes, _) = try await connection.readUntilEnd()
          #expect(statusLine(bytes) == "HTTP/1.1 431 Request Header Fields Too Large")
          try await expectStillServing(server)
        }
      }

      @Test func anAnnouncedOversizedBodyGetsA413AtOnce() async throws {
        var configuration = StubServer.Configuration()
        configuration.maximumBodySize = 1_000
        try await withStubServer(backend(), configuration: configuration) { server in
          let connection = try await RawConnection.connect(port: server.port)
          // Only the head is sent: the server answers without waiting for the body.
          try await connection.send("POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")
          let response = try await connection.readResponse()
          #expect(response?.head.hasPrefix("HTTP/1.1 413 Payload Too Large") == true)
          #expect(response?.body.contains("at most 1000 bytes") == true)
          try await expectStillServing(server)
        }
      }

      @Test func aChunkedBodyGrowingPastTheLimitGetsA413() async throws {
        var configuration = StubServer.Configuration()
        configuration.maximumBodySize = 1_000
        let backend = backend()
        try await withStubServer(backend, configuration: configuration) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send("POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
          let chunk = "400\r\n" + String(repeating: "z", count: 1_024) + "\r\n"
          try await connection.send(chunk + chunk)
          let (bytes, end) = try await connection.readUntilEnd()
          #expect(statusLine(bytes) == "HTTP/1.1 413 Payload Too Large")
          #expect(end == .closed)
          try await expectStillServing(server)
        }
        #expect(backend.requests.map(\.path) == ["/ok"])
      }

      @Test func earlyClosesLeaveTheServerServing() async throws {
        let backend = backend()
        try await withStubServer(backend) { server in
          for partial in [
            "", "GET /ok HT", "GET /ok HTTP/1.1\r\nHost: x\r\n",
            "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
          ] {
            let connection = try await RawConnection.connect(port: server.port)
            if !partial.isEmpty { try await connection.send(partial) }
            connection.close()
          }
          try await expectStillServing(server)
        }
        #expect(backend.requests.count == 1)
      }

      @Test func aHalfSentHeadAtShutdownIsDropped() async throws {
        // Shutdown closes the connection with a partial head in the decoder, which reports it as
        // an error: there is no one left to answer (this used to trip NIO's pipelining handler).
        let connection = try await withStubServer(backend()) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHo")
          #expect(try await connection.readResponse()?.body == "ok")
          return connection  // open until the server has shut down
        }
        let (bytes, end) = try await connection.readUntilEnd()
        #expect(bytes.isEmpty)
        #expect(end == .closed)
      }

      @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let backend = quietBackend()
        backend.stub(.get("/a"), .text("first").delayed(by: .milliseconds(30)))
        backend.stub(.get("/b"), .text("second"))
        try await withStubServer(backend) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
          #expect(try await connection.readResponse()?.body == "first")
          #expect(try await connection.readResponse()?.body == "second")
        }
      }

      @Test func http10ClosesUnlessAskedToKeepAlive() async throws {
        try await withStubServer(backend()) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send("GET /ok HTTP/1.0\r\n\r\n")
          let (bytes, end) = try await connection.readUntilEnd()
          #expect(statusLine(bytes) == "HTTP/1.0 200 OK")
          #expect(end == .closed)

          let kept = try await RawConnection.connect(port: server.port)
          try await kept.send("GET /ok HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
          let first = try await kept.readResponse()
          #expect(first?.head.contains("Connection: keep-alive") == true)
          try await kept.send("GET /ok HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
          #expect(try await kept.readResponse()?.body == "ok")
        }
      }

      @Test func expectContinueGetsA100() async throws {
        let backend = quietBackend()
        backend.stub(.post("/upload")) { request in .text("\(request.body?.count ?? 0)") }
        try await withStubServer(backend) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send(
            "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
          let interim = try await connection.readResponse()
          #expect(interim?.head.hasPrefix("HTTP/1.1 100 Continue") == true)
          try await connection.send("abc")
          #expect(try await connection.readResponse()?.body == "3")
        }
      }

      @Test func badConnectionsDoNotDisturbGoodOnes() async throws {
        let backend = backend()
        try await withStubServer(backend) { server in
          try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
              group.addTask {
                let connection = try await RawConnection.connect(port: server.port)
                if index.isMultiple(of: 2) {
                  try await connection.send("\u{7}\u{7} nonsense \(index)\r\n\r\n")
                  _ = try await connection.readUntilEnd()
                } else {
                  try await connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
                  #expect(try await connection.readResponse()?.body == "ok")
                }
              }
            }
            try await group.waitForAll()
          }
        }
        #expect(backend.requests.count == 20)
      }
    }
  #endif
#endif
