#if TLS
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  /// `doppel serve --tls` and `doppel trust` end to end: real clients (curl, Python's `ssl`) given
  /// the local certificate authority accept the server, and refuse it without. Each test keeps its
  /// authority in a temporary `DOPPEL_HOME` of its own.
  @Suite(.timeLimit(.minutes(1))) struct TLSCommandTests {
    /// A project serving `GET /ping` → `pong`, and a `DOPPEL_HOME` of its own.
    private func project() throws -> (directory: URL, home: URL) {
      let directory = try temporaryDirectory()
      try Data(#"{"stubs": [{"request": "/ping", "response": {"text": "pong"}}]}"#.utf8)
        .write(to: directory.appendingPathComponent("doppel.json"))
      return (directory, directory.appendingPathComponent("home"))
    }

    /// The environment of a client: no proxy between it and the server.
    private static let direct = ["no_proxy": "*", "NO_PROXY": "*"]

    /// The path of `name` on `PATH`, or `nil` when it is not installed.
    private static func installed(_ name: String) -> String? {
      let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
      for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
      return nil
    }

    /// Starts `doppel serve --tls` on the project; returns the process and its URL.
    private func serve(_ project: (directory: URL, home: URL), _ more: [String] = []) async throws -> (
      DoppelProcess, URL
    ) {
      let doppel = try DoppelProcess(
        ["serve", project.directory.path, "--port", "0", "--no-watch", "--quiet", "--tls"] + more,
        environment: ["DOPPEL_HOME": project.home.path])
      return (doppel, try await doppel.serverURL())
    }

    @Test(.enabled(if: installed("curl") != nil, "curl is not installed"))
    func curlTrustsTheServerGivenTheAuthorityAndRefusesItWithout() async throws {
      let curl = try #require(Self.installed("curl"))
      let project = try project()
      let (doppel, base) = try await serve(project)
      defer { doppel.interrupt() }
      let port = try #require(base.port)
      #expect(base.absoluteString == "https://127.0.0.1:\(port)")
      let authority = project.home.appendingPathComponent("doppel-ca.pem").path
      #expect(
        try await doppel.line(containing: "HTTPS with")
          == "HTTPS with a certificate from a new local certificate authority, made now: \(authority) (doppel trust says how to trust it)"
      )
      // A newline after the body: the output is read line by line.
      let common = ["--silent", "--show-error", "--max-time", "20", "--write-out", "\n"]

      let trusted = try await DoppelProcess.run(
        common + ["--cacert", authority, "\(base)/ping"], executable: curl, environment: Self.direct)
      #expect(trusted.status == 0, "\(trusted.error)")
      #expect(trusted.output == "pong")

      // The certificate names localhost and ::1 too.
      let byName = try await DoppelProcess.run(
        common + [
          "--cacert", authority, "--connect-to", "localhost:\(port):127.0.0.1:\(port)",
          "https://localhost:\(port)/ping",
        ], executable: curl, environment: Self.direct)
      #expect(byName.status == 0, "\(byName.error)")
      #expect(byName.output == "pong")

      // Without the authority, the handshake is refused: curl's "SSL certificate problem" (60).
      let refused = try await DoppelProcess.run(
        common + ["\(base)/ping"], executable: curl, environment: Self.direct.merging(["CURL_CA_BUNDLE": ""]) { $1 })
      #expect(refused.status == 60, "\(refused.output) \(refused.error)")
      #expect(refused.error.contains("certificate"))

      // Plain HTTP to the HTTPS port gets a readable refusal, not a broken handshake.
      let plain = try await DoppelProcess.run(
        common + ["http://127.0.0.1:\(port)/ping"], executable: curl, environment: Self.direct)
      #expect(plain.status == 0, "\(plain.error)")
      #expect(plain.output == "This server speaks HTTPS: send the request to https://127.0.0.1:\(port)/ instead.\n")

      // The server goes on serving after a refused handshake.
      let again = try await DoppelProcess.run(
        common + ["--cacert", authority, "\(base)/ping"], executable: curl, environment: Self.direct)
      #expect(again.output == "pong")
    }

    @Test(.enabled(if: installed("python3") != nil, "python3 is not installed"))
    func pythonTrustsTheServerGivenTheAuthorityAndRefusesItWithout() async throws {
      let python = try #require(Self.installed("python3"))
      let project = try project()
      let (doppel, base) = try await serve(project)
      defer { doppel.interrupt() }
      let authority = project.home.appendingPathComponent("doppel-ca.pem").path
      let script = """
        import ssl, sys, urllib.request
        url = sys.argv[1]
        context = ssl.create_default_context(cafile=sys.argv[2]) if len(sys.argv) > 2 else ssl.create_default_context()
        try:
            with urllib.request.urlopen(url, context=context, timeout=20) as answer:
                print(answer.status, answer.read().decode(), answer.version)
        except Exception as error:
            print("refused:", getattr(error, "reason", error))
            sys.exit(3)
        """
      let trusted = try await DoppelProcess.run(
        ["-c", script, "\(base)/ping", authority], executable: python, environment: Self.direct)
      #expect(trusted.status == 0, "\(trusted.output) \(trusted.error)")
      #expect(trusted.output == "200 pong 11")

      let refused = try await DoppelProcess.run(
        ["-c", script, "\(base)/ping"], executable: python,
        environment: Self.direct.merging(["SSL_CERT_FILE": "/dev/null", "SSL_CERT_DIR": "/nonexistent"]) { $1 })
      #expect(refused.status == 3, "\(refused.output) \(refused.error)")
      #expect(refused.output.contains("CERTIFICATE_VERIFY_FAILED"), "\(refused.output)")
    }

    @Test(.enabled(if: installed("curl") != nil, "curl is not installed"))
    func theAdminAPIAcceptsItsOwnHTTPSOrigin() async throws {
      let curl = try #require(Self.installed("curl"))
      let project = try project()
      let (doppel, base) = try await serve(project)
      defer { doppel.interrupt() }
      let port = try #require(base.port)
      let authority = project.home.appendingPathComponent("doppel-ca.pem").path
      func status(origin: String) async throws -> String {
        try await DoppelProcess.run(
          [
            "--silent", "--max-time", "20", "--cacert", authority, "--output", "/dev/null", "--write-out",
            "%{http_code}\n", "--header", "Origin: \(origin)", "\(base)/__doppel/state",
          ], executable: curl, environment: Self.direct
        ).output
      }
      #expect(try await status(origin: "https://127.0.0.1:\(port)") == "200")
      #expect(try await status(origin: "https://localhost:\(port)") == "200")
      #expect(try await status(origin: "http://127.0.0.1:\(port)") == "403")
      #expect(try await status(origin: "https://evil.example") == "403")
    }

    @Test func trustPrintsTheAuthorityAndTheCommandsThatTrustIt() async throws {
      let home = try temporaryDirectory().appendingPathComponent("a doppel's home")
      let certificate = home.appendingPathComponent("doppel-ca.pem").path
      let quoted = "'" + certificate.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
      let first = try await DoppelProcess.run(["trust"], environment: ["DOPPEL_HOME": home.path])
      #expect(first.status == 0, "\(first.error)")
      let expected = [
        "The local certificate authority (made now): \(certificate)",
        "Its key, readable by you only: \(home.appendingPathComponent("doppel-ca-key.pem").path)",
        "It signs only for localhost and names under .localhost, and the addresses",
        "127.0.0.0/8, ::1/128, 10.0.2.2/32; for servers only",
        "(no e-mail, no code), so its key cannot impersonate a real site.",
        "",
        "macOS (Safari, Chrome, URLSession; for TLS only; asks for an administrator's password):",
        "  sudo security add-trusted-cert -d -r trustRoot -p ssl -k /Library/Keychains/System.keychain \(quoted)",
        "or for your user only:",
        "  security add-trusted-cert -r trustRoot -p ssl -k ~/Library/Keychains/login.keychain-db \(quoted)",
        "",
        "Debian, Ubuntu (OpenSSL, curl; the certificate's own usage limits it to TLS servers):",
        "  sudo cp \(quoted) /usr/local/share/ca-certificates/doppel-ca.crt && sudo update-ca-certificates",
        "Fedora, RHEL (trusted for TLS servers only):",
        "  openssl x509 -in \(quoted) -addtrust serverAuth -out /tmp/doppel-ca.crt",
        "  sudo cp /tmp/doppel-ca.crt /etc/pki/ca-trust/source/doppel-ca.crt && sudo update-ca-trust",
        "",
        "iOS Simulator (the booted one; again for each simulator you use or erase):",
        "  xcrun simctl keychain booted add-root-cert \(quoted)",
        "",
        "Android emulator (serve with --tls --tls-name 10.0.2.2, use https://10.0.2.2:<port>):",
        "  adb push \(quoted) /sdcard/Download/doppel-ca.crt",
        "  adb shell am start -a android.settings.SECURITY_SETTINGS",
        "then Encryption & credentials > Install a certificate > CA certificate > doppel-ca.crt.",
        "Apps trust a user's CA only when their network security config says so:",
        #"  <debug-overrides><trust-anchors><certificates src="user"/></trust-anchors></debug-overrides>"#,
        "A device on your network: make the authority with doppel trust --allow-ip <this computer's address>,",
        "and serve with --tls --tls-name <that address>.",
        "",
        "To stop trusting it and delete its key: doppel trust --remove",
      ]
      #expect(first.output.components(separatedBy: "\n") == expected)

      // The second time, the same authority, not made again.
      let pem = try String(contentsOfFile: certificate, encoding: .utf8)
      let second = try await DoppelProcess.run(["trust"], environment: ["DOPPEL_HOME": home.path])
      #expect(second.output.components(separatedBy: "\n").first == "The local certificate authority: \(certificate)")
      #expect(try String(contentsOfFile: certificate, encoding: .utf8) == pem)
    }

    @Test func trustRemoveDeletesTheKeyAndPrintsHowToRemoveTheTrust() async throws {
      let home = try temporaryDirectory().appendingPathComponent("home")
      let made = try await DoppelProcess.run(["trust"], environment: ["DOPPEL_HOME": home.path])
      #expect(made.status == 0, "\(made.error)")
      let key = home.appendingPathComponent("doppel-ca-key.pem").path
      let certificate = home.appendingPathComponent("doppel-ca.pem").path
      let digest = try LocalCertificateAuthority.certificateSHA1(ofPEMFile: URL(fileURLWithPath: certificate))
      #expect(digest.count == 40)

      let removed = try await DoppelProcess.run(["trust", "--remove"], environment: ["DOPPEL_HOME": home.path])
      #expect(removed.status == 0, "\(removed.error)")
      #expect(!FileManager.default.fileExists(atPath: key))
      #expect(!FileManager.default.fileExists(atPath: certificate))
      let lines = removed.output.components(separatedBy: "\n")
      #expect(
        Array(lines.prefix(6)) == [
          "Deleted \(key)",
          "Deleted \(certificate)",
          "Its key is gone, so nothing new can be signed with it. Remove the trust you gave it",
          "(doppel never runs these for you):",
          "",
          "macOS, the System keychain (and its trust settings):",
        ])
      #expect(lines.contains("  sudo security delete-certificate -Z \(digest) -t /Library/Keychains/System.keychain"))
      #expect(
        lines.contains(
          "  sudo rm /usr/local/share/ca-certificates/doppel-ca.crt && sudo update-ca-certificates --fresh"))
      #expect(lines.contains("  sudo rm /etc/pki/ca-trust/source/doppel-ca.crt && sudo update-ca-trust"))

      // A LAN address for a device is allowed only when the authority is made.
      let lan = try await DoppelProcess.run(
        ["trust", "--allow-ip", "192.168.1.20"], environment: ["DOPPEL_HOME": home.path])
      #expect(lan.status == 0, "\(lan.error)")
      #expect(lan.output.contains("127.0.0.0/8, ::1/128, 10.0.2.2/32, 192.168.1.20/32; for servers only"))
      let other = try await DoppelProcess.run(
        ["trust", "--allow-ip", "192.168.1.21"], environment: ["DOPPEL_HOME": home.path])
      #expect(other.status != 0)
      #expect(
        other.error.contains(
          "The local certificate authority in \(home.path) was made without 192.168.1.21, and the addresses it signs for are written into its certificate. Remove it (doppel trust --remove, then stop trusting it as that prints), then make a new one that allows every address you need: doppel trust --allow-ip 192.168.1.21."
        ))
    }

    @Test func aNameTheAuthorityMayNotSignForIsRefused() async throws {
      let project = try project()
      let result = try await DoppelProcess.run(
        ["serve", project.directory.path, "--port", "0", "--no-watch", "--tls", "--tls-name", "api.example.com"],
        environment: ["DOPPEL_HOME": project.home.path])
      #expect(result.status == 64)
      #expect(
        result.error.contains(
          "--tls-name api.example.com is not a name the local certificate authority may sign for: it signs only for localhost and names under .localhost, 127.0.0.0/8, ::1 and 10.0.2.2"
        ))
      let without = try await DoppelProcess.run(
        ["serve", project.directory.path, "--port", "0", "--no-watch", "--tls-name", "10.0.2.2"],
        environment: ["DOPPEL_HOME": project.home.path])
      #expect(without.status == 64)
      #expect(
        without.error.contains("--tls-name 10.0.2.2 names a certificate, and there is none without --tls; add --tls."))
      #expect(!FileManager.default.fileExists(atPath: project.home.path))
    }
  }
#endif
