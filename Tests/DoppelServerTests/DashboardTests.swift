#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// The dashboard at the admin prefix: a page for browsers beside the unchanged JSON index, the
  /// admin API's trust model for it, and the event stream that tells the page what changed.
  @Suite(.timeLimit(.minutes(1))) struct DashboardTests {
    private static let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    private func withServer(
      token: String? = nil, idleTimeout: Duration? = nil, adminPort: Int? = nil, maximumConnections: Int? = nil,
      shutdownGracePeriod: Duration? = nil, _ body: (StubServer) async throws -> Void
    ) async throws {
      var configuration = StubServer.Configuration()
      configuration.admin.token = token
      configuration.admin.port = adminPort
      if let idleTimeout { configuration.idleTimeout = idleTimeout }
      if let maximumConnections { configuration.maximumConnections = maximumConnections }
      if let shutdownGracePeriod { configuration.shutdownGracePeriod = shutdownGracePeriod }
      let backend = quietBackend()
      backend.stub(.get("/hello"), .text("hi"))
      try await withStubServer(backend, configuration: configuration) { server in try await body(server) }
    }

    /// The header fields every file of the dashboard is sent with.
    private func expectSecurityHeaders(_ response: HTTPURLResponse) {
      #expect(
        response.value(forHTTPHeaderField: "Content-Security-Policy")
          == "default-src 'self'; connect-src 'self'; frame-ancestors 'none'")
      #expect(response.value(forHTTPHeaderField: "X-Frame-Options") == "DENY")
      #expect(response.value(forHTTPHeaderField: "Cache-Control") == "no-store")
      #expect(response.value(forHTTPHeaderField: "X-Content-Type-Options") == "nosniff")
      #expect(response.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)
    }

    @Test func aBrowserGetsThePageItsScriptAndItsStylesheetWithTheSecurityHeaders() async throws {
      try await withServer { server in
        let (page, pageResponse) = try await fetch(server.url("/__doppel/"), headers: ["Accept": Self.browserAccept])
        #expect(pageResponse.statusCode == 200)
        #expect(pageResponse.value(forHTTPHeaderField: "Content-Type") == "text/html; charset=utf-8")
        expectSecurityHeaders(pageResponse)
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains(#"<script src="/__doppel/dashboard.js" defer></script>"#))
        #expect(page.contains(#"<link rel="stylesheet" href="/__doppel/dashboard.css">"#))
        // No inline script: the policy would refuse it.
        #expect(!page.contains("<script>"))

        let (script, scriptResponse) = try await fetch(server.url("/__doppel/dashboard.js"))
        #expect(scriptResponse.statusCode == 200)
        #expect(scriptResponse.value(forHTTPHeaderField: "Content-Type") == "text/javascript; charset=utf-8")
        expectSecurityHeaders(scriptResponse)
        #expect(script.contains("textContent"))
        #expect(!script.contains("innerHTML"))
        #expect(!script.contains("localStorage") && !script.contains("sessionStorage") && !script.contains("cookie"))

        let (_, styleResponse) = try await fetch(server.url("/__doppel/dashboard.css"))
        #expect(styleResponse.statusCode == 200)
        #expect(styleResponse.value(forHTTPHeaderField: "Content-Type") == "text/css; charset=utf-8")
        expectSecurityHeaders(styleResponse)

        let (icon, iconResponse) = try await fetch(server.url("/__doppel/dashboard.svg"))
        #expect(iconResponse.value(forHTTPHeaderField: "Content-Type") == "image/svg+xml")
        #expect(icon.hasPrefix("<svg"))
        expectSecurityHeaders(iconResponse)

        let (_, post) = try await fetch(server.url("/__doppel/dashboard.js"), method: "POST")
        #expect(post.statusCode == 405)
        #expect(post.value(forHTTPHeaderField: "Allow") == "GET")
      }
    }

    @Test func everyOtherRequestForThePrefixGetsTheJSONIndexAsBefore() async throws {
      try await withServer { server in
        let (plain, _) = try await fetch(server.url("/__doppel/"))
        let index = try JSONValue(parsing: Data(plain.utf8))
        #expect(index["stubs"] == .number(1))
        guard case .array(let endpoints)? = index["endpoints"] else {
          Issue.record("no endpoints in \(plain)")
          return
        }
        #expect(endpoints.count == 8)
        #expect(endpoints.contains("/__doppel/saved-stubs"))
        for accept in ["application/json", "*/*", "text/html;q=0", "text/plain, application/json"] {
          let (text, response) = try await fetch(server.url("/__doppel/"), headers: ["Accept": accept])
          #expect(response.statusCode == 200)
          #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
          #expect(response.value(forHTTPHeaderField: "Content-Security-Policy") == nil)
          #expect(text == plain, "Accept: \(accept)")
        }
        // The page is for GET only; a browser's POST gets the index's answer.
        let (_, post) = try await fetch(
          server.url("/__doppel/"), method: "POST", headers: ["Accept": Self.browserAccept])
        #expect(post.statusCode == 405)
        #expect(post.value(forHTTPHeaderField: "Content-Type") == "application/json")
      }
    }

    @Test func thePageNeedsNoTokenButItsDataDoes() async throws {
      try await withServer(token: "s3cret") { server in
        let (_, page) = try await fetch(server.url("/__doppel/"), headers: ["Accept": Self.browserAccept])
        #expect(page.statusCode == 200)
        let (_, script) = try await fetch(server.url("/__doppel/dashboard.js"))
        #expect(script.statusCode == 200)
        for path in ["/__doppel/", "/__doppel/events", "/__doppel/requests"] {
          let (_, refused) = try await fetch(server.url(path))
          #expect(refused.statusCode == 401, "\(path)")
          #expect(refused.value(forHTTPHeaderField: "WWW-Authenticate") != nil)
        }
        let (index, answered) = try await fetch(
          server.url("/__doppel/"), headers: ["Authorization": "Bearer s3cret"])
        #expect(answered.statusCode == 200)
        #expect(index.contains(#""endpoints""#))
      }
    }

    @Test func theDashboardIsOnTheAdminPortWhenItHasOne() async throws {
      try await withServer(adminPort: 0) { server in
        let admin = try #require(server.adminURL)
        let (page, response) = try await fetch(admin, headers: ["Accept": Self.browserAccept])
        #expect(response.statusCode == 200)
        #expect(page.contains("<title>Doppel dashboard</title>"))
        let (_, script) = try await fetch(admin.appendingPathComponent("dashboard.js"))
        #expect(script.statusCode == 200)
        // The main port serves stubs only: the prefix there is a stub request like any other.
        let (_, main) = try await fetch(server.url("/__doppel/"), headers: ["Accept": Self.browserAccept])
        #expect(main.statusCode == 404)
      }
    }

    #if canImport(Glibc)
      /// Sends `GET path` with `headers` over a raw connection: the status line and the body.
      private func raw(port: Int, _ path: String, headers: [String]) async throws -> (status: String, body: String) {
        let connection = try await RawConnection.connect(port: port)
        defer { connection.close() }
        let lines = ["GET \(path) HTTP/1.1"] + headers + ["Connection: close"]
        try await connection.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
        let response = try #require(try await connection.readResponse())
        return (String(response.head.split(separator: "\r\n").first ?? ""), response.body)
      }

      @Test func aCrossSiteOrForeignRequestForThePageOrTheEventsIsRefused() async throws {
        try await withServer { server in
          let port = server.port
          let host = "Host: 127.0.0.1:\(port)"
          let html = "Accept: \(Self.browserAccept)"
          for path in ["/__doppel/", "/__doppel/dashboard.js", "/__doppel/events"] {
            let crossSite = try await raw(port: port, path, headers: [host, html, "Sec-Fetch-Site: cross-site"])
            #expect(crossSite.status == "HTTP/1.1 403 Forbidden", "\(path)")
            #expect(crossSite.body.contains("Sec-Fetch-Site: cross-site"))
            let origin = try await raw(port: port, path, headers: [host, html, "Origin: https://evil.example"])
            #expect(origin.status == "HTTP/1.1 403 Forbidden", "\(path)")
            let foreign = try await raw(port: port, path, headers: ["Host: evil.example:\(port)", html])
            #expect(foreign.status == "HTTP/1.1 403 Forbidden", "\(path)")
            #expect(foreign.body.contains("(got evil.example)"))
          }
          // The browser's own navigation (typed in, or from the page itself) is answered.
          let typed = try await raw(port: port, "/__doppel/", headers: [host, html, "Sec-Fetch-Site: none"])
          #expect(typed.status == "HTTP/1.1 200 OK")
          #expect(typed.body.contains("<title>Doppel dashboard</title>"))
          let own = try await raw(
            port: port, "/__doppel/dashboard.css",
            headers: [host, "Sec-Fetch-Site: same-origin", "Origin: http://127.0.0.1:\(port)"])
          #expect(own.status == "HTTP/1.1 200 OK")
        }
      }

      /// Opens the event stream and reads its head and first event. A connection the server closed
      /// before the request reached it (a short idle timeout on a loaded machine) is opened again,
      /// a few times at most.
      private func openEvents(port: Int) async throws -> (RawConnection, head: String, first: String) {
        for _ in 1...5 {
          let connection = try await RawConnection.connect(port: port)
          try await connection.send(
            "GET /__doppel/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
          guard let bytes = try await connection.readHead() else {
            connection.close()
            continue
          }
          let head = String(decoding: bytes, as: UTF8.self).lowercased()
          let first = try #require(await connection.readEvents(until: "event: changed"))
          return (connection, head, first)
        }
        throw RawConnection.SocketError(description: "the event stream did not open in 5 attempts")
      }

      @Test func theEventStreamSendsAnEventWhenSomethingChanges() async throws {
        try await withServer { server in
          let (events, head, first) = try await openEvents(port: server.port)
          defer { events.close() }
          #expect(head.hasPrefix("http/1.1 200 ok\r\n"))
          #expect(head.contains("content-type: text/event-stream; charset=utf-8\r\n"))
          #expect(head.contains("cache-control: no-store\r\n"))
          #expect(head.contains("transfer-encoding: chunked\r\n"))
          #expect(first.contains("retry: 2000\n"))
          #expect(first.contains(#"data: {"changes":0,"dropped":0,"machines":{},"requests":0,"#))

          _ = try await fetch(server.url("/hello"))
          let afterRequest = try #require(await events.readEvents(until: #""requests":1"#))
          #expect(afterRequest.contains("event: changed\n"))

          let (_, put) = try await fetch(
            server.url("/__doppel/state"), method: "PUT", headers: ["Content-Type": "application/json"],
            body: Data(#"{"machine": "basket", "state": "full"}"#.utf8))
          #expect(put.statusCode == 200)
          let afterState = try #require(await events.readEvents(until: #""machines":{"basket":"full"}"#))
          #expect(afterState.contains(#""changes":1"#))

          // A verification changes nothing; clearing the journal is a change.
          let (_, verified) = try await fetch(
            server.url("/__doppel/verify"), method: "POST", headers: ["Content-Type": "application/json"],
            body: Data(#"{"request": "GET /hello", "count": 1}"#.utf8))
          #expect(verified.statusCode == 200)
          _ = try await fetch(server.url("/hello"))
          let afterVerify = try #require(await events.readEvents(until: #""requests":2"#))
          #expect(afterVerify.contains(#""changes":1"#))
          let (_, cleared) = try await fetch(server.url("/__doppel/requests"), method: "DELETE")
          #expect(cleared.statusCode == 200)
          let afterClear = try #require(await events.readEvents(until: #""changes":2"#))
          #expect(afterClear.contains(#""requests":0"#))
        }
      }

      @Test func theEventStreamOutlivesTheIdleTimeout() async throws {
        let idle = Duration.milliseconds(300)
        try await withServer(idleTimeout: idle) { server in
          let (events, _, _) = try await openEvents(port: server.port)
          defer { events.close() }
          // Requests, each reported, until well past the idle timeout: no sleeping, every read bounded.
          let clock = ContinuousClock()
          let start = clock.now
          var count = 0
          while clock.now - start < idle * 3 && count < 100 {
            _ = try await fetch(server.url("/hello"))
            count += 1
            #expect(try await events.readEvents(until: #""requests":\#(count)"#) != nil)
          }
          #expect(clock.now - start >= idle * 3)
        }
      }

      @Test func theEventStreamHoldsAConnectionWithinTheLimit() async throws {
        try await withServer(maximumConnections: 1) { server in
          let (events, _, _) = try await openEvents(port: server.port)
          // The stream holds the only connection: the next one waits in the listen queue.
          let waiting = try await RawConnection.connect(port: server.port)
          defer { waiting.close() }
          try await waiting.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
          waiting.setReadTimeout(.milliseconds(300))
          let (early, end) = try await waiting.readUntilEnd()
          #expect(early.isEmpty && end == .timedOut)
          // Once the stream's client goes, the waiting request is answered.
          events.close()
          waiting.setReadTimeout(.seconds(10))
          let (bytes, _) = try await waiting.readUntilEnd()
          #expect(statusLine(bytes) == "HTTP/1.1 200 OK")
        }
      }

      @Test func theEventStreamEndsWhenTheServerStops() async throws {
        // A grace period longer than the test's wait: a stream the server did not end would be cut
        // off after it, without the last chunk, so the chunk (not a stopwatch) shows who ended it.
        try await withServer(shutdownGracePeriod: .seconds(600)) { server in
          let (events, _, _) = try await openEvents(port: server.port)
          defer { events.close() }
          // Bounded: were the stream not ended, shutdown would wait the grace period out, and the
          // suite's time limit fails the test first.
          await server.shutdown()
          let (bytes, end) = try await events.readUntilEnd()
          #expect(end == .closed)
          #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("0\r\n\r\n"))
        }
      }
    #endif
  }
#endif
