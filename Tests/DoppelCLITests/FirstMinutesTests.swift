#if Server
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// The first minutes of a web or Android developer with `doppel` (issue 49, point 6): what their
  /// own tools do, the tool does too, end to end through the built executable.
  @Suite(.timeLimit(.minutes(1))) struct FirstMinutesTests {
    @Test func aPreflightNoStubAnswersSaysHowToTurnOnCORS() async throws {
      let directory = try temporaryDirectory(holding: [
        "doppel.json": #"{"stubs": [{"request": "GET /v1/x", "response": {"status": 200}}]}"#
      ])
      let doppel = try DoppelProcess(["serve", directory.path, "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      let (status, report) = try await fetch(
        base.appendingPathComponent("v1/y"), method: "OPTIONS",
        headers: ["Origin": "http://localhost:5173", "Access-Control-Request-Method": "GET"])
      #expect(status == 404)
      #expect(
        report.contains(
          "This is a browser's CORS preflight from http://localhost:5173: start doppel serve with --cors http://localhost:5173 (StubServer.Configuration.corsOrigins) and the server answers it, and lets that page read the stubs' answers; a stub for OPTIONS is not needed."
        ))
      let logged = try await doppel.line(containing: "OPTIONS /v1/y")
      #expect(
        logged.hasSuffix(
          "; a browser's CORS preflight from http://localhost:5173: --cors http://localhost:5173 answers it"))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func theStubToPasteNamesThePathAloneOnTheServersOwnOrigin() async throws {
      let directory = try temporaryDirectory(holding: [
        "doppel.json": #"{"stubs": [{"request": "GET /v1/x", "response": {"status": 200}}]}"#
      ])
      let doppel = try DoppelProcess(["serve", directory.path, "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      let (status, report) = try await fetch(URL(string: base.absoluteString + "/v1/y?page=2")!)
      #expect(status == 404)
      #expect(report.hasPrefix("No stub matched GET \(base.absoluteString)/v1/y?page=2"))
      #expect(
        report.hasSuffix(
          """
            backend.stub(.get("/v1/y?page=2"), .status(200))
            {"request":"GET /v1/y?page=2","response":{"status":200}}

          """))
      let logged = try await doppel.line(containing: "GET /v1/y")
      #expect(logged.hasSuffix(#"a stub for it: {"request":"GET /v1/y?page=2","response":{"status":200}}"#))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func aSubcommandTypoNamesTheClosestSubcommand() async throws {
      let typo = try await DoppelProcess.run(["srve", "doppel.json"])
      #expect(typo.status == 64)
      #expect(
        typo.error.hasPrefix(
          "Error: Unknown subcommand 'srve'. Did you mean 'serve'? The subcommands are: serve, record, convert, lint, drift, trust."
        ))
      let unknown = try await DoppelProcess.run(["mock"])
      #expect(unknown.error.hasPrefix("Error: Unknown subcommand 'mock'. The subcommands are: serve,"))
      // ArgumentParser suggests the closest option itself.
      let option = try await DoppelProcess.run(["serve", "--prot", "8080"])
      #expect(option.status == 64)
      #expect(option.error.hasPrefix("Error: Unknown option '--prot'. Did you mean '--port'?"))
    }

    @Test func aMethodTypoOrALowerCaseMethodIsALintWarning() async throws {
      let directory = try temporaryDirectory(holding: [
        "doppel.json": """
        {"stubs": [
        {"request": "GTE /v1/y", "response": {"status": 200}},
        {"request": "get /v1/z", "response": {"text": "zed"}},
        {"request": {"method": "PROPFIND", "url": "/dav"}, "response": {"status": 207}}
        ]}
        """
      ])
      let lint = try await DoppelProcess.run(["lint", "doppel.json"], directory: directory)
      #expect(lint.status == 0)
      #expect(
        lint.output == """
          doppel.json:2:13: stubs[0].request: warning: "GTE" is not a registered HTTP method. Did you mean "GET"? It is served as written; keep it only for a method of your own.
          doppel.json:3:13: stubs[1].request: warning: the method "get" is not upper-case; it is matched as GET. Write "GET", as clients send it.
          No problems in 1 file (2 warnings).
          """)

      // `get /v1/z` is a method and a path, not a URL with a space; serve warns too.
      let doppel = try DoppelProcess(["serve", directory.path, "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      #expect(try await fetch(base.appendingPathComponent("v1/z")).body == "zed")
      _ = try await doppel.errors.first { $0.contains(#"the method "get" is not upper-case"#) }
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func anUnknownScenarioSaysWhereTheNameCameFrom() async throws {
      let directory = try temporaryDirectory(holding: [
        "doppel.json": #"{"stubs": [], "scenarios": {"empty": {"stubs": []}, "slow": {"stubs": []}}}"#
      ])
      let option = try await DoppelProcess.run(["serve", directory.path, "--scenario", "emtpy", "--port", "0"])
      #expect(option.status != 0)
      #expect(
        option.error.contains(
          #"there is no scenario "emtpy" (from --scenario). Did you mean "empty"? The scenarios are: empty, slow."#))
      let environment = try await DoppelProcess.run(
        ["serve", directory.path, "--port", "0"], environment: ["DOPPEL_SCENARIO": "emtpy"])
      #expect(environment.status != 0)
      #expect(
        environment.error.contains(
          #"there is no scenario "emtpy" (from the DOPPEL_SCENARIO environment variable). Did you mean "empty"?"#))
    }

    /// In a container the server listens beyond loopback (issue 49, point 2): the admin API is
    /// then off unless a token is given, and asking for it without one refuses to start.
    @Test func beyondLoopbackTheAdminAPINeedsAToken() async throws {
      let directory = try temporaryDirectory(holding: [
        "doppel.json": #"{"stubs": [{"request": "GET /v1/x", "response": {"text": "x"}}]}"#
      ])
      let remote = ["serve", directory.path, "--host", "0.0.0.0", "--allow-remote", "--port", "0", "--no-watch"]
      let open = try DoppelProcess(remote)
      let base = try await local(open.serverURL())
      #expect(
        try await open.line(containing: "The admin API is off")
          == "The admin API is off: the server may listen beyond loopback (--allow-remote), where the admin API needs a token. Give one with --admin-token-file <path> or DOPPEL_ADMIN_TOKEN to turn it on."
      )
      #expect(try await fetch(base.appendingPathComponent("v1/x")).body == "x")
      #expect(try await fetch(base.appendingPathComponent("__doppel/stubs")).status == 404)
      open.interrupt()
      #expect(await open.waitForExit() == 0)

      let asked = try await DoppelProcess.run(remote + ["--admin-prefix", "/__doppel/"])
      #expect(asked.status != 0)
      #expect(
        asked.error.contains(
          "Refusing to serve the admin API on 0.0.0.0 (0.0.0.0), which is not a loopback address, without a token: anyone who can reach it could change the stubs. Give it a token (doppel serve --admin-token-file <path> or DOPPEL_ADMIN_TOKEN; StubServer.Configuration.admin.token), or turn it off (--admin-prefix off; admin.pathPrefix = nil)."
        ))

      let guarded = try DoppelProcess(remote, environment: ["DOPPEL_ADMIN_TOKEN": "s3cret-token"])
      let guardedBase = try await local(guarded.serverURL())
      let stubs = guardedBase.appendingPathComponent("__doppel/stubs")
      #expect(try await fetch(stubs).status == 401)
      #expect(try await fetch(stubs, headers: ["Authorization": "Bearer s3cret-token"]).status == 200)
      guarded.interrupt()
      #expect(await guarded.waitForExit() == 0)
    }

    /// `url` with the wildcard address it was served at replaced by loopback.
    private func local(_ url: URL) throws -> URL {
      try #require(URL(string: url.absoluteString.replacingOccurrences(of: "//0.0.0.0:", with: "//127.0.0.1:")))
    }

    @Test func versionPrintsTheVersionAndTheCommit() async throws {
      let version = try await DoppelProcess.run(["--version"])
      #expect(version.status == 0)
      #expect(version.output == "doppel \(try packageVersion()) (commit unknown: built from source)")
    }

    /// The CHANGELOG's latest release, the README's install line, the Homebrew formula, the npm
    /// packages and `doppel --version` state one version (issue 49, point 8).
    @Test func theReadmeTheChangelogAndTheToolStateOneVersion() async throws {
      let changelog = try String(contentsOf: packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
      let released = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
      let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
      let version = try packageVersion()
      #expect(released?.hasPrefix("## [\(version)] - ") == true)
      #expect(readme.contains(#".package(url: "https://github.com/doppel-swift/Doppel.git", from: "\#(version)")"#))
      let stated = readme.matches(of: /"(\d+\.\d+\.\d+)"/).map { String($0.output.1) }
      #expect(!stated.isEmpty && stated.allSatisfy { $0 == version }, "README states \(stated)")
      // The Homebrew formula and the npm launcher (with the platform packages it depends on).
      let formula = try String(contentsOf: packageRoot.appendingPathComponent("Formula/doppel.rb"), encoding: .utf8)
      #expect(formula.contains("  version \"\(version)\"\n"))
      let npm = try JSONValue(
        parsing: Data(contentsOf: packageRoot.appendingPathComponent("Packaging/npm/doppel/package.json")))
      guard case .object(let fields) = npm, case .object(let optional)? = fields["optionalDependencies"] else {
        Issue.record("Packaging/npm/doppel/package.json has no optionalDependencies")
        return
      }
      #expect(fields["version"] == .string(version))
      #expect(optional.values.allSatisfy { $0 == .string(version) })
    }

    /// The version `Sources/DoppelCLI/Version.swift` states.
    private func packageVersion() throws -> String {
      let source = try String(
        contentsOf: packageRoot.appendingPathComponent("Sources/DoppelCLI/Version.swift"), encoding: .utf8)
      guard let line = source.split(separator: "\n").first(where: { $0.contains("static let version = \"") }),
        let value = line.split(separator: "\"").dropFirst().first
      else { throw DoppelError("Sources/DoppelCLI/Version.swift states no version.") }
      return String(value)
    }
  }
#endif
