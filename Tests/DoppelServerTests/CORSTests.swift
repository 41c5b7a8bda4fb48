#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Stub answers are readable from the web pages the user chose (`corsOrigins`), never from
  /// others, and the admin API never answers with CORS fields.
  @Suite(.timeLimit(.minutes(1))) struct CORSTests {
    private func withServer(
      corsOrigins: [String], _ body: (StubServer) async throws -> Void
    ) async throws {
      let backend = quietBackend()
      backend.stub(.get("/breeds"), .json(["Abyssinian"] as JSONValue).header("X-Total", "1"))
      var configuration = StubServer.Configuration()
      configuration.corsOrigins = corsOrigins
      try await withStubServer(backend, configuration: configuration) { server in try await body(server) }
    }

    @Test func withoutCORSOriginsNoAnswerAllowsAnotherOrigin() async throws {
      try await withServer(corsOrigins: []) { server in
        let (_, response) = try await fetch(server.url("/breeds"), headers: ["Origin": "http://localhost:3000"])
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)
        // A preflight is a request like any other: no stub answers it.
        let (_, preflight) = try await fetch(
          server.url("/breeds"), method: "OPTIONS",
          headers: ["Origin": "http://localhost:3000", "Access-Control-Request-Method": "GET"])
        #expect(preflight.statusCode == 404)
        #expect(preflight.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)
      }
    }

    @Test func aChosenOriginReadsStubAnswersAndGetsPreflights() async throws {
      try await withServer(corsOrigins: ["http://localhost:3000/"]) { server in
        let (body, response) = try await fetch(server.url("/breeds"), headers: ["Origin": "http://localhost:3000"])
        #expect(body == #"["Abyssinian"]"#)
        #expect(response.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == "http://localhost:3000")
        #expect(response.value(forHTTPHeaderField: "Access-Control-Allow-Credentials") == "true")
        #expect(response.value(forHTTPHeaderField: "Access-Control-Expose-Headers") == "x-total")
        #expect(response.value(forHTTPHeaderField: "Vary") == "Origin")

        let (_, other) = try await fetch(server.url("/breeds"), headers: ["Origin": "https://evil.example"])
        #expect(other.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)

        let (_, preflight) = try await fetch(
          server.url("/orders"), method: "OPTIONS",
          headers: [
            "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, x-trace",
          ])
        #expect(preflight.statusCode == 204)
        #expect(preflight.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == "http://localhost:3000")
        #expect(preflight.value(forHTTPHeaderField: "Access-Control-Allow-Methods") == "POST")
        #expect(preflight.value(forHTTPHeaderField: "Access-Control-Allow-Headers") == "content-type, x-trace")

        // The admin API is not a stub: a chosen origin cannot drive or read it.
        let (_, admin) = try await fetch(
          server.url("/__doppel/requests"), headers: ["Origin": "http://localhost:3000"])
        #expect(admin.statusCode == 403)
        #expect(admin.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)
        let (_, adminPreflight) = try await fetch(
          server.url("/__doppel/stubs"), method: "OPTIONS",
          headers: ["Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"])
        #expect(adminPreflight.statusCode == 403)
        #expect(adminPreflight.value(forHTTPHeaderField: "Access-Control-Allow-Origin") == nil)
      }
    }

    @Test func aStubAddedThroughTheAdminAPICannotAllowAnOrigin() async throws {
      try await withServer(corsOrigins: []) { server in
        let (text, response) = try await fetch(
          server.url("/__doppel/stubs"), method: "POST", headers: ["Content-Type": "application/json"],
          body: Data(#"{"request": "/leak", "response": {"headers": {"access-control-allow-origin": "*"}}}"#.utf8))
        #expect(response.statusCode == 400)
        #expect(
          text
            == #"{"error":"request body:1:46: response.headers[\"access-control-allow-origin\"]: a stub added through the admin API cannot set access-control-allow-origin: a web page could use it to read the server's answers from another origin. Start the server with --cors ORIGIN (StubServer.Configuration.corsOrigins) to let a browser app at ORIGIN read the stubs, or add the header in a manifest."}"#
            + "\n")
        #expect(try await fetch(server.url("/leak")).response.statusCode == 404)
      }
    }
  }
#endif
