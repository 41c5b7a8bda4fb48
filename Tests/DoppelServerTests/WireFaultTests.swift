#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// WireMock-class faults as bytes on the stub server's connections, the same faults as URLSession
  /// callers of the in-process doors see them, and stubs that proxy to a real (loopback) upstream.
  @Suite(.timeLimit(.minutes(1))) struct WireFaultTests {
    @Test func anEmptyResponseClosesBeforeAnyByte() async throws {
      let backend = quietBackend()
      backend.stub(.get("/empty"), .fault(.emptyResponse))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, end) = try await connection.readUntilEnd()
        #expect(bytes.isEmpty)
        #expect(end == .closed)
      }
    }

    @Test func aMalformedChunkFollowsAChunkedHead() async throws {
      let backend = quietBackend()
      backend.stub(.get("/chunk"), .fault(.malformedChunk))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /chunk HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, end) = try await connection.readUntilEnd()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(end == .closed)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("\r\nTransfer-Encoding: chunked\r\n"))
        #expect(text.hasSuffix("\r\n\r\nzz\r\nnot a chunk\r\n"))
      }
    }

    @Test func randomBytesAreNotHTTPAndTheSameEachTime() async throws {
      let backend = quietBackend()
      backend.stub(.get("/garbage"), .fault(.randomBytesThenClose))
      try await withStubServer(backend) { server in
        var seen: [[UInt8]] = []
        for _ in 0..<2 {
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send("GET /garbage HTTP/1.1\r\nHost: x\r\n\r\n")
          let (bytes, end) = try await connection.readUntilEnd()
          #expect(end == .closed)
          #expect(bytes.count == 64)
          #expect(!bytes.starts(with: Array("HTTP".utf8)))
          seen.append(bytes)
        }
        #expect(seen[0] == seen[1])
      }
    }

    /// The URLError a URLSession on the real HTTP stack gets from the stub server's wire is the one
    /// the URLSession door gives for the same stub: the door is measured against the wire.
    @Test(arguments: [Fault.emptyResponse, .malformedChunk, .randomBytesThenClose, .connectionReset])
    func theURLSessionDoorFailsAsTheWireDoes(fault: Fault) async throws {
      let backend = quietBackend()
      backend.stub(.path("/fault"), .fault(fault))
      try await withStubServer(backend) { server in
        func code(_ load: () async throws -> Void) async -> URLError.Code? {
          do {
            try await load()
            return nil
          } catch {
            return (error as? URLError)?.code
          }
        }
        let wire = await code { _ = try await fetch(server.url("/fault")) }
        let door = await code {
          _ = try await backend.session.data(from: URL(string: "https://api.example.com/fault")!)
        }
        let inMemory = await code {
          _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/fault")!))
        }
        #expect(wire != nil)
        #expect(door == wire, "\(fault): the wire gives \(String(describing: wire?.rawValue))")
        #expect(inMemory == wire)
      }
    }

    @Test func aFailureRateOnTheServerIsTheSeedsToo() async throws {
      func statuses(seed: UInt64) async throws -> String {
        let backend = quietBackend()
        backend.seed = seed
        backend.stub(.get("/flaky"), .text("ok").failing(rate: 0.5, with: .fault(.emptyResponse)))
        return try await withStubServer(backend) { server in
          var result = ""
          for _ in 0..<12 {
            do {
              // A new connection for each request: libcurl sends a request again by itself when a
              // reused connection closes before any byte, which would take one more draw.
              result +=
                try await fetch(server.url("/flaky"), headers: ["Connection": "close"]).body == "ok" ? "." : "?"
            } catch {
              result += "F"
            }
          }
          // One draw per request: none was sent twice.
          #expect(backend.requests.count == 12)
          return result
        }
      }
      let first = try await statuses(seed: 3)
      #expect(first.contains("F") && first.contains("."))
      #expect(try await statuses(seed: 3) == first)
    }

    @Test func aRandomDelayOnTheServerRunsOnTheBackendsClock() async throws {
      let clock = ManualClock()
      let backend = quietBackend(clock: clock)
      backend.seed = 5
      backend.stub(.get("/slow"), .text("late").delayed(by: .uniform(min: .seconds(10), max: .seconds(20))))
      try await withStubServer(backend) { server in
        let load = Task { try await fetch(server.url("/slow")).body }
        await clock.waitForSleepers()
        let before = clock.now
        #expect(clock.advanceToNextDeadline())
        let waited = before.duration(to: clock.now)
        #expect(waited >= .seconds(10) && waited <= .seconds(20))
        let body = try await load.value
        #expect(body == "late")
      }
    }

    // MARK: Proxying

    @Test func aProxyingStubForwardsPathQueryAndHeadersButNotHopByHopOnes() async throws {
      let upstream = quietBackend()
      upstream.stub(.get("/v2/weather/{city}")) { request in
        .text("sunny in \(request.pathParameters["city"] ?? "?")", headers: ["X-Upstream": "1", "Connection": "close"])
      }
      try await withStubServer(upstream) { real in
        let backend = quietBackend()
        backend.stub(.get("/me"), .text("stubbed"))
        backend.stub(.get("/weather/{city}"), .proxy(to: real.url("/v2/")))
        try await withStubServer(backend) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send(
            "GET /weather/paris?units=metric&x=%20 HTTP/1.1\r\nHost: doppel.localhost\r\nConnection: close, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\nProxy-Authorization: Basic eA==\r\nX-Custom: kept\r\n\r\n"
          )
          let (bytes, _) = try await connection.readUntilEnd()
          let text = String(decoding: bytes, as: UTF8.self)
          #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
          #expect(text.hasSuffix("\r\n\r\nsunny in paris"))
          #expect(text.contains("X-Upstream: 1"))
          #expect(try await fetch(server.url("/me")).body == "stubbed")
        }
        let forwarded = try #require(upstream.requests.first)
        #expect(upstream.requests.count == 1)
        #expect(forwarded.url.path == "/v2/weather/paris")
        #expect(forwarded.url.query == "units=metric&x=%20")
        #expect(forwarded.headers["Host"] == "127.0.0.1:\(real.port)")
        #expect(forwarded.headers["X-Custom"] == "kept")
        for name in ["X-Hop", "Keep-Alive", "Proxy-Authorization"] {
          #expect(forwarded.headers[name] == nil, "\(name)")
        }
        #expect(forwarded.headers["Connection"]?.lowercased() != "close, x-hop")
      }
    }

    @Test func aProxiedPostCarriesItsBodyAndAnUnreachableUpstreamFails() async throws {
      let upstream = quietBackend()
      upstream.stub(.post("/orders")) { request in .text("got \(request.bodyText ?? "")", status: 201) }
      try await withStubServer(upstream) { real in
        let backend = quietBackend()
        backend.stub(.post("/orders"), .proxy(to: real.baseURL))
        try await withStubServer(backend) { server in
          let (body, response) = try await fetch(server.url("/orders"), method: "POST", body: Data("sku=A1".utf8))
          #expect(response.statusCode == 201)
          #expect(body == "got sku=A1")
        }
      }
      // Port 9 (discard) on loopback: nothing listens, the connection is refused.
      let backend = quietBackend()
      backend.stub(.get("/down"), .proxy(to: URL(string: "http://127.0.0.1:9")!))
      await #expect(throws: URLError.self) {
        _ = try await backend.respond(to: URLRequest(url: URL(string: "https://app.example.com/down")!))
      }
    }
  }
#endif
