#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// What real clients send through the stub server: `HEAD` on a path stubbed for `GET`, and a
  /// GraphQL `GET` whose query items are form-encoded (issue 32, point 5).
  @Suite(.timeLimit(.minutes(1))) struct HeadAndGraphQLGetTests {
    @Test func headGetsTheHeadOfTheGetStubsAnswer() async throws {
      let backend = quietBackend()
      let stub = backend.stub(.get("/breeds"), .text("Bengal", status: 203).header("X-Count", "1"))
      try await withStubServer(backend) { server in
        let (body, response) = try await fetch(server.url("/breeds"), method: "HEAD")
        #expect(response.statusCode == 203)
        #expect(response.value(forHTTPHeaderField: "X-Count") == "1")
        #expect(response.value(forHTTPHeaderField: "Content-Length") == "6")
        #expect(body == "")
        let (getBody, _) = try await fetch(server.url("/breeds"))
        #expect(getBody == "Bengal")
      }
      #expect(backend.requests.map(\.method) == [.head, .get])
      #expect(backend.journal.first?.stub === stub)
      #expect(stub.callCount == 1)
    }

    @Test func aHeadStubWinsOverTheGetStub() async throws {
      let backend = quietBackend()
      backend.stub(.head("/breeds"), .status(204).header("X-From", "head"))
      backend.stub(.get("/breeds"), .text("Bengal").header("X-From", "get"))
      try await withStubServer(backend) { server in
        let (_, response) = try await fetch(server.url("/breeds"), method: "HEAD")
        #expect(response.statusCode == 204)
        #expect(response.value(forHTTPHeaderField: "X-From") == "head")
      }
    }

    #if canImport(Glibc)
      /// On the wire: the answer to `HEAD` is a head alone, so the next response on the
      /// connection follows it at once.
      @Test func theHeadAnswerHasNoBodyOnTheWire() async throws {
        let backend = quietBackend()
        backend.stub(.get("/breeds"), .text("Bengal"))
        try await withStubServer(backend) { server in
          let connection = try await RawConnection.connect(port: server.port)
          defer { connection.close() }
          try await connection.send(
            "HEAD /breeds HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
              + "GET /breeds HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
          let head = try #require(try await connection.readHead())
          let headText = String(decoding: head, as: UTF8.self)
          #expect(statusLine(head) == "HTTP/1.1 200 OK")
          #expect(headText.lowercased().contains("content-length: 6\r\n"))
          let second = try #require(try await connection.readResponse())
          #expect(second.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
          #expect(second.body == "Bengal")
        }
      }

      /// An unmatched `HEAD` gets the 404 head with the report's length, and no report body.
      @Test func anUnmatchedHeadHasNoBodyOnTheWire() async throws {
        let backend = quietBackend()
        backend.stub(.get("/breeds"), .text("Bengal"))
        try await withStubServer(backend) { server in
          let connection = try await RawConnection.connect(port: server.port)
          defer { connection.close() }
          try await connection.send(
            "HEAD /cats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
              + "GET /breeds HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
          let head = try #require(try await connection.readHead())
          #expect(statusLine(head) == "HTTP/1.1 404 Not Found")
          let second = try #require(try await connection.readResponse())
          #expect(second.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
          #expect(second.body == "Bengal")
        }
      }
    #endif

    @Test func aGraphQLGetWithPlusForSpacesMatchesItsVariables() async throws {
      let backend = quietBackend()
      backend.stub(.graphQL(operation: "Breeds"), .text("any page"))
      backend.stub(.graphQL(operation: "Breeds", variables: ["page": 2]), .text("page 2"))
      backend.stub(.graphQL(operation: "Search", variables: ["q": "a+b c"], exactVariables: true), .text("a+b c"))
      try await withStubServer(backend) { server in
        let query = "query+Breeds(%24page%3A+Int)+%7B+breeds(page%3A+%24page)+%7B+name+%7D+%7D"
        let (page, _) = try await fetch(server.url("/graphql?query=\(query)&variables=%7B%22page%22%3A+2%7D"))
        #expect(page == "page 2")
        let (search, _) = try await fetch(
          server.url("/graphql?query=query+Search+%7B+s+%7D&variables=%7B%22q%22%3A+%22a%2Bb+c%22%7D"))
        #expect(search == "a+b c")
      }
      #expect(backend.unmatchedRequests.isEmpty)
    }
  }
#endif
