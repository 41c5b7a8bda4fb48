#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// The laptop trust model, round two (issue 44): a request with two `Host` fields, fetch
  /// metadata as lists, the recorder and proxying stubs for loopback callers only, stub pages
  /// sandboxed away from the admin API, and a share of the connections for event streams.
  @Suite(.timeLimit(.minutes(1))) struct LaptopTrustTests {
    #if canImport(Glibc)
      /// Sends `request` on a connection of its own and reads the answer (with a
      /// `Content-Length` body).
      private func exchange(_ port: Int, _ request: String) async throws -> (head: String, body: String) {
        let connection = try await RawConnection.connect(port: port)
        defer { connection.close() }
        try await connection.send(request)
        return try #require(await connection.readResponse())
      }

      @Test func aRequestWithTwoHostFieldsGets400() async throws {
        let backend = quietBackend()
        backend.stub(.get("/hello"), .text("hi"))
        try await withStubServer(backend) { server in
          for path in ["/hello", "/__doppel/stubs"] {
            let (head, body) = try await exchange(
              server.port,
              "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
            )
            #expect(head.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
            #expect(
              body
                == "The request has 2 Host header fields; HTTP/1.1 allows exactly one (RFC 9112 §3.2). Send a single Host field, such as Host: 127.0.0.1:\(server.port).\n"
            )
          }
          // An upgrade to a WebSocket stub too.
          backend.stub(.get("/feed"), .webSocket(onConnect: [.send(.text("hi"))], on: []))
          let (upgrade, _) = try await exchange(
            server.port,
            "GET /feed HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
          #expect(upgrade.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
          #expect(backend.journal.isEmpty)
          let (head, body) = try await exchange(
            server.port, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
          #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
          #expect(body == "hi")
        }
      }
    #endif

    @Test func aFetchMetadataListIsJudgedByItsMostHostileMember() async throws {
      try await withStubServer(quietBackend()) { server in
        for value in ["same-origin, cross-site", "cross-site,same-origin", "none ,same-site"] {
          let (body, response) = try await fetch(
            server.url("/__doppel/state"), headers: ["Sec-Fetch-Site": value])
          #expect(response.statusCode == 403)
          let hostile = value.contains("cross-site") ? "cross-site" : "same-site"
          #expect(
            body
              == #"{"error":"the admin API refuses requests a browser sends for another site (Sec-Fetch-Site: \#(hostile)). Drive the admin API from a test or a script (DoppelRemote, curl), not from a web page."}"#
              + "\n")
        }
        let (_, response) = try await fetch(
          server.url("/__doppel/state"), headers: ["Sec-Fetch-Site": "same-origin, none"])
        #expect(response.statusCode == 200)
      }
    }

    // MARK: Forwarding

    #if canImport(Glibc)
      private static func refusal(_ host: String) -> String {
        "This request would be sent on to an upstream (doppel record, or a proxying stub), and this server forwards only requests whose Host is a loopback name or address (localhost, 127.0.0.1, [::1]) or one it allows; this one's is \(host). A web page can make its own name resolve to this computer (DNS rebinding) and read the upstream's answers through it. Send the request to 127.0.0.1, or start doppel with --allow-host \(host) (StubServer.AdminAPI.allowedHosts) to allow that name.\n"
      }

      /// A private upstream (a database password in its answer) behind a proxying stub: a request
      /// naming a rebinding host is refused before it reaches the upstream, a plain stub still
      /// answers it, and a loopback or allowed name is proxied.
      @Test func aProxyingStubForwardsOnlyForALoopbackOrAllowedHost() async throws {
        let upstream = quietBackend()
        upstream.stub(.get("/config"), .text("db_password=hunter2"))
        try await withStubServer(upstream) { real in
          for allowed in [[], ["devbox.local"]] {
            let backend = quietBackend()
            backend.stub(.get("/config"), .proxy(to: real.baseURL))
            backend.stub(.get("/plain"), .text("a plain stub"))
            var configuration = StubServer.Configuration()
            configuration.admin.allowedHosts = allowed
            try await withStubServer(backend, configuration: configuration) { server in
              func get(_ path: String, host: String) async throws -> (head: String, body: String) {
                try await exchange(server.port, "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
              }
              let rebound = try await get("/config", host: "rebind.attacker.example:\(server.port)")
              #expect(rebound.head.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
              #expect(rebound.body == Self.refusal("rebind.attacker.example"))
              #expect(try await get("/plain", host: "rebind.attacker.example:\(server.port)").body == "a plain stub")
              #expect(try await get("/config", host: "127.0.0.1:\(server.port)").body == "db_password=hunter2")
              #expect(try await get("/config", host: "localhost").body == "db_password=hunter2")
              let named = try await get("/config", host: "devbox.local:\(server.port)")
              if allowed.isEmpty {
                #expect(named.body == Self.refusal("devbox.local"))
              } else {
                #expect(named.body == "db_password=hunter2")
              }
            }
          }
          // The upstream saw only the requests that were let through.
          #expect(upstream.journal.count == 5)
        }
      }

      /// `doppel record`'s server: every request goes through to the upstream, so one naming a
      /// rebinding host is refused, not forwarded, journaled or recorded.
      @Test func aPassthroughServerForwardsOnlyForALoopbackHost() async throws {
        let upstream = quietBackend()
        upstream.stub(.get("/key"), .text("-----BEGIN PRIVATE KEY-----"))
        try await withStubServer(upstream) { real in
          let recorder = Backend(unmatched: .passthrough, issueReporter: .ignore)
          var configuration = StubServer.Configuration()
          configuration.origin = .fixed(real.baseURL)
          configuration.admin.pathPrefix = nil
          try await withStubServer(recorder, configuration: configuration) { server in
            let rebound = try await exchange(
              server.port, "GET /key HTTP/1.1\r\nHost: rebind.attacker.example\r\nConnection: close\r\n\r\n")
            #expect(rebound.head.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
            #expect(rebound.body == Self.refusal("rebind.attacker.example"))
            #expect(recorder.journal.isEmpty)
            #expect(upstream.journal.isEmpty)
            let local = try await exchange(
              server.port, "GET /key HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
            #expect(local.body == "-----BEGIN PRIVATE KEY-----")
            #expect(recorder.journal.count == 1)
          }
        }
      }
    #endif

    // MARK: The stub pages' sandbox

    @Test func stubAnswersAreSandboxedAndTheAdminAPIAndDashboardAreNot() async throws {
      let sandbox = "sandbox allow-scripts allow-forms allow-modals allow-downloads"
      let backend = quietBackend()
      backend.stub(.get("/evil.html"), Response(headers: ["Content-Type": "text/html"], body: Data("<script>".utf8)))
      try await withStubServer(backend) { server in
        let (_, page) = try await fetch(server.url("/evil.html"))
        #expect(page.value(forHTTPHeaderField: "Content-Security-Policy") == sandbox)
        let (_, unmatched) = try await fetch(server.url("/nothing-here"))
        #expect(unmatched.statusCode == 404)
        #expect(unmatched.value(forHTTPHeaderField: "Content-Security-Policy") == sandbox)
        let (_, api) = try await fetch(server.url("/__doppel/requests"))
        #expect(api.statusCode == 200)
        #expect(api.value(forHTTPHeaderField: "Content-Security-Policy") == nil)
        // What a sandboxed page sends: Origin: null, refused with a message that says why.
        let (refusal, refused) = try await fetch(server.url("/__doppel/requests"), headers: ["Origin": "null"])
        #expect(refused.statusCode == 403)
        #expect(
          refusal
            == #"{"error":"the admin API refuses requests from web pages, and this one carries Origin: null: it comes from a sandboxed page (such as one a stub serves: the server sandboxes those so that they cannot reach the admin API), a file or a redirect. Drive the admin API from a test or a script (DoppelRemote, curl), which send no Origin."}"#
            + "\n")
        let (_, dashboard) = try await fetch(server.url("/__doppel/"), headers: ["Accept": "text/html"])
        #expect(dashboard.value(forHTTPHeaderField: "Content-Type") == "text/html; charset=utf-8")
        #expect(
          dashboard.value(forHTTPHeaderField: "Content-Security-Policy")
            == "default-src 'self'; connect-src 'self'; frame-ancestors 'none'")
      }
      // The admin API on a port of its own (or off): the stubs' origin holds no admin API, and
      // their answers are sent as the stubs say.
      var ownPort = StubServer.Configuration()
      ownPort.admin.port = 0
      var off = StubServer.Configuration()
      off.admin.pathPrefix = nil
      for configuration in [ownPort, off] {
        try await withStubServer(backend, configuration: configuration) { server in
          let (_, page) = try await fetch(server.url("/evil.html"))
          #expect(page.value(forHTTPHeaderField: "Content-Security-Policy") == nil)
        }
      }
    }

    // MARK: Event streams

    #if canImport(Glibc)
      /// With 8 connections, 2 event streams at most: a third gets a 503 that says why, and a
      /// request for a stub is still answered.
      @Test func eventStreamsTakeAQuarterOfTheConnectionsAtMost() async throws {
        let backend = quietBackend()
        backend.stub(.get("/hello"), .text("hi"))
        var configuration = StubServer.Configuration()
        configuration.maximumConnections = 8
        try await withStubServer(backend, configuration: configuration) { server in
          let request =
            "GET /__doppel/events HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nAccept: text/event-stream\r\n\r\n"
          var streams: [RawConnection] = []
          defer { for stream in streams { stream.close() } }
          for _ in 1...2 {
            let stream = try await RawConnection.connect(port: server.port)
            streams.append(stream)
            try await stream.send(request)
            let head = String(decoding: try #require(await stream.readHead()), as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(try await stream.readEvents(until: "event: changed") != nil)
          }
          let (head, body) = try await exchange(server.port, request)
          #expect(head.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
          #expect(head.contains("Retry-After: 5\r\n"))
          #expect(
            body
              == #"{"error":"This server already serves 2 event streams (GET /__doppel/events), the most it keeps open: a quarter of its 8 connections, so that the others stay free for requests. Close a dashboard tab or another stream, or raise --max-connections."}"#
              + "\n")
          let (text, response) = try await fetch(server.url("/hello"))
          #expect(response.statusCode == 200)
          #expect(text == "hi")
        }
      }
    #endif
  }
#endif
