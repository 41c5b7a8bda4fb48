#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
    @_spi(DoppelInternals) import DoppelToolkit
  #endif

  /// Delays and pacing on the backend's clock, and faults on the connection itself.
  @Suite(.timeLimit(.minutes(1))) struct TimingAndFaultTests {
    @Test func aDelayedResponseWaitsForTheBackendsClock() async throws {
      let clock = ManualClock()
      let backend = quietBackend(clock: clock)
      backend.stub(.get("/slow"), .text("late").delayed(by: .seconds(30)))
      try await withStubServer(backend) { server in
        let done = Flag()
        let url = server.url("/slow")
        let load = Task {
          let result = try await fetch(url)
          done.set()
          return result.body
        }
        await clock.waitForSleepers()
        #expect(!done.isSet)
        #expect(backend.requests.count == 1)
        clock.advance(by: .seconds(30))
        let body = try await load.value
        #expect(body == "late")
      }
    }

    @Test func aChunkedTransferEncodingIsHonoured() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chunked"), .text("streamed", headers: ["Transfer-Encoding": "chunked"]))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /chunked HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let (bytes, end) = try await connection.readUntilEnd()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(end == .closed)
        #expect(text.lowercased().contains("transfer-encoding: chunked"))
        #expect(!text.lowercased().contains("content-length"))
        #expect(text.hasSuffix("8\r\nstreamed\r\n0\r\n\r\n"))
      }
    }

    @Test func aRealClockDelayIsNotShortened() async throws {
      let backend = quietBackend()
      backend.stub(.get("/slow"), .text("late").delayed(by: .milliseconds(120)))
      try await withStubServer(backend) { server in
        let start = ContinuousClock.now
        let body = try await fetch(server.url("/slow")).body
        #expect(body == "late")
        #expect(ContinuousClock.now - start >= .milliseconds(120))
      }
    }

    @Test func droppingAChunkedBodyClosesMidBody() async throws {
      let backend = quietBackend()
      backend.stub(
        .get("/cut"),
        Response.text("0123456789", headers: ["Transfer-Encoding": "chunked"]).droppingConnection(afterBytes: 4))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, end) = try await connection.readUntilEnd()
        #expect(end == .closed)
        #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("4\r\n0123\r\n"))
      }
    }

    @Test func resettingTheConnectionResetsIt() async throws {
      let backend = quietBackend()
      backend.stub(.get("/reset"), .fault(.connectionReset))
      backend.stub(.get("/fine"), .text("fine"))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /reset HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, end) = try await connection.readUntilEnd()
        #expect(bytes.isEmpty)
        #expect(end == .reset)

        await #expect(throws: (any Error).self) { _ = try await fetch(server.url("/reset")) }
        #expect(try await fetch(server.url("/fine")).body == "fine")
      }
    }

    @Test func inProcessCallersSeeAResetAsALostConnection() async throws {
      let backend = quietBackend()
      backend.stub(.get("https://api.example.com/reset"), .fault(.connectionReset))
      let request = URLRequest(url: URL(string: "https://api.example.com/reset")!)
      for attempt in [
        { _ = try await backend.respond(to: request) },
        { _ = try await backend.session.data(for: request) },
      ] as [@Sendable () async throws -> Void] {
        do {
          try await attempt()
          Issue.record("expected URLError(.networkConnectionLost)")
        } catch let error as URLError {
          #expect(error.code == .networkConnectionLost)
        }
      }
    }

    @Test func aNetworkErrorStubResetsTheConnection() async throws {
      let backend = quietBackend()
      backend.stub(.get("/offline"), .error(.notConnectedToInternet))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /offline HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await connection.readUntilEnd().end == .reset)
      }
    }

    @Test func aLostConnectionStubClosesWithoutAResponse() async throws {
      let backend = quietBackend()
      backend.stub(.get("/lost"), .error(.networkConnectionLost))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /lost HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, end) = try await connection.readUntilEnd()
        #expect(bytes.isEmpty)
        #expect(end == .closed)
      }
    }

    @Test func shutdownClosesAConnectionWaitingForever() async throws {
      let backend = quietBackend()
      backend.stub(.get("/never"), .never)
      // A long grace period: shutdown must close the waiting connection at once, not wait it out
      // (a bound well below it holds on a loaded machine too, where 4 s once took 4.007 s).
      var configuration = StubServer.Configuration()
      configuration.shutdownGracePeriod = .seconds(120)
      let server = try await StubServer.start(serving: backend, configuration: configuration)
      let connection = try await RawConnection.connect(port: server.port)
      try await connection.send("GET /never HTTP/1.1\r\nHost: x\r\n\r\n")
      let reading = Task { try await connection.readUntilEnd() }
      // The request reached the backend before shutdown starts.
      let deadline = ContinuousClock.now + .seconds(30)
      while backend.requests.isEmpty {
        guard ContinuousClock.now < deadline else {
          Issue.record("the request did not reach the backend within 30 s")
          break
        }
        await Task.yield()
      }
      let start = ContinuousClock.now
      await server.shutdown()
      #expect(ContinuousClock.now - start < .seconds(60))
      #expect(try await reading.value.end == .closed)
    }

    @Test func shutdownLetsAResponseInProgressFinish() async throws {
      let clock = ManualClock()
      let backend = quietBackend(clock: clock)
      backend.stub(.get("/slow"), .text("finished").delayed(by: .seconds(5)))
      let server = try await StubServer.start(serving: backend)
      let url = server.url("/slow")
      let load = Task { try await fetch(url) }
      await clock.waitForSleepers()
      let stopping = Task { await server.shutdown() }
      // Shutdown waits; advancing the clock lets the response go out.
      clock.advance(by: .seconds(5))
      let (body, response) = try await load.value
      #expect(body == "finished")
      #expect(response.statusCode == 200)
      await stopping.value
      #expect(server.openConnectionCount == 0)
      await #expect(throws: (any Error).self) { _ = try await fetch(url) }
    }

    @Test func withStubServerShutsDownWhenTheBodyThrows() async throws {
      struct Boom: Error {}
      let port = Locked(0)
      await #expect(throws: Boom.self) {
        try await withStubServer(quietBackend()) { server in
          port.withLock { $0 = server.port }
          throw Boom()
        }
      }
      let url = URL(string: "http://127.0.0.1:\(port.withLock { $0 })/")!
      await #expect(throws: (any Error).self) { _ = try await fetch(url) }
    }

    @Test func aNonLoopbackAddressNeedsPermission() async throws {
      await #expect {
        _ = try await StubServer.start(serving: quietBackend(), host: "0.0.0.0")
      } throws: { error in
        "\(error)".contains("not a loopback address") && "\(error)".contains("allowsNonLoopback")
      }
      var configuration = StubServer.Configuration()
      configuration.allowsNonLoopback = true
      // Beyond loopback, the admin API needs a token (issue 49, point 2).
      await #expect {
        _ = try await StubServer.start(serving: quietBackend(), host: "0.0.0.0", configuration: configuration)
      } throws: { error in
        "\(error)"
          == "Refusing to serve the admin API on 0.0.0.0 (0.0.0.0), which is not a loopback address, without a token: anyone who can reach it could change the stubs. Give it a token (doppel serve --admin-token-file <path> or DOPPEL_ADMIN_TOKEN; StubServer.Configuration.admin.token), or turn it off (--admin-prefix off; admin.pathPrefix = nil)."
      }
      configuration.admin.token = "s3cret"
      let server = try await StubServer.start(serving: quietBackend(), host: "0.0.0.0", configuration: configuration)
      #expect(server.port > 0)
      await server.shutdown()
      configuration.admin.token = nil
      configuration.admin.pathPrefix = nil
      let withoutAdmin = try await StubServer.start(
        serving: quietBackend(), host: "0.0.0.0", configuration: configuration)
      await withoutAdmin.shutdown()
    }

    @Test func aPortInUseIsAClearError() async throws {
      try await withStubServer(quietBackend()) { server in
        await #expect {
          _ = try await StubServer.start(serving: quietBackend(), port: server.port)
        } throws: { error in
          // "Address already in use (errno 98)" on Linux, errno 48 on a Mac.
          "\(error)"
            == "Cannot listen on 127.0.0.1 port \(server.port): \(String(cString: strerror(EADDRINUSE))) (errno \(EADDRINUSE)). Choose another port, or 0 to let the system choose."
        }
      }
    }
  }
#endif
