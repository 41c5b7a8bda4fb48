#if Server
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// `doppel serve` end to end: the built executable, a real port, real requests.
  @Suite(.timeLimit(.minutes(1))) struct ServeCommandTests {
    /// A manifest with one stub and one scenario, in a directory of its own.
    private func manifestDirectory() throws -> URL {
      let directory = try temporaryDirectory()
      try Data(#"[{"name": "Abyssinian"}]"#.utf8).write(to: directory.appendingPathComponent("breeds.json"))
      try Data(
        #"""
        {
          "stubs": [
            { "name": "breeds", "request": "GET https://api.example.com/breeds.json", "response": { "file": "breeds.json" } }
          ],
          "scenarios": {
            "empty": {
              "stubs": [
                { "request": "GET https://api.example.com/breeds.json", "response": { "json": [] } }
              ]
            }
          }
        }
        """#.utf8
      ).write(to: directory.appendingPathComponent("doppel.json"))
      return directory
    }

    @Test func servesAManifestAndLogsEveryRequest() async throws {
      let directory = try manifestDirectory()
      let doppel = try DoppelProcess(["serve", directory.path, "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      #expect(try await doppel.line(containing: "Serving").contains("1 stub"))

      let (status, body) = try await fetch(base.appendingPathComponent("breeds.json"))
      #expect(status == 200)
      #expect(body == #"[{"name": "Abyssinian"}]"#)
      let matched = try await doppel.line(containing: "GET /breeds.json")
      #expect(matched == #"GET /breeds.json → 200 (doppel.json:3 "breeds")"#)

      let (missStatus, report) = try await fetch(base.appendingPathComponent("breed.json"))
      #expect(missStatus == 404)
      #expect(report.contains("No stub matched GET https://api.example.com/breed.json"))
      let missed = try await doppel.line(containing: "GET /breed.json")
      #expect(
        missed
          == #"GET /breed.json → 404, no stub matched (closest: GET https://api.example.com/breeds.json; path differs); a stub for it: {"request":"GET https://api.example.com/breed.json","response":{"status":200}}"#
      )
      #expect(
        report.hasSuffix(
          """
          Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
            backend.stub(.get("https://api.example.com/breed.json"), .status(200))
            {"request":"GET https://api.example.com/breed.json","response":{"status":200}}

          """))

      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
      #expect(doppel.outputLines.last == "Stopped.")
    }

    @Test func aScenarioIsLayeredOverTheBaseStubs() async throws {
      let directory = try manifestDirectory()
      let doppel = try DoppelProcess(["serve", directory.path, "--scenario", "empty", "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      #expect(try await fetch(base.appendingPathComponent("breeds.json")).body == "[]")
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func servesTheCatFancyManifest() async throws {
      let fixtures = packageRoot.appendingPathComponent("Examples/CatFancy/Sources/CatFancyKit/Fixtures")
      let doppel = try DoppelProcess(["serve", fixtures.path, "--scenario", "withMore", "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      let (status, body) = try await fetch(base.appendingPathComponent("CatFancy/breeds.json"))
      #expect(status == 200)
      let expected = try String(contentsOf: fixtures.appendingPathComponent("breeds_with_more.json"), encoding: .utf8)
      #expect(body == expected)
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func anEditedManifestIsReloaded() async throws {
      let directory = try manifestDirectory()
      let doppel = try DoppelProcess(["serve", directory.path, "--port", "0"])
      let base = try await doppel.serverURL()
      #expect(try await fetch(base.appendingPathComponent("new")).status == 404)
      try Data(
        #"{"stubs": [{"request": "GET /new", "response": {"text": "fresh", "status": 201}}]}"#.utf8
      ).write(to: directory.appendingPathComponent("doppel.json"))
      _ = try await doppel.line(containing: "Reloaded")
      let (status, body) = try await fetch(base.appendingPathComponent("new"))
      #expect(status == 201)
      #expect(body == "fresh")

      // A broken edit keeps the previous version serving.
      try Data("{ not json".utf8).write(to: directory.appendingPathComponent("doppel.json"))
      _ = try await doppel.errors.first { $0.contains("Not reloaded") }
      #expect(try await fetch(base.appendingPathComponent("new")).status == 201)
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func badInputIsAClearErrorAndAFailingStatus() async throws {
      let missing = try await DoppelProcess.run(["serve", "/nonexistent/doppel.json", "--port", "0"])
      #expect(missing.status != 0)
      #expect(missing.error.contains("/nonexistent/doppel.json: no such file or directory"))

      let directory = try manifestDirectory()
      let scenario = try await DoppelProcess.run(["serve", directory.path, "--scenario", "emty", "--port", "0"])
      #expect(scenario.status != 0)
      #expect(scenario.error.contains("there is no scenario \"emty\""))
      #expect(scenario.error.contains("empty"))

      let remote = try await DoppelProcess.run(["serve", directory.path, "--host", "0.0.0.0", "--port", "0"])
      #expect(remote.status != 0)
      #expect(remote.error.contains("--allow-remote"))

      let nothing = try await DoppelProcess.run(["serve", "--port", "0"], directory: try temporaryDirectory())
      #expect(nothing.status != 0)
      #expect(nothing.error.contains("Nothing to serve"))

      let port = try await DoppelProcess.run(["serve", "--port", "70000"])
      #expect(port.status != 0)
      #expect(port.error.contains("--port 70000 is not a TCP port"))

      for (option, value, message) in [
        ("--header-timeout", "0", "--header-timeout 0.0 is out of range; use seconds from 0.001 to 86400."),
        ("--body-timeout", "1e308", "--body-timeout 1e+308 is out of range; use seconds from 0.001 to 86400."),
        ("--idle-timeout", "nan", "--idle-timeout nan is out of range; use seconds from 0.001 to 86400."),
        (
          "--websocket-idle-timeout", "0",
          "--websocket-idle-timeout 0.0 is out of range; use seconds from 0.001 to 86400."
        ),
        ("--max-connections", "0", "--max-connections 0 is out of range; use 1 to 1000000."),
        ("--admin-port", "65536", "--admin-port 65536 is not a TCP port; use 0 to 65535."),
      ] {
        let refused = try await DoppelProcess.run(["serve", directory.path, "--port", "0", option, value])
        #expect(refused.status != 0)
        #expect(refused.error.contains(message))
      }
      let adminOff = try await DoppelProcess.run([
        "serve", directory.path, "--port", "0", "--admin-prefix", "off", "--admin-port", "0",
      ])
      #expect(adminOff.status != 0)
      #expect(
        adminOff.error.contains(
          "--admin-port 0 asks for the admin API, which is off; drop --admin-port, or pass --admin-prefix."))
    }

    @Test func theAdminAPICanListenOnAPortOfItsOwn() async throws {
      let directory = try manifestDirectory()
      let doppel = try DoppelProcess(["serve", directory.path, "--port", "0", "--admin-port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      let line = try await doppel.line(containing: "The admin API is at")
      let admin = try #require(URL(string: String(line.dropFirst("The admin API is at ".count))))
      #expect(admin.port != base.port)
      let (status, body) = try await fetch(admin.appendingPathComponent("scenario"))
      #expect(status == 200)
      #expect(body.contains(#""scenarios":["empty"]"#))
      let (missStatus, _) = try await fetch(base.appendingPathComponent("__doppel/scenario"))
      #expect(missStatus == 404)
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    /// A cassette whose two entries ask for `/feed` with tokens in the query.
    private func feedCassette() throws -> URL {
      let url = try temporaryDirectory().appendingPathComponent("feed.har")
      try Cassette(entries: [
        HAREntry(
          request: Request(url: URL(string: "https://api.example.com/feed?token=a")!), response: .text("feed 1")),
        HAREntry(
          request: Request(url: URL(string: "https://api.example.com/feed?token=b")!), response: .text("feed 2")),
      ]).save(to: url)
      return url
    }

    @Test func harInputsTakeTheMatchingOptions() async throws {
      let cassette = try feedCassette()
      let doppel = try DoppelProcess(["serve", cassette.path, "--method-and-path", "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      let feed = try #require(URL(string: base.absoluteString + "/feed?token=z&ts=1"))
      #expect(try await fetch(feed) == (200, "feed 1"))
      #expect(try await fetch(feed) == (200, "feed 2"))
      #expect(try await fetch(feed) == (200, "feed 2"))
      let (status, report) = try await fetch(base.appendingPathComponent("food"))
      #expect(status == 404)
      #expect(report.contains("✓ rule   method and path"))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func aCassettesStubsAreDeclaredAtTheirEntriesLines() async throws {
      let cassette = try feedCassette()
      let doppel = try DoppelProcess(["serve", cassette.path, "--port", "0", "--no-watch", "--quiet"])
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      let lines = JSONLocation.entryLines(in: try Data(contentsOf: cassette))
      #expect(lines.count == 2)
      let stubs = try await DoppelRemote(base).stubs()
      // The saved cassette redacted both tokens alike, so one stub answers both entries.
      #expect(stubs.map(\.location) == ["feed.har:\(lines[0])"])
      let (status, report) = try await fetch(base.appendingPathComponent("food"))
      #expect(status == 404)
      #expect(report.contains("feed.har:\(lines[0])"))
      #expect(!report.contains("ServeInputs.swift"))
    }

    @Test func cassetteOptionsThatCannotApplyAreRefused() async throws {
      let cassette = try feedCassette()
      let both = try await DoppelProcess.run([
        "serve", cassette.path, "--method-and-path", "--ignore-query-item", "ts", "--port", "0",
      ])
      #expect(both.status != 0)
      #expect(
        both.error.contains(
          "--method-and-path and --ignore-query-item cannot be used together: each says which query items are compared (--method-and-path ignores them all). Keep one."
        ))
      let noHAR = try await DoppelProcess.run([
        "serve", try manifestDirectory().path, "--replay-timings", "--port", "0",
      ])
      #expect(noHAR.status != 0)
      #expect(
        noHAR.error.contains(
          "The cassette options (such as --method-and-path and --replay-timings) apply to .har inputs, and there are none. Pass the .har files, or give a manifest's cassettes \"matching\" and \"timings\"."
        ))
    }

    @Test func helpDescribesEveryCommand() async throws {
      let help = try await DoppelProcess.run(["--help"])
      #expect(help.status == 0)
      for command in ["serve", "record", "lint"] { #expect(help.output.contains(command)) }
      let serve = try await DoppelProcess.run(["serve", "--help"])
      for option in [
        "--scenario", "--port", "--host", "--allow-remote", "--origin", "--unmatched-status", "--header-timeout",
        "--body-timeout", "--idle-timeout", "--websocket-idle-timeout", "--max-connections", "--no-watch",
        "--admin-prefix", "--admin-port",
        "--method-and-path",
        "--ignore-query-item", "--ignore-all-query-items", "--compare-header", "--ignore-header", "--compare-body",
        "--ignore-json-field", "--replay-timings", "--validate",
      ] {
        #expect(serve.output.contains(option))
      }
      for phrase in [
        "An OpenAPI document (3.0 or 3.1, YAML or JSON; needs the OpenAPI trait)", "Prefer: code=404",
        "With --validate",
      ] {
        #expect(serve.output.contains(phrase))
      }
    }
  }
#endif
