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

  /// What the journal keeps and the admin API reads out of it stays bounded in bytes (issue 44,
  /// point 3): request headers and WebSocket messages count against the byte bound, the journal
  /// is read a page at a time, and a WebSocket upgrade from another site's page is refused.
  @Suite(.timeLimit(.minutes(1))) struct JournalBoundsTests {
    /// 40 requests each with a 60 KiB header, into a journal of 1 MiB: the oldest are dropped,
    /// as for bodies.
    @Test func requestHeadersCountAgainstTheJournalsByteBound() async throws {
      let backend = quietBackend()
      backend.journalByteLimit = 1024 * 1024
      backend.stub(.any, .status(204))
      let header = String(repeating: "h", count: 60 * 1024)
      for index in 0..<40 {
        _ = try await backend.respond(
          to: URLRequest(url: URL(string: "https://api.example.com/\(index)")!).with(header: header))
      }
      let kept = backend.journal.count
      #expect((16...17).contains(kept))
      #expect(backend.droppedJournalEntries == 40 - kept)
      #expect(backend.journal.last?.request.url.path == "/39")
    }

    #if canImport(Glibc)
      /// A client sends 20 messages of 60 KiB to a WebSocket stub whose backend keeps 256 KiB:
      /// the oldest events are dropped, and what is kept stays within the bound.
      @Test func webSocketMessagesCountAgainstTheJournalsByteBound() async throws {
        let backend = quietBackend()
        backend.journalByteLimit = 256 * 1024
        backend.stub(.get("/feed"), .webSocket(onConnect: [], on: [.on(.text("done"), reply: .text("ok"))]))
        try await withStubServer(backend) { server in
          let client = try await WebSocketClient.connect(port: server.port, path: "/feed")
          defer { client.raw.close() }
          let message = Array(String(repeating: "m", count: 60 * 1024).utf8)
          for _ in 0..<20 { try await client.raw.send(Self.maskedFrame(opcode: 1, payload: message)) }
          try await client.send(text: "done")
          #expect(try await client.readFrame() == .text("ok"))
        }
        let events = backend.webSocketEvents
        let bytes = events.reduce(0) { $0 + ($1.message?.data.count ?? 0) }
        #expect(bytes <= 256 * 1024)
        #expect(events.count < 10)
        #expect(events.contains { $0.message?.text == "ok" })
        // The upgrade request is kept beside them.
        #expect(backend.journal.count == 1)
      }

      /// One masked client frame with a 16-bit length.
      static func maskedFrame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        let mask: [UInt8] = [0x0A, 0x0B, 0x0C, 0x0D]
        let masked = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return [0x80 | opcode, 0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + mask + masked
      }

      private static func upgrade(origin: String?, port: Int) -> String {
        "GET /feed HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
          + (origin.map { "Origin: \($0)\r\n" } ?? "")
          + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
      }

      /// A manifest lets a page's origin open a WebSocket stub the way it lets a page read an HTTP
      /// stub: the stub's `Access-Control-Allow-Origin` header names it. Other origins are still
      /// refused, and a refused upgrade does not use up a stub that answers once.
      @Test func aWebSocketStubsManifestCanAllowAnOrigin() async throws {
        let json = """
          {"stubs": [
            {"request": "/feed", "times": 1, "response": {"headers": {"Access-Control-Allow-Origin": "http://localhost:5173"},
              "websocket": {"onConnect": [{"send": "hi"}]}}},
            {"request": "/other", "response": {"websocket": {"onConnect": [{"send": "hi"}]}}}
          ]}
          """
        let manifest = try Manifest(data: Data(json.utf8), url: URL(fileURLWithPath: "/project/doppel.json"))
        let backend = try Backend(manifest: manifest, issueReporter: .ignore)
        try await withStubServer(backend) { server in
          func status(_ path: String, origin: String) async throws -> String {
            let raw = try await RawConnection.connect(port: server.port)
            defer { raw.close() }
            try await raw.send(
              Self.upgrade(origin: origin, port: server.port).replacingOccurrences(
                of: "GET /feed ", with: "GET \(path) "))
            return try #require(await raw.readResponse()).head
          }
          let foreign = try await status("/feed", origin: "https://evil.example")
          let unnamed = try await status("/other", origin: "http://localhost:5173")
          let named = try await status("/feed", origin: "http://localhost:5173")
          #expect(foreign.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
          #expect(unnamed.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
          #expect(named.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        }
      }

      @Test func aWebSocketUpgradeFromAnotherOriginIsRefusedUnlessCORSAllowsIt() async throws {
        for cors in [[], ["http://localhost:3000"]] {
          let backend = quietBackend()
          backend.stub(.get("/feed"), .webSocket(onConnect: [.send(.text("hi"))], on: []))
          let served = Locked<[String]>([])
          var configuration = StubServer.Configuration()
          configuration.corsOrigins = cors
          configuration.onRequest = { line in served.withLock { $0.append(line.description) } }
          try await withStubServer(backend, configuration: configuration) { server in
            func status(_ origin: String?) async throws -> (head: String, body: String) {
              let raw = try await RawConnection.connect(port: server.port)
              defer { raw.close() }
              try await raw.send(Self.upgrade(origin: origin, port: server.port))
              return try #require(await raw.readResponse())
            }
            let foreign = try await status("https://evil.example")
            #expect(foreign.head.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
            #expect(
              foreign.body
                == "The WebSocket upgrade comes from a web page at https://evil.example, which is not this server's own origin, and browsers let any page open a WebSocket: it is refused. Start doppel serve with --cors https://evil.example (StubServer.Configuration.corsOrigins) to let that page connect, as it lets it read the stubs' answers, or give this WebSocket stub the header Access-Control-Allow-Origin: https://evil.example in the manifest.\n"
            )
            #expect(try await status("null").head.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
            #expect(try await status(nil).head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
            #expect(
              try await status("http://127.0.0.1:\(server.port)").head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n")
            )
            let listed = try await status("http://localhost:3000").head
            #expect(
              listed.hasPrefix(cors.isEmpty ? "HTTP/1.1 403 Forbidden\r\n" : "HTTP/1.1 101 Switching Protocols\r\n"))
            // Refused upgrades never reached the stub, and each is reported.
            #expect(backend.journal.count == (cors.isEmpty ? 2 : 3))
            #expect(
              served.withLock { $0 }.filter { $0.contains("403") }
                == Array(
                  repeating: "GET /feed → 403, refused: a WebSocket upgrade from another origin (--cors allows one)",
                  count: cors.isEmpty ? 3 : 2))
          }
        }
      }
    #endif
  }

  /// The journal read a page at a time through the admin API (issue 44, point 3). A suite of its
  /// own for its time limit: rendering 1,500 entries a few times is the heaviest work of these
  /// tests, and under ThreadSanitizer beside other suites it passed a minute.
  @Suite(.timeLimit(.minutes(3))) struct JournalPagingTests {
    /// 1,500 entries: the admin API answers 1,000 at a time with `more` and `next`, `limit`
    /// asks for fewer, and `DoppelRemote` reads every page.
    @Test func theJournalIsReadAPageAtATime() async throws {
      let backend = quietBackend()
      backend.stub(.any, .status(204))
      for index in 0..<1_500 {
        _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/\(index)")!))
      }
      try await withStubServer(backend) { server in
        func page(_ query: String) async throws -> (count: Int, next: Int?, more: Bool?, first: Int?) {
          let (text, response) = try await fetch(server.url("/__doppel/requests" + query))
          #expect(response.statusCode == 200)
          let json = try JSONValue(parsing: Data(text.utf8))
          guard case .array(let entries)? = json["requests"] else { return (-1, nil, nil, nil) }
          var first: Int?
          if case .number(let index)? = entries.first?["index"] { first = Int(index) }
          var more: Bool?
          if case .bool(let value)? = json["more"] { more = value }
          var next: Int?
          if case .number(let value)? = json["next"] { next = Int(value) }
          return (entries.count, next, more, first)
        }
        let first = try await page("")
        #expect(first.count == 1_000 && first.next == 1_000 && first.more == true && first.first == 0)
        let last = try await page("?since=1000")
        #expect(last.count == 500 && last.next == 1_500 && last.more == false && last.first == 1_000)
        let small = try await page("?since=10&limit=5")
        #expect(small.count == 5 && small.next == 15 && small.more == true && small.first == 10)
        let (text, response) = try await fetch(server.url("/__doppel/requests?limit=5000"))
        #expect(response.statusCode == 400)
        #expect(
          text
            == #"{"error":"query: limit: \"5000\" is not a page size. Pass 1 to 1000 (entries in one answer; 1000 by default)."}"#
            + "\n")
        let (entries, next) = try await DoppelRemote(server.baseURL).journal()
        #expect(entries.count == 1_500)
        #expect(next == 1_500)
        #expect(entries.last?.request.url.path == "/1499")
      }
    }
  }

  extension URLRequest {
    fileprivate func with(header value: String) -> URLRequest {
      var request = self
      request.setValue(value, forHTTPHeaderField: "X-Large")
      return request
    }
  }
#endif
