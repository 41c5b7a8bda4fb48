#if Server
  #if canImport(Glibc)
    import Doppel
    import DoppelServer
    import Foundation
    import Testing

    /// The server keeps the URLs of recent requests parsed: each request is still matched and
    /// journaled with its own URL and `Host`.
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
    }
  #endif
#endif
