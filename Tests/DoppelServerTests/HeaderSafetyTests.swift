#if Server
  #if canImport(Glibc)
    import TestSupport
    import Doppel
    import DoppelServer
    import Foundation
    import Testing

    /// A stub's header that cannot go on the wire (a value with CR, LF or NUL, a name that is not a
    /// token) never reaches it: the server answers `500` saying which header, and the connection
    /// carries no field the stub's value would have smuggled in.
    @Suite(.timeLimit(.minutes(1))) struct HeaderSafetyTests {
      /// Sends `GET path` on a new connection and reads the one response.
      private func get(_ path: String, from server: StubServer) async throws -> (head: String, body: String) {
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return try #require(try await connection.readResponse())
      }

      /// The head's field names, lower-cased.
      private func fieldNames(_ head: String) -> [String] {
        head.split(separator: "\r\n").dropFirst().map { line in
          String(line.prefix { $0 != ":" }).lowercased()
        }
      }

      @Test(
        arguments: [
          ("X-Split", "a\r\nInjected: yes"),
          ("X-Split", "a\nInjected: yes"),
          ("X-Split", "a\rInjected: yes"),
          ("X-Split", "a\u{0}b"),
          ("X-Split", "a\u{7F}b"),
          ("Injected: yes\r\nX-Split", "a"),
          ("X Split", "a"),
          ("", "a"),
        ] as [(RawText, RawText)])
      func aHeaderThatCannotBeSentGetsA500(_ name: RawText, _ value: RawText) async throws {
        let (name, value) = (name.text, value.text)
        let backend = quietBackend()
        backend.stub(.get("/now"), .text("ok", headers: HTTPHeaders([(name, value)])))
        backend.stub(.get("/later"), .text("ok", headers: HTTPHeaders([(name, value)])).delayed(by: .milliseconds(1)))
        backend.stub(.get("/closure")) { _ in .text("ok", headers: HTTPHeaders([(name, value)])) }
        backend.stub(.get("/ok"), .text("fine"))
        try await withStubServer(backend) { server in
          for path in ["/now", "/now", "/later", "/closure"] {
            let response = try await get(path, from: server)
            #expect(response.head.hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"), "\(path)")
            #expect(!fieldNames(response.head).contains("injected"), "\(path)")
            #expect(!fieldNames(response.head).contains("x-split"), "\(path)")
            #expect(response.body.contains("cannot be sent"), "\(path)")
          }
          let fine = try await get("/ok", from: server)
          #expect(fine.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
          #expect(fine.body == "fine")
        }
      }

      @Test func theLogSaysA500() async throws {
        let backend = quietBackend()
        backend.stub(.get("/bad"), .text("ok", headers: HTTPHeaders([("X-Split", "a\r\nb")])))
        let lines = LinesSeen()
        var configuration = StubServer.Configuration()
        configuration.onRequest = { lines.append($0.description) }
        try await withStubServer(backend, configuration: configuration) { server in
          _ = try await get("/bad", from: server)
        }
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.hasPrefix("GET /bad → 500, a header of the stub cannot be sent (") == true)
      }

      @Test func aTabAndNonASCIIAreSentAsTheyAre() async throws {
        let backend = quietBackend()
        backend.stub(.get("/ok"), .text("ok", headers: HTTPHeaders([("X-Tab", "a\tb"), ("X-Accent", "café")])))
        try await withStubServer(backend) { server in
          for _ in 0..<2 {
            let response = try await get("/ok", from: server)
            #expect(response.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(response.head.contains("X-Tab: a\tb\r\n"))
            #expect(response.head.contains("X-Accent: café\r\n"))
            #expect(response.body == "ok")
          }
        }
      }

      @Test func aWebSocketStubWithAHeaderThatCannotBeSentIsNotUpgraded() async throws {
        let backend = quietBackend()
        backend.stub(
          .get("/chat"), .webSocket(onConnect: [.send(.text("hi"))], headers: HTTPHeaders([("X-Split", "a\r\nb")])))
        try await withStubServer(backend) { server in
          let connection = try await RawConnection.connect(port: server.port)
          try await connection.send(WebSocketClient.handshake(path: "/chat"))
          let response = try #require(try await connection.readResponse())
          #expect(response.head.hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
          #expect(!fieldNames(response.head).contains("x-split"))
          #expect(!fieldNames(response.head).contains("b"))
          #expect(response.body.contains("cannot be sent"))
        }
      }
    }

    /// Log lines a server reports, for a test to read after it.
    private final class LinesSeen: @unchecked Sendable {
      // Why `@unchecked` is safe: `lines` is only read or written while `lock` is held.
      private let lock = NSLock()
      private var lines: [String] = []

      func append(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        lines.append(line)
      }

      var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
      }
    }
  #endif
#endif
