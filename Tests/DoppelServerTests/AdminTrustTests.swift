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

  /// The admin API's trust model: what a web page can send (a foreign Host, a foreign Origin,
  /// Sec-Fetch-Site, a text/plain body) is refused with a message that says the fix; a token when
  /// configured.
  @Suite(.timeLimit(.minutes(1))) struct AdminTrustTests {
    /// The refusals the server reported, in order.
    final class Refusals: Sendable {
      private let lines = Locked<[String]>([])
      func append(_ line: String) { lines.withLock { $0.append(line) } }
      var all: [String] { lines.withLock { $0 } }
    }

    private func withServer(
      token: String? = nil, allowedHosts: [String] = [], adminPort: Int? = nil,
      _ body: (StubServer, Refusals) async throws -> Void
    ) async throws {
      let refusals = Refusals()
      var configuration = StubServer.Configuration()
      configuration.admin.onRefusal = { refusals.append($0) }
      configuration.admin.token = token
      configuration.admin.allowedHosts = allowedHosts
      configuration.admin.port = adminPort
      try await withStubServer(quietBackend(), configuration: configuration) { server in
        try await body(server, refusals)
      }
    }

    private static let stub = #"{"request": "GET /me", "response": {"text": "added"}}"#

    private func post(
      _ server: StubServer, headers: [String: String], body: String = stub, path: String = "stubs"
    ) async throws -> (status: Int, error: String?, response: HTTPURLResponse) {
      let (text, response) = try await fetch(
        server.url("/__doppel/" + path), method: "POST", headers: headers, body: Data(body.utf8))
      let json = try? JSONValue(parsing: Data(text.utf8))
      var message: String?
      if case .object(let object)? = json, case .string(let text)? = object["error"] { message = text }
      #expect(response.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)
      return (response.statusCode, message, response)
    }

    private func stubCount(_ server: StubServer) async throws -> Int {
      let (text, _) = try await fetch(server.url("/__doppel/stubs"))
      guard case .array(let stubs)? = try JSONValue(parsing: Data(text.utf8))["stubs"] else { return -1 }
      return stubs.count
    }

    @Test func aForeignOriginIsRefusedAndTheServersOwnIsNot() async throws {
      try await withServer { server, refusals in
        let json = ["Content-Type": "application/json"]
        let foreign = try await post(server, headers: json.merging(["Origin": "https://evil.example"]) { $1 })
        #expect(foreign.status == 403)
        #expect(
          foreign.error
            == "the admin API refuses requests from web pages, and this one carries Origin: https://evil.example, which is not this server's own origin (http://127.0.0.1:\(server.port)). Drive the admin API from a test or a script (DoppelRemote, curl), which send no Origin; to let a browser app read the stubs, start doppel serve with --cors https://evil.example."
        )
        #expect(try await stubCount(server) == 0)
        #expect(refusals.all == ["Refused POST /__doppel/stubs (403): \(foreign.error ?? "")"])
        for origin in [
          "null", "http://127.0.0.1:1", "https://127.0.0.1:\(server.port)", "http://evil.example:\(server.port)",
        ] {
          #expect(try await post(server, headers: json.merging(["Origin": origin]) { $1 }).status == 403)
        }
        let own = try await post(server, headers: json.merging(["Origin": "http://127.0.0.1:\(server.port)"]) { $1 })
        #expect(own.status == 201)
        let local = try await post(server, headers: json.merging(["Origin": "http://localhost:\(server.port)"]) { $1 })
        #expect(local.status == 201)
      }
    }

    @Test func aRequestABrowserMarksCrossSiteOrSameSiteIsRefused() async throws {
      try await withServer { server, _ in
        for site in ["cross-site", "same-site"] {
          let answer = try await post(
            server, headers: ["Content-Type": "application/json", "Sec-Fetch-Site": site])
          #expect(answer.status == 403)
          #expect(
            answer.error
              == "the admin API refuses requests a browser sends for another site (Sec-Fetch-Site: \(site)). Drive the admin API from a test or a script (DoppelRemote, curl), not from a web page."
          )
        }
        let same = try await post(
          server, headers: ["Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"])
        #expect(same.status == 201)
      }
    }

    @Test func aBodyThatIsNotJSONIsRefusedWith415() async throws {
      try await withServer { server, _ in
        let plain = try await post(server, headers: ["Content-Type": "text/plain"])
        #expect(plain.status == 415)
        #expect(
          plain.error
            == "the admin API accepts only JSON bodies, and this request's Content-Type is text/plain. Send the body with Content-Type: application/json (a web page cannot send that to another origin without the browser asking first)."
        )
        let reset = try await post(server, headers: ["Content-Type": "text/plain"], body: "{}", path: "reset")
        #expect(reset.status == 415)
        let form = try await post(server, headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(form.status == 415)
        #expect(try await stubCount(server) == 0)
        let json = try await post(server, headers: ["Content-Type": "Application/JSON; charset=utf-8"])
        #expect(json.status == 201)
        // A request without a body needs no type.
        let (_, emptyReset) = try await fetch(server.url("/__doppel/reset"), method: "POST")
        #expect(emptyReset.statusCode == 200)
      }
    }

    @Test func aPreflightGetsNoAllowance() async throws {
      try await withServer { server, _ in
        let (_, foreign) = try await fetch(
          server.url("/__doppel/stubs"), method: "OPTIONS",
          headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "POST"])
        #expect(foreign.statusCode == 403)
        #expect(foreign.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)
        let (_, plain) = try await fetch(server.url("/__doppel/stubs"), method: "OPTIONS")
        #expect(plain.statusCode == 405)
        #expect(plain.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)
        #expect(plain.value(forHTTPHeaderField: "Access-Control-Allow-Methods") == nil)
      }
    }

    @Test func aTokenIsRequiredWhenConfigured() async throws {
      try await withServer(token: "s3cret-token") { server, _ in
        let json = ["Content-Type": "application/json"]
        let missing = try await post(server, headers: json)
        #expect(missing.status == 401)
        #expect(
          missing.error
            == "the admin API needs its token, and this request sends none. Send Authorization: Bearer <token> with the token the server was started with (doppel serve --admin-token, StubServer.AdminAPI.token; DoppelRemote's token:)."
        )
        #expect(missing.response.value(forHTTPHeaderField: "WWW-Authenticate") == #"Bearer realm="doppel admin API""#)
        let wrong = try await post(server, headers: json.merging(["Authorization": "Bearer s3cret-tokem"]) { $1 })
        #expect(wrong.status == 401)
        #expect(
          wrong.error
            == "the admin API's token does not match the one this request sends. Send Authorization: Bearer <token> with the token the server was started with (doppel serve --admin-token, StubServer.AdminAPI.token; DoppelRemote's token:)."
        )
        #expect(try await post(server, headers: json.merging(["Authorization": "Bearer s3cret"]) { $1 }).status == 401)
        #expect(
          try await post(server, headers: json.merging(["Authorization": "Basic s3cret-token"]) { $1 }).status == 401)
        let right = try await post(server, headers: json.merging(["Authorization": "Bearer s3cret-token"]) { $1 })
        #expect(right.status == 201)
        // DoppelRemote sends it.
        let remote = DoppelRemote(server.baseURL, token: "s3cret-token")
        #expect(try await remote.stubs().count == 1)
        await #expect(
          throws: DoppelError(
            "The stub server refused GET /__doppel/stubs (401): the admin API needs its token, and this request sends none. Send Authorization: Bearer <token> with the token the server was started with (doppel serve --admin-token, StubServer.AdminAPI.token; DoppelRemote's token:)."
          )
        ) { try await DoppelRemote(server.baseURL).stubs() }
      }
    }

    #if canImport(Glibc)
      /// Sends `method /__doppel/path` with exactly `headers` over a raw connection to `port`.
      private func raw(
        port: Int, _ method: String, _ path: String, headers: [String], body: String? = nil
      ) async throws -> (status: String, head: String, body: String) {
        let connection = try await RawConnection.connect(port: port)
        defer { connection.close() }
        var lines = ["\(method) /__doppel/\(path) HTTP/1.1"] + headers + ["Connection: close"]
        if let body { lines += ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"] }
        try await connection.send(lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? ""))
        let response = try #require(try await connection.readResponse())
        let status = String(response.head.split(separator: "\r\n").first ?? "")
        return (status, response.head, response.body)
      }

      @Test func aForeignOrRebindingHostIsRefused() async throws {
        try await withServer { server, refusals in
          let port = server.port
          let added = try await raw(
            port: port, "POST", "stubs", headers: ["Host: evil.example"], body: Self.stub)
          #expect(added.status == "HTTP/1.1 403 Forbidden")
          #expect(!added.head.lowercased().contains("access-control"))
          #expect(
            added.body
              == #"{"error":"the admin API answers only requests whose Host is a loopback name or address (localhost, 127.0.0.1, [::1]) or one the server allows (got evil.example); start doppel serve with --allow-host evil.example (StubServer.AdminAPI.allowedHosts) to allow it."}"#
              + "\n")
          // DNS rebinding: the page's own name, resolved to 127.0.0.1, with the server's port.
          let journal = try await raw(
            port: port, "GET", "requests", headers: ["Host: rebind.attacker.example:\(port)"])
          #expect(journal.status == "HTTP/1.1 403 Forbidden")
          #expect(journal.body.contains("(got rebind.attacker.example)"))
          for host in ["localhost.attacker.example", "127.0.0.1.nip.io", "127.0.0.256", "[::2]", "0.0.0.0", ""] {
            #expect(try await raw(port: port, "GET", "state", headers: ["Host: \(host)"]).status.contains("403"))
          }
          let none = try await raw(port: port, "GET", "state", headers: [])
          #expect(none.status == "HTTP/1.1 403 Forbidden")
          #expect(
            none.body.contains(
              "this request has no Host header. Send one, such as Host: 127.0.0.1:\(port) (every HTTP/1.1 client does)."
            ))
          #expect(refusals.all.count == 9)
          for host in [
            "127.0.0.1:\(port)", "127.0.0.1", "127.1.2.3", "localhost:\(port)", "LocalHost", "app.localhost",
            "[::1]:\(port)",
          ] {
            #expect(try await raw(port: port, "GET", "state", headers: ["Host: \(host)"]).status == "HTTP/1.1 200 OK")
          }
        }
      }

      @Test func anAllowedHostIsAnsweredOnTheMainAndTheAdminPort() async throws {
        try await withServer(allowedHosts: ["DevBox.local", "fe80::1"], adminPort: 0) { server, _ in
          let adminPort = try #require(server.adminURL?.port)
          for host in ["devbox.local:\(adminPort)", "[fe80::1]"] {
            #expect(
              try await raw(port: adminPort, "GET", "state", headers: ["Host: \(host)"]).status == "HTTP/1.1 200 OK")
          }
          let foreign = try await raw(port: adminPort, "GET", "state", headers: ["Host: evil.example"])
          #expect(foreign.status == "HTTP/1.1 403 Forbidden")
          let origin = try await raw(
            port: adminPort, "PUT", "state",
            headers: ["Host: 127.0.0.1:\(adminPort)", "Origin: http://127.0.0.1:\(server.port)"],
            body: #"{"state": "x"}"#)
          #expect(origin.status == "HTTP/1.1 403 Forbidden")
        }
      }
    #endif
  }
#endif
