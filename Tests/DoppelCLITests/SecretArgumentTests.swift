#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Secrets kept out of the command line (`ps` shows it to every user of the computer): the
  /// admin token from a file or `DOPPEL_ADMIN_TOKEN`, `doppel drift`'s headers from a file, and a
  /// warning when a secret is given in the command line anyway. And `doppel record` forwarding
  /// only what a loopback caller sends.
  @Suite(.timeLimit(.minutes(1))) struct SecretArgumentTests {
    private static let tokenWarning =
      "warning: --admin-token puts the token in the command line, which ps shows to every user of this computer; use --admin-token-file <path> or the DOPPEL_ADMIN_TOKEN environment variable instead."

    private func project() throws -> URL {
      try temporaryDirectory(holding: [
        "doppel.json": #"{"stubs": [{"request": "/ping", "response": {"text": "pong"}}]}"#
      ])
    }

    /// Serves `project()` with `arguments` and `environment`; checks that the admin API takes
    /// `token` and no other, and returns what the server printed on standard error.
    private func serve(
      _ arguments: [String], environment: [String: String] = [:], token: String
    ) async throws -> [String] {
      let doppel = try DoppelProcess(
        ["serve", try project().path, "--port", "0", "--no-watch", "--quiet"] + arguments,
        environment: environment)
      defer { doppel.interrupt() }
      let base = try await doppel.serverURL()
      #expect(try await DoppelRemote(base, token: token).state() == "initial")
      let (status, _) = try await fetch(base.appendingPathComponent("__doppel/state"))
      #expect(status == 401)
      let (wrong, _) = try await fetch(
        base.appendingPathComponent("__doppel/state"), headers: ["Authorization": "Bearer \(token)x"])
      #expect(wrong == 401)
      doppel.interrupt()
      _ = await doppel.waitForExit()
      await doppel.errors.waitForEnd()
      return doppel.errorLines
    }

    @Test func theAdminTokenComesFromAFileOrTheEnvironmentWithoutAWarning() async throws {
      let file = try temporaryDirectory(holding: ["token": "fr0m-a-file\n"]).appendingPathComponent("token")
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
      let fromFile = try await serve(["--admin-token-file", file.path], token: "fr0m-a-file")
      #expect(!fromFile.contains { $0.contains("warning") })
      // A file other users can read works, with a warning.
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
      let readable = try await serve(["--admin-token-file", file.path], token: "fr0m-a-file")
      #expect(
        readable.contains(
          "warning: --admin-token-file \(file.path) can be read by other users of this computer (mode 644); make it yours alone with chmod 600 \(file.path)."
        ))
      let fromEnvironment = try await serve(
        [], environment: ["DOPPEL_ADMIN_TOKEN": "fr0m-the-env"], token: "fr0m-the-env")
      #expect(!fromEnvironment.contains { $0.contains("warning") })
      // The command line wins over the environment, and is warned about.
      let inArgv = try await serve(
        ["--admin-token", "in-argv"], environment: ["DOPPEL_ADMIN_TOKEN": "fr0m-the-env"], token: "in-argv")
      #expect(inArgv.contains(Self.tokenWarning))
    }

    @Test func aTokenFileThatCannotBeUsedIsAUsageError() async throws {
      let directory = try temporaryDirectory(holding: ["empty": "\n", "token": "t"])
      let missing = try await DoppelProcess.run(
        [
          "serve", try project().path, "--port", "0", "--admin-token-file",
          directory.appendingPathComponent("nope").path,
        ])
      #expect(missing.status == 64)
      #expect(
        missing.error.contains("--admin-token-file \(directory.appendingPathComponent("nope").path) cannot be read"))
      let empty = try await DoppelProcess.run(
        [
          "serve", try project().path, "--port", "0", "--admin-token-file",
          directory.appendingPathComponent("empty").path,
        ])
      #expect(
        empty.error.contains(
          "--admin-token-file \(directory.appendingPathComponent("empty").path): the first line must be the token, printable ASCII without spaces, and it is empty."
        ))
      let both = try await DoppelProcess.run(
        [
          "serve", try project().path, "--port", "0", "--admin-token", "a", "--admin-token-file",
          directory.appendingPathComponent("token").path,
        ])
      #expect(both.error.contains("--admin-token and --admin-token-file both give the token; keep one of them."))
    }

    @Test func driftReadsSecretHeadersFromAFileAndWarnsAboutThemInArgv() async throws {
      let cassette = #"""
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
          {"request": {"method": "GET", "url": "https://api.example.com/v1/me", "headers": []}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/plain"}], "content": {"mimeType": "text/plain", "text": "me"}}}
        ]}}
        """#
      let directory = try temporaryDirectory(holding: [
        "api.har": cassette, "headers.txt": "# for staging\nAuthorization: Bearer s3cret-t0ken\n\nX-Team: cats\n",
        "bad.txt": "Authorization Bearer s3cret-t0ken\n",
      ])
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(
        .get("/v1/me") && .header("Authorization", "Bearer s3cret-t0ken") && .header("X-Team", "cats"),
        Response(headers: ["Content-Type": "text/plain"], body: Data("me".utf8)))
      try await withStubServer(upstream) { server in
        let base = server.baseURL.absoluteString
        let fromFile = try await DoppelProcess.run(
          ["drift", "api.har", "--against", base, "--header-file", "headers.txt"], directory: directory)
        #expect(fromFile.output == "0 of 1 entry drifted (against \(base)).")
        #expect(fromFile.status == 0)
        #expect(fromFile.error.isEmpty)
        let inArgv = try await DoppelProcess.run(
          [
            "drift", "api.har", "--against", base, "--header", "Authorization: Bearer s3cret-t0ken", "--header",
            "X-Team: cats",
          ], directory: directory)
        #expect(inArgv.status == 0)
        #expect(
          inArgv.error
            == "warning: --header Authorization puts a secret in the command line, which ps shows to every user of this computer; put it in a file and pass --header-file <path> instead."
        )
        let bad = try await DoppelProcess.run(
          ["drift", "api.har", "--against", base, "--header-file", "bad.txt"], directory: directory)
        #expect(bad.status == 64)
        #expect(
          bad.error.contains(
            "--header-file bad.txt:1: Authorization… is not a header field; write it as 'Name: value'."))
        #expect(!bad.error.contains("s3cret"))
      }
    }

    private static func installed(_ name: String) -> String? {
      let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
      return path.split(separator: ":").map { "\($0)/\(name)" }.first {
        FileManager.default.isExecutableFile(atPath: $0)
      }
    }

    /// A DNS-rebinding page's request names its own host: `doppel record` refuses it (403, not
    /// forwarded, not recorded) unless `--allow-host` names it.
    @Test(.enabled(if: installed("curl") != nil, "curl is not installed"))
    func recordForwardsOnlyForALoopbackOrAllowedHost() async throws {
      let curl = try #require(Self.installed("curl"))
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/secret"), .text("private-answer-42"))
      let directory = try temporaryDirectory()
      try await withStubServer(upstream) { real in
        for allowed in [false, true] {
          let cassette = directory.appendingPathComponent("\(allowed).har")
          let recording = try DoppelProcess(
            [
              "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0", "--quiet",
            ] + (allowed ? ["--allow-host", "rebind.attacker.example"] : []))
          defer { recording.interrupt() }
          let base = try await recording.serverURL()
          let answer = try await DoppelProcess.run(
            [
              "-s", "-H", "Host: rebind.attacker.example:\(base.port!)", "-w", "\n%{http_code}\n",
              base.appendingPathComponent("secret").absoluteString,
            ], executable: curl)
          if allowed {
            #expect(answer.output == "private-answer-42\n200")
          } else {
            #expect(answer.output.hasSuffix("\n403"))
            #expect(
              answer.output.hasPrefix(
                "This request would be sent on to an upstream (doppel record, or a proxying stub), and this server forwards only requests whose Host is a loopback name or address (localhost, 127.0.0.1, [::1]) or one it allows; this one's is rebind.attacker.example."
              ))
            #expect(answer.output.contains("start doppel with --allow-host rebind.attacker.example"))
          }
          recording.interrupt()
          _ = await recording.waitForExit()
          let saved = try String(contentsOf: cassette, encoding: .utf8)
          #expect(saved.contains("private-answer-42") == allowed)
        }
      }
      #expect(upstream.journal.count == 1)
    }
  }
#endif
