#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// `doppel record` against a second loopback server, then `doppel serve` on the cassette; and
  /// `doppel lint` finding what it should.
  @Suite(.timeLimit(.minutes(1))) struct RecordAndLintCommandTests {
    @Test func recordsAnUpstreamThenServesTheCassette() async throws {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/breeds.json"), .json(["Abyssinian", "Bengal"], headers: ["X-Upstream": "yes"]))
      upstream.stub(.post("/orders")) { request in .text("ordered \(request.bodyText ?? "")", status: 201) }
      let directory = try temporaryDirectory()
      let cassette = directory.appendingPathComponent("api.har")

      try await withStubServer(upstream) { real in
        let recorder = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0",
        ])
        let proxy = try await recorder.serverURL()
        let (status, body) = try await fetch(
          proxy.appendingPathComponent("breeds.json"), headers: ["Authorization": "Bearer s3cr3t-t0ken-value"])
        #expect(status == 200)
        #expect(body == #"["Abyssinian","Bengal"]"#)
        var order = URLRequest(url: proxy.appendingPathComponent("orders"))
        order.httpMethod = "POST"
        order.httpBody = Data("two".utf8)
        let (data, response) = try await realSession.data(for: order)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(String(decoding: data, as: UTF8.self) == "ordered two")
        _ = try await recorder.line(containing: "POST /orders")
        recorder.interrupt()
        #expect(await recorder.waitForExit() == 0)
        #expect(recorder.outputLines.last == "Saved 2 exchanges to \(cassette.path).")
        // The URL to use comes first, alone; the upstream's only after it.
        #expect(recorder.outputLines.first == proxy.absoluteString)
        #expect(
          recorder.outputLines.dropFirst().first
            == "Recording what \(real.baseURL.absoluteString) answers into \(cassette.path): send requests to the URL above. Press Ctrl-C to stop and save."
        )
      }
      // The upstream saw the requests as sent to it.
      #expect(upstream.requests.map(\.path) == ["/breeds.json", "/orders"])
      #expect(upstream.requests[0].headers["Authorization"] == "Bearer s3cr3t-t0ken-value")

      let saved = try String(contentsOf: cassette, encoding: .utf8)
      #expect(!saved.contains("s3cr3t"))
      #expect(saved.contains(Redaction.marker))
      let lint = try await DoppelProcess.run(["lint", cassette.path])
      #expect(lint.status == 0)

      // The upstream is gone; the cassette answers.
      let server = try DoppelProcess(["serve", cassette.path, "--port", "0", "--no-watch"])
      let base = try await server.serverURL()
      let (status, body) = try await fetch(base.appendingPathComponent("breeds.json"))
      #expect(status == 200)
      #expect(body == #"["Abyssinian","Bengal"]"#)
      _ = try await server.line(containing: "GET /breeds.json → 200 (")
      server.interrupt()
      #expect(await server.waitForExit() == 0)
    }

    @Test func aRedirectReachesTheClientAndEachHopIsRecorded() async throws {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/old"), .text("moved", status: 301).header("Location", "/new"))
      upstream.stub(.get("/new"), .text("the new place"))
      let directory = try temporaryDirectory()
      let cassette = directory.appendingPathComponent("moved.har")

      try await withStubServer(upstream) { real in
        let recorder = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0",
        ])
        let proxy = try await recorder.serverURL()
        // URLSession follows the redirect the proxy passes on, back through the proxy.
        let (status, body) = try await fetch(proxy.appendingPathComponent("old"))
        #expect(status == 200)
        #expect(body == "the new place")
        _ = try await recorder.line(containing: "GET /new")
        recorder.interrupt()
        #expect(await recorder.waitForExit() == 0)
        #expect(recorder.outputLines.last == "Saved 2 exchanges to \(cassette.path).")
      }
      #expect(upstream.requests.map(\.path) == ["/old", "/new"])
      let saved = try Cassette.load(from: cassette)
      #expect(saved.entries.map(\.response.status) == [301, 200])
      #expect(saved.entries.map { URL(string: $0.request.url)?.path } == ["/old", "/new"])
    }

    @Test func lintFindsAPlantedSecretWithItsPosition() async throws {
      let directory = try temporaryDirectory()
      let cassette = directory.appendingPathComponent("leaky.har")
      let leaky = Cassette(entries: [
        try HAREntry(
          request: Request(
            url: URL(string: "https://api.example.com/me")!,
            headers: ["Accept": "application/json", "Authorization": "Bearer abcdefghijklmnop123456"]),
          response: .json(["name": "Ada"]))
      ])
      // Saved without redaction, as a careless export would be.
      try leaky.save(to: cassette, redaction: Redaction())
      let result = try await DoppelProcess.run(["lint", cassette.path])
      #expect(result.status == 1)
      let line = try #require(result.output.split(separator: "\n").first { $0.contains("Authorization") })
      let text = try String(contentsOf: cassette, encoding: .utf8)
      let lineNumber =
        try #require(
          text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("Bearer abcdef") }) + 1
      #expect(line.hasPrefix("\(cassette.path):\(lineNumber):"))
      #expect(line.contains(": log.entries[0].request.headers.Authorization: bearer token"))
      #expect(result.error.contains("1 problem in 1 of 1 file"))
    }

    @Test func lintReportsManifestErrorsWithTheirPosition() async throws {
      let directory = try temporaryDirectory()
      let manifest = directory.appendingPathComponent("doppel.json")
      try Data(
        #"""
        {
          "stubs": [
            { "request": "GET /a", "response": { "file": "missing.json" } }
          ]
        }
        """#.utf8
      ).write(to: manifest)
      let clean = directory.appendingPathComponent("clean.json")
      try Data(#"{"stubs": [{"request": "GET /b", "response": {"status": 204}}]}"#.utf8).write(to: clean)
      let result = try await DoppelProcess.run(["lint", manifest.path, clean.path])
      #expect(result.status == 1)
      #expect(result.output.contains("\(manifest.path):3:"))
      #expect(result.output.contains("missing.json"))
      #expect(!result.output.contains(clean.path))

      let ok = try await DoppelProcess.run(["lint", clean.path])
      #expect(ok.status == 0)
      #expect(ok.output.contains("No problems in 1 file."))
    }

    @Test func lintFindsASecretInAManifest() async throws {
      let directory = try temporaryDirectory()
      let manifest = directory.appendingPathComponent("doppel.json")
      try Data(
        #"""
        {
          "stubs": [
            {
              "request": "GET /me",
              "response": { "json": { "login": "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token": "t" } }
            }
          ]
        }
        """#.utf8
      ).write(to: manifest)
      let result = try await DoppelProcess.run(["lint", directory.path])
      #expect(result.status == 1)
      #expect(result.output.contains("stubs[0].response.json.login: GitHub token"))
      #expect(result.output.contains("stubs[0].response.json.token: secret JSON field \"token\""))
      #expect(result.output.contains("doppel.json:"))
    }

    @Test func lintReportsEveryProblemWithThePathAsTyped() async throws {
      let directory = try temporaryDirectory()
      try FileManager.default.createDirectory(
        at: directory.appendingPathComponent("fixtures"), withIntermediateDirectories: true)
      try Data(
        #"""
        {"stubs": [
          {"request": "/a", "response": {"delay": 1e308}},
          {"request": "/b", "response": {"status": 200.5}},
          {"request": "/c", "response": {"chunked": {"size": 1, "every": 1e21}}}
        ]}
        """#.utf8
      ).write(to: directory.appendingPathComponent("fixtures/doppel.json"))
      try Data(
        #"{"log": {"entries": [{"request": {"method": "G E T", "url": "https://a.com/"}, "response": {"status": 42}}]}}"#
          .utf8
      ).write(to: directory.appendingPathComponent("bad.har"))
      let result = try await DoppelProcess.run(["lint", "fixtures", "./bad.har"], directory: directory)
      #expect(result.status == 1)
      let tooLong =
        #"is longer than the longest duration, 86400 seconds (24 hours). Write a shorter one; for a response that never comes, write "never": true."#
      #expect(
        result.output.split(separator: "\n").map(String.init) == [
          "fixtures/doppel.json:2:43: stubs[0].response.delay: 1e308 seconds \(tooLong)",
          "fixtures/doppel.json:3:44: stubs[1].response.status: expected an HTTP status from 100 to 599, found the number 200.5, which is not a whole number.",
          "fixtures/doppel.json:4:66: stubs[2].response.chunked.every: 1e21 seconds \(tooLong)",
          #"./bad.har:1:45: log.entries[0].request.method: "G E T" is not an HTTP method: a method is one word of letters, digits or !#$%&'*+-.^_`|~, such as GET or POST. Fix the method."#,
        ])
      #expect(result.error.contains("4 problems in 2 of 2 files"))
    }

    @Test(arguments: ["serve", "record", "convert", "lint", "trust"])
    func helpFitsEightyColumnsAndBreaksNoCodePhrase(command: String) async throws {
      let result = try await DoppelProcess.run([command, "--help"], environment: ["COLUMNS": "80"])
      #expect(result.status == 0)
      let lines = result.output.split(separator: "\n")
      let long = lines.filter { $0.count > 80 }
      #expect(long.isEmpty, "\(long)")
      // A `command phrase` starts and ends on one line.
      let broken = lines.filter { $0.count { $0 == "`" } % 2 == 1 }
      #expect(broken.isEmpty, "\(broken)")
    }
  }
#endif
