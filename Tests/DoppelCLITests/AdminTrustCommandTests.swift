#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// `doppel serve`'s and `doppel record`'s admin API options: a token, a folder for files, proxy
  /// hosts, CORS; and `doppel record` without an admin API unless asked for.
  @Suite(.timeLimit(.minutes(1))) struct AdminTrustCommandTests {
    private func project() throws -> URL {
      let directory = try temporaryDirectory()
      try Data(#"{"stubs": [{"request": "/ping", "response": {"text": "pong"}}]}"#.utf8)
        .write(to: directory.appendingPathComponent("doppel.json"))
      return directory
    }

    @Test func aGeneratedTokenIsPrintedAndRequiredAndRefusalsAreLogged() async throws {
      let directory = try project()
      let doppel = try DoppelProcess([
        "serve", directory.path, "--port", "0", "--no-watch", "--quiet", "--admin-token", "generate",
      ])
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      let line = try await doppel.line(containing: "The admin API's token is ")
      let token = String(line.dropFirst("The admin API's token is ".count).prefix(64))
      #expect(token.count == 64)
      #expect(
        line
          == "The admin API's token is \(token); send it as Authorization: Bearer \(token) (DoppelRemote(url, token: …))."
      )
      #expect(try await DoppelRemote(base, token: token).state() == "initial")
      await #expect(throws: DoppelError.self) { try await DoppelRemote(base, token: "wrong").state() }
      let refused = try await doppel.line(containing: "Refused GET /__doppel/state (401)")
      #expect(
        refused
          == "Refused GET /__doppel/state (401): the admin API's token does not match the one this request sends. Send Authorization: Bearer <token> with the token the server was started with (doppel serve --admin-token, StubServer.AdminAPI.token; DoppelRemote's token:)."
      )
    }

    @Test func adminFilesAndProxyHostsAreWhatStubsAddedRemotelyMayReach() async throws {
      let directory = try project()
      let files = directory.appendingPathComponent("admin-files")
      try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
      try Data("from the folder".utf8).write(to: files.appendingPathComponent("me.txt"))
      let doppel = try DoppelProcess([
        "serve", directory.path, "--port", "0", "--no-watch", "--quiet", "--admin-files", files.path,
        "--admin-proxy", "127.0.0.1",
      ])
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      let remote = DoppelRemote(base)
      try await remote.stub(.get("/me"), .file(files.appendingPathComponent("me.txt")))
      #expect(try await fetch(base.appendingPathComponent("me")).body == "from the folder")
      do {
        try await remote.stub(.get("/secret"), .file(directory.appendingPathComponent("doppel.json")))
        Issue.record("a file outside --admin-files was accepted")
      } catch let error as DoppelError {
        #expect(
          error.message.hasSuffix(
            "is outside the folder for files of stubs added through the admin API, \(files.standardizedFileURL.path): it is an absolute path outside it. Such a stub names files only inside that folder; move the file into it and name it relative to it."
          ))
      }
      try await remote.stub(.get("/up"), .proxy(to: URL(string: "http://127.0.0.1:9")!))
      await #expect(throws: DoppelError.self) {
        try await remote.stub(.get("/away"), .proxy(to: URL(string: "https://example.com")!))
      }
    }

    @Test func saveStubsToIsTheOneFolderTheDashboardSavesStubsInto() async throws {
      let help = try await DoppelProcess.run(["serve", "--help"])
      #expect(help.output.contains("--save-stubs-to <dir>"))
      let directory = try project()
      defer { try? FileManager.default.removeItem(at: directory) }
      let missing = directory.appendingPathComponent("nowhere").path
      let refused = try await DoppelProcess.run(["serve", directory.path, "--port", "0", "--save-stubs-to", missing])
      #expect(refused.status != 0)
      #expect(refused.error.contains("--save-stubs-to \(missing) is not a folder; create it, or name an existing one."))
      let off = try await DoppelProcess.run([
        "serve", directory.path, "--port", "0", "--admin-prefix", "off", "--save-stubs-to", directory.path,
      ])
      #expect(off.status != 0)
      #expect(
        off.error.contains(
          "--save-stubs-to \(directory.path) saves stubs through the admin API, which is off; drop --save-stubs-to, or pass --admin-prefix"
        ))

      let saved = directory.appendingPathComponent("saved")
      try FileManager.default.createDirectory(at: saved, withIntermediateDirectories: true)
      let doppel = try DoppelProcess([
        "serve", directory.path, "--port", "0", "--no-watch", "--quiet", "--save-stubs-to", saved.path,
      ])
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      let (status, body) = try await fetch(
        base.appendingPathComponent("__doppel/saved-stubs"), method: "POST",
        headers: ["Content-Type": "application/json"],
        body: #"{"file": "orders.json", "stub": {"request": "GET /orders/{id}", "response": {"json": {"id": 1}}}}"#)
      #expect(status == 201, "\(body)")
      let served = try await fetch(base.appendingPathComponent("orders/5"))
      #expect(try JSONValue(parsing: Data(served.body.utf8)) == ["id": 1])
      let manifest = try Manifest.load(contentsOf: saved.appendingPathComponent("orders.json"))
      #expect(try Backend(manifest: manifest, issueReporter: .ignore).stubs.count == 1)
    }

    @Test func theCORSOptionNamesWhoMayReadStubs() async throws {
      let doppel = try DoppelProcess([
        "serve", try project().path, "--port", "0", "--no-watch", "--quiet", "--cors", "http://localhost:3000",
      ])
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      var request = URLRequest(url: base.appendingPathComponent("ping"))
      request.setValue("http://localhost:3000", forHTTPHeaderField: "Origin")
      let (_, response) = try await realSession.data(for: request)
      #expect(
        (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Access-Control-Allow-Origin")
          == "http://localhost:3000")
      let bad = try await DoppelProcess.run(["serve", "--cors", "localhost:3000", "--port", "0"])
      #expect(
        bad.error.contains("--cors localhost:3000 is not an http or https URL; write it as https://api.example.com."))
    }

    @Test func recordHasNoAdminAPIUnlessAskedFor() async throws {
      let help = try await DoppelProcess.run(["record", "--help"])
      #expect(help.output.contains("There is no admin API unless --admin is given: every request is recorded."))
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.post("/__doppel/reset"), .text("the upstream's own path"))
      let directory = try temporaryDirectory()
      // The upstream serves the path itself, with no admin API of its own.
      var upstreamConfiguration = StubServer.Configuration()
      upstreamConfiguration.admin.pathPrefix = nil
      try await withStubServer(upstream, configuration: upstreamConfiguration) { real in
        let plain = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", directory.appendingPathComponent("a.har").path,
          "--port", "0", "--quiet",
        ])
        defer { plain.interrupt() }
        let proxy = try await plain.serverURL()
        let (status, body) = try await fetch(proxy.appendingPathComponent("__doppel/reset"), method: "POST")
        #expect(status == 200)
        #expect(body == "the upstream's own path")

        let withAdmin = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", directory.appendingPathComponent("b.har").path,
          "--port", "0", "--quiet", "--admin", "--admin-token", "t0ken",
        ])
        defer { withAdmin.interrupt() }
        let adminBase = try await withAdmin.serverURL()
        #expect(
          try await withAdmin.line(containing: "The admin API is at")
            == "The admin API is at \(adminBase.absoluteString)/__doppel/")
        #expect(try await DoppelRemote(adminBase, token: "t0ken").state() == "initial")
        let (refused, _) = try await fetch(adminBase.appendingPathComponent("__doppel/state"))
        #expect(refused == 401)
      }
      let misuse = try await DoppelProcess.run([
        "record", "--upstream", "http://127.0.0.1:9", "--out", "x.har", "--admin-token", "t",
      ])
      #expect(misuse.status != 0)
      #expect(
        misuse.error.contains(
          "--admin-token, --admin-token-file, --admin-files and --admin-proxy set up the admin API, which doppel record serves only with --admin. Add --admin, or drop them."
        ))
    }

    /// With `--admin`: a reset or a cleared journal takes no later exchange out of the cassette, a
    /// stub added through the admin API is not recorded as the upstream's answer, and the journal
    /// the admin API shows is redacted as the cassette is.
    @Test func recordWithTheAdminAPIRecordsOnlyTheUpstreamAndShowsTheJournalRedacted() async throws {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/items/{id}")) { request in .text("item \(request.pathParameters["id"] ?? "")") }
      let directory = try temporaryDirectory()
      let cassette = directory.appendingPathComponent("admin.har")
      try await withStubServer(upstream) { real in
        let recording = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0", "--quiet",
          "--admin",
        ])
        defer { recording.interrupt() }
        let base = try await recording.serverURL()
        let remote = DoppelRemote(base)
        let secret = ["Authorization": "Bearer s3cret-t0ken-value"]
        for id in 1...3 {
          #expect(try await fetch(base.appendingPathComponent("items/\(id)"), headers: secret).body == "item \(id)")
        }
        let (journal, _) = try await remote.journal()
        #expect(journal.map { $0.request.path } == ["/items/1", "/items/2", "/items/3"])
        #expect(journal.map { $0.request.headers["Authorization"] } == Array(repeating: "REDACTED", count: 3))
        try await remote.reset()
        for id in 4...5 {
          #expect(try await fetch(base.appendingPathComponent("items/\(id)")).body == "item \(id)")
        }
        try await remote.clearJournal()
        try await remote.stub(.get("/items/6"), .text("made up"))
        #expect(try await fetch(base.appendingPathComponent("items/6")).body == "made up")
        #expect(try await fetch(base.appendingPathComponent("items/7")).body == "item 7")
        recording.interrupt()
        #expect(await recording.waitForExit() == 0)
        await recording.output.waitForEnd()
        #expect(
          recording.outputLines.suffix(2) == [
            "Saved 6 exchanges to \(cassette.path).",
            "Left out 1 answer of stubs added through the admin API: the cassette holds only what \(real.baseURL.absoluteString) answered.",
          ])
      }
      let recorded = try Cassette.load(from: cassette).entries
      #expect(
        recorded.map { URL(string: $0.request.url)?.path } == [
          "/items/1", "/items/2", "/items/3", "/items/4", "/items/5", "/items/7",
        ])
      #expect(
        recorded.map { $0.response.content.text } == ["item 1", "item 2", "item 3", "item 4", "item 5", "item 7"])
      #expect(!(try String(contentsOf: cassette, encoding: .utf8)).contains("s3cret-t0ken-value"))
    }
  }
#endif
