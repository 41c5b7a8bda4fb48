#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import TestSupport
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
    @_spi(DoppelInternals) import DoppelToolkit
  #endif

  /// Issue 44, point 5, at the stub server: no planted secret of the shared corpus reaches the 404
  /// body (the near-miss report), the admin API's journal that the dashboard shows, the journal's
  /// HAR, or the request log's lines (`doppel serve` prints each through `Redaction.default`).
  @Suite(.timeLimit(.minutes(1))) struct OneRedactionServerTests {
    /// `planted`'s request, sent to `server` instead of its host.
    static func send(_ planted: PlantedSecret, to server: StubServer) async throws -> (body: String, status: Int) {
      var components = try #require(URLComponents(url: planted.request.url, resolvingAgainstBaseURL: false))
      components.scheme = "http"
      components.host = "127.0.0.1"
      components.port = server.port
      components.fragment = nil
      var headers: [String: String] = [:]
      for field in planted.request.headers { headers[field.name] = field.value }
      let (body, response) = try await fetch(
        try #require(components.url), method: planted.request.method.rawValue, headers: headers,
        body: planted.request.body)
      return (body, response.statusCode)
    }

    @Test func noPlantedSecretReachesThe404BodyTheDashboardTheHAROrTheRequestLog() async throws {
      let backend = quietBackend()
      for planted in PlantedSecrets.all {
        // Close to each request, but wanting a key it does not send: every request is a near miss.
        backend.stub(
          .method(planted.request.method) && .path(planted.request.url.path)
            && .header("X-Api-Key", "sk-proj-Stub0Wanted1This2Key3Instead4"), .ok)
      }
      let lines = Locked([String]())
      var configuration = StubServer.Configuration()
      // As `doppel serve` prints its request log.
      configuration.onRequest = { served in
        lines.withLock { $0.append(Redaction.default.redact(line: served.description)) }
      }
      try await withStubServer(backend, configuration: configuration) { server in
        var bodies: [String] = []
        for planted in PlantedSecrets.all {
          let (body, status) = try await Self.send(planted, to: server)
          #expect(status == 404, "\(planted.kind)")
          bodies.append(body)
        }
        let shown = bodies.joined(separator: "\n")
        #expect(shown.contains("No stub matched"))
        #expect(PlantedSecrets.leaks(in: shown) == [], "the 404 bodies")
        let journal = try await fetch(server.url("/__doppel/requests")).body
        #expect(journal.contains("password=REDACTED"), "the dashboard's journal keeps the form's field name")
        #expect(PlantedSecrets.leaks(in: journal) == [], "the admin API's journal, which the dashboard shows")
        let har = try await fetch(server.url("/__doppel/requests.har")).body
        #expect(PlantedSecrets.leaks(in: har) == [], "the journal's HAR")
      }
      let log = lines.withLock { $0 }
      #expect(log.count == PlantedSecrets.all.count)
      #expect(PlantedSecrets.leaks(in: log.joined(separator: "\n")) == [], "the request log")
      #expect(!log.joined().contains("Stub0Wanted1This2Key3Instead4"), "the request log")
    }

    /// A stub written for one client's credentials holds them; the admin API's list of stubs
    /// (which the dashboard shows) replaces them as the journal does, a stub added in code and
    /// one added through the admin API alike, and `journalRedaction: .disabled` shows them as
    /// written.
    @Test func theListOfStubsShowsNoSecretAStubExpects() async throws {
      let wanted = "sk-proj-Stub0Wanted1This2Key3Instead4"
      let token = "ghp_R4nd0mT0k3nV4lu3F0rTh3Adm1nAPI0123"
      let backend = quietBackend()
      backend.stub(.get("/me") && .header("X-Api-Key", wanted), .ok)
      let definition = """
        {"request": {"method": "GET", "url": "/orders", "headers": {"Authorization": "Bearer \(token)"}},
         "response": {"json": {"session": {"password": "hunter2-but-longer"}}}}
        """
      for redaction in [nil, Redaction.disabled] {
        var configuration = StubServer.Configuration()
        configuration.admin.journalRedaction = redaction
        try await withStubServer(backend, configuration: configuration) { server in
          let (_, added) = try await fetch(
            server.url("/__doppel/stubs"), method: "POST", headers: ["Content-Type": "application/json"],
            body: Data(definition.utf8))
          #expect(added.statusCode == 201)
          let list = try await fetch(server.url("/__doppel/stubs")).body
          if redaction == nil {
            #expect(!list.contains(wanted))
            #expect(!list.contains(token))
            #expect(!list.contains("hunter2"))
            #expect(list.contains("X-Api-Key: <redacted: \(wanted.count) chars>"))
            #expect(list.contains(#""password":"REDACTED""#))
          } else {
            #expect(list.contains(wanted))
            #expect(list.contains(token))
          }
        }
      }
    }
  }
#endif
