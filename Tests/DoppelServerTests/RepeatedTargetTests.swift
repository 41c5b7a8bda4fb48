#if Server
  #if canImport(Glibc)
    import TestSupport
    import Doppel
    import DoppelServer
    import Foundation
    import Testing

    #if canImport(FoundationNetworking)
      import FoundationNetworking
    #endif

    /// What the server keeps from one request to the next (the URLs of recent requests, parsed; a
    /// reused answer's head and body in NIO's types): each request still gets its own URL, `Host`
    /// and the whole body.
    @Suite(.timeLimit(.minutes(1))) struct RepeatedTargetTests {
      @Test func theSameTargetWithAnotherHostIsItsOwnURL() async throws {
        let backend = quietBackend()
        backend.stub(.get("/items/1.json"), .text("one"))
        var configuration = StubServer.Configuration()
        configuration.origin = .asSent
        try await withStubServer(backend, configuration: configuration) { server in
          let connection = try await RawConnection.connect(port: server.port)
          for host in ["a.example:8080", "b.example", "a.example:8080", "[::1]:9"] {
            try await connection.send("GET /items/1.json?x=1 HTTP/1.1\r\nHost: \(host)\r\n\r\n")
            let response = try #require(try await connection.readResponse())
            #expect(response.body == "one")
          }
        }
        let journal = backend.journal
        #expect(
          journal.map(\.request.url.absoluteString) == [
            "http://a.example:8080/items/1.json?x=1", "http://b.example/items/1.json?x=1",
            "http://a.example:8080/items/1.json?x=1", "http://[::1]:9/items/1.json?x=1",
          ])
        #expect(
          journal.map { $0.request.headers["Host"] ?? "" } == [
            "a.example:8080", "b.example", "a.example:8080", "[::1]:9",
          ])
        #expect(journal.map(\.request.path) == Array(repeating: "/items/1.json", count: 4))
      }

      @Test(arguments: [0, 1, 65_536, 65_537, 300_000])
      func aReusedAnswerSendsItsWholeBodyEachTime(_ size: Int) async throws {
        let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let backend = quietBackend()
        backend.stub(.get("/blob"), Response(body: body))
        try await withStubServer(backend) { server in
          for _ in 0..<3 {
            var request = URLRequest(url: server.url("/blob"))
            request.httpMethod = "GET"
            let (data, response) = try await realSession.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(data == body)
          }
        }
      }
    }
  #endif
#endif
