#if Server
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Shaped like a UI test: `doppel serve` runs as a process of its own, an "app" talks to it with
  /// URLSession as it would to its real backend, and the test drives the server only through
  /// DoppelRemote.
  @Suite(.timeLimit(.minutes(1))) struct RemoteControlTests {
    /// The app under test: shows who is signed in, or a sign-in prompt.
    struct ProfileApp {
      let baseURL: URL
      let session = URLSession(configuration: .ephemeral)

      func screen() async throws -> String {
        let (data, response) = try await session.data(from: baseURL.appendingPathComponent("me"))
        switch (response as? HTTPURLResponse)?.statusCode {
        case 200:
          let user = try JSONDecoder().decode([String: String].self, from: data)
          return "Hello, \(user["name"] ?? "?")"
        case 401: return "Please sign in"
        default: return "Something went wrong"
        }
      }

      func signIn() async throws {
        var request = URLRequest(url: baseURL.appendingPathComponent("login"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"user":"ada"}"#.utf8)
        _ = try await session.data(for: request)
      }

      func breeds() async throws -> String {
        let (data, _) = try await session.data(from: baseURL.appendingPathComponent("breeds"))
        return String(decoding: data, as: UTF8.self)
      }
    }

    private func serve() throws -> (DoppelProcess, URL) {
      let directory = try temporaryDirectory()
      try Data(
        #"""
        {
          "stubs": [
            { "request": "GET https://api.example.com/me", "response": { "status": 401 } },
            { "request": "POST https://api.example.com/login", "response": { "status": 204 }, "setsState": "signedIn" },
            { "request": "GET https://api.example.com/me", "response": { "json": {"name": "Ada"} }, "requiresState": "signedIn" },
            { "request": "GET https://api.example.com/breeds", "response": { "json": ["Abyssinian"] } }
          ],
          "scenarios": {
            "empty": { "stubs": [ { "request": "GET https://api.example.com/breeds", "response": { "json": [] } } ] }
          }
        }
        """#.utf8
      ).write(to: directory.appendingPathComponent("doppel.json"))
      return (try DoppelProcess(["serve", directory.path, "--port", "0", "--no-watch", "--quiet"]), directory)
    }

    @Test func aTestDrivesEveryStateOfTheAppThroughDoppelRemote() async throws {
      let (doppel, _) = try serve()
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      let app = ProfileApp(baseURL: base)
      let remote = DoppelRemote(base)

      #expect(try await app.screen() == "Please sign in")
      try await app.signIn()
      #expect(try await app.screen() == "Hello, Ada")
      #expect(try await remote.state() == "signedIn")

      // Override one endpoint from the test, then take the override away.
      let outage = try await remote.stub(.get("/me"), .status(503), name: "outage")
      #expect(outage.isAddedAtRunTime)
      #expect(outage.location.hasPrefix("RemoteControlTests.swift:"))
      #expect(try await app.screen() == "Something went wrong")
      try await remote.remove(outage)
      #expect(try await app.screen() == "Hello, Ada")

      try await remote.setState("initial")
      #expect(try await app.screen() == "Please sign in")
      try await remote.setState("full", ofMachine: "basket")
      #expect(try await remote.state(ofMachine: "basket") == "full")
      try await remote.resetStates()
      #expect(try await remote.state(ofMachine: "basket") == "initial")

      // Scenarios.
      #expect(try await app.breeds() == #"["Abyssinian"]"#)
      try await remote.use(scenario: "empty")
      #expect(try await app.breeds() == "[]")
      #expect(try await remote.scenarios().active == "empty")

      // The journal and verification.
      try await remote.verify(.post("https://api.example.com/login") && .jsonBody(["user": "ada"]), count: 1)
      try await remote.verify(.get("/me"), atLeast: 4)
      let logins = try await remote.requests(matching: .post("/login"))
      #expect(logins.map(\.bodyText) == [#"{"user":"ada"}"#])
      await #expect(throws: DoppelError.self) { try await remote.verify(.get("/settings"), count: 1) }
      do {
        try await remote.verify(.get("/breed"), count: 1)
      } catch let error as DoppelError {
        #expect(error.message.hasPrefix("Expected exactly 1 request matching GET /breed; found 0 among the"))
        #expect(error.message.contains("✗ path   expected \"/breed\", got \"/breeds\""))
      }

      // Back to what the files say.
      _ = try await remote.stub(.get("/breeds"), .json(["Bengal"] as JSONValue))
      #expect(try await app.breeds() == #"["Bengal"]"#)
      try await remote.reset()
      #expect(try await app.breeds() == #"["Abyssinian"]"#)
      #expect(try await remote.scenarios().active == nil)
      #expect(try await remote.journal().entries.count == 1)
      #expect(try await remote.removeStubs() == 0)
    }

    @Test func whatCannotBeSentOrIsRefusedSaysWhy() async throws {
      let (doppel, _) = try serve()
      defer { doppel.interrupt() }
      let remote = DoppelRemote(try await doppel.serverURL())
      await #expect(
        throws: DoppelError(
          "A closure responder cannot be sent to a stub server: it runs only in the process that made it. Send a fixed response or a .sequence([…]); for an answer that depends on the request, add a stub per case."
        )
      ) { try await remote.stub(.get("/me"), .handler { _ in .ok }) }
      await #expect(
        throws: DoppelError(
          #"The stub server refused PUT /__doppel/scenario (404): request body: scenario: there is no scenario "emtpy". Did you mean "empty"? The scenarios are: empty."#
        )
      ) { try await remote.use(scenario: "emtpy") }
      await #expect(
        throws: DoppelError(
          #"The stub server refused POST /__doppel/stubs (403): request body:1:93: response.file: a stub added through the admin API may name no file: the server has no folder for its files. Start the server with one (doppel serve --admin-files DIR, or StubServer.AdminAPI.fixtureDirectory) and name a file inside it, or send the body as "json" or "text"."#
        )
      ) { try await remote.stub(.get("/me"), .file(URL(fileURLWithPath: "/nonexistent/me.json"))) }
    }

    @Test func theJournalLimitAndAdminPrefixAreCheckedOptions() async throws {
      let limit = try await DoppelProcess.run(["serve", "--journal-limit", "0", "--port", "0"])
      #expect(limit.status != 0)
      #expect(
        limit.error.contains("--journal-limit 0 is out of range; use 1 to 10000000 (requests the journal keeps)."))
      let prefix = try await DoppelProcess.run(["serve", "--admin-prefix", "admin", "--port", "0"])
      #expect(prefix.status != 0)
      #expect(prefix.error.contains("--admin-prefix admin is not a path prefix; write one such as /__doppel/, or off."))
    }

    @Test func theJournalKeepsTheNewestRequestsAndCountsTheDropped() async throws {
      let directory = try temporaryDirectory()
      try Data(#"{"stubs": [{"request": "/ping", "response": {"text": "pong"}}]}"#.utf8)
        .write(to: directory.appendingPathComponent("doppel.json"))
      let doppel = try DoppelProcess(
        [
          "serve", directory.path, "--port", "0", "--no-watch", "--quiet", "--journal-limit", "3",
          "--admin-prefix", "/_admin/",
        ])
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      for _ in 0..<5 { _ = try await fetch(base.appendingPathComponent("ping")) }
      let remote = DoppelRemote(base, adminPrefix: "/_admin/")
      let (entries, next) = try await remote.journal()
      #expect(entries.map(\.index) == [2, 3, 4])
      #expect(next == 5)
      let (_, body) = try await fetch(base.appendingPathComponent("_admin/"))
      #expect(body.contains(#""droppedRequests":2"#))
      #expect(body.contains(#""journalLimit":3"#))
    }

    @Test func aBodyOverTheJournalBodyLimitIsJournaledAsItsLengthAndDigest() async throws {
      let directory = try temporaryDirectory()
      try Data(#"{"stubs": [{"request": "POST /upload", "response": {"status": 204}}]}"#.utf8)
        .write(to: directory.appendingPathComponent("doppel.json"))
      let doppel = try DoppelProcess(
        ["serve", directory.path, "--port", "0", "--no-watch", "--quiet", "--journal-body-kib", "1"])
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      for size in [1024, 1025] {
        var request = URLRequest(url: base.appendingPathComponent("upload"))
        request.httpMethod = "POST"
        request.httpBody = Data(repeating: UInt8(ascii: "x"), count: size)
        _ = try await realSession.data(for: request)
      }
      let (entries, _) = try await DoppelRemote(base).journal()
      #expect(entries.map { $0.request.body?.count } == [1024, nil])
      #expect(entries.map(\.omittedBody?.length) == [nil, 1025])
      #expect(entries[1].omittedBody?.sha256 == "\(Self.sha256OfXs1025)")

      let refused = try await DoppelProcess.run(["serve", "--journal-body-kib", "2000000", "--port", "0"])
      #expect(
        refused.error.contains(
          "--journal-body-kib 2000000 is out of range; use 0 to 1048576 (kibibytes of the largest body journaled whole)."
        ))
    }

    /// `printf 'x%.0s' $(seq 1025) | shasum -a 256`
    static let sha256OfXs1025 = "c6d8e9905300876046729949cc95c2385221270d389176f7234fe7ac00c4e430"
  }
#endif
