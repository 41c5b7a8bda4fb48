#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// `doppel record` keeps secrets off the disk, and shares a cassette with other recorders
  /// (another `doppel record`, or a test recording in process) without losing anyone's entries.
  @Suite(.timeLimit(.minutes(1))) struct RecordSecretsAndSharingTests {
    static let secrets = [
      "pw-Hunter2-0001", "cs-Secret-0002", "dt-Token-0003", "at-Access-0004", "tk-Token-0005",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.c2lnbmF0dXJlLTAwMDY", "st-Session-0007", "ak-Api-0008",
      "hs-Header-0009", "hr-Refresh-0010", "qs-Query-0011", "qm-Query-0012", "ut-Url-0013", "fp-Form-0014",
      "ah-Auth-0017", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "AKIAIOSFODNN7EXAMPLE", "AIzaSyA-1234567890abcdefghijklmnopqrstu", "xoxb-123456789012-abcdefghijkl",
    ]

    /// An upstream that hands out every kind of secret.
    static func secretUpstream() -> Backend {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(
        .post("/login"),
        .json(
          raw: """
            {"access_token": "\(secrets[3])", "token": "\(secrets[4])", "id_token": "\(secrets[5])",
             "session_token": "\(secrets[6])", "user": {"name": "Ann", "settings": {"api_key": "\(secrets[7])"}},
             "next": "https://cdn.example.com/f?token=\(secrets[12])&size=2"}
            """,
          headers: ["X-Session-Token": secrets[8], "X-Refresh-Token": secrets[9]]))
      upstream.stub(.get("/items")) { _ in .text("items for session \(secrets[10])") }
      upstream.stub(.post("/form")) { request in
        let password = (request.bodyText ?? "").split(separator: "&").first { $0.hasPrefix("password=") }?.dropFirst(9)
        return .text("Welcome, you sent \(password ?? "")")
      }
      upstream.stub(.get("/keys"), .text("keys: " + secrets[15...].joined(separator: " ")))
      return upstream
    }

    static func send(_ method: String, _ url: URL, headers: [String: String] = [:], body: String? = nil) async throws {
      var request = URLRequest(url: url)
      request.httpMethod = method
      for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
      request.httpBody = body.map { Data($0.utf8) }
      let (_, response) = try await realSession.data(for: request)
      #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func noSecretReachesTheCassetteAndItLintsClean() async throws {
      let upstream = Self.secretUpstream()
      let cassette = try temporaryDirectory().appendingPathComponent("secrets.har")
      let secrets = Self.secrets
      try await withStubServer(upstream) { real in
        let recorder = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0",
        ])
        let proxy = try await recorder.serverURL()
        try await Self.send(
          "POST", proxy.appendingPathComponent("login"),
          headers: ["Content-Type": "application/json", "Authorization": "Bearer \(secrets[14])"],
          body: """
            {"user": "ann", "password": "\(secrets[0])", "client_secret": "\(secrets[1])", "device": {"token": "\(secrets[2])"}}
            """)
        try await Self.send(
          "GET", URL(string: "\(proxy.absoluteString)/items?session_id=\(secrets[10])&mytoken=\(secrets[11])&page=1")!,
          headers: ["X-Session-Token": secrets[8]])
        try await Self.send(
          "POST", proxy.appendingPathComponent("form"),
          headers: ["Content-Type": "application/x-www-form-urlencoded"], body: "user=ann&password=\(secrets[13])")
        try await Self.send("GET", proxy.appendingPathComponent("items"))
        // Last, the access token echoed in a header that is not secret by name.
        try await Self.send("GET", proxy.appendingPathComponent("keys"), headers: ["X-Trace": secrets[3]])
        _ = try await recorder.line(containing: "GET /keys")
        recorder.interrupt()
        #expect(await recorder.waitForExit() == 0)
        #expect(recorder.outputLines.last == "Saved 5 exchanges to \(cassette.path).")
      }
      let saved = try String(contentsOf: cassette, encoding: .utf8)
      for secret in secrets {
        #expect(!saved.contains(secret), "\(secret) was written")
      }
      #expect(saved.contains("Welcome, you sent REDACTED"))
      #expect(saved.contains("\\\"name\\\":\\\"Ann\\\"") || saved.contains("\"name\":\"Ann\""))
      let lint = try await DoppelProcess.run(["lint", cassette.path])
      #expect(lint.status == 0)
      #expect(lint.output == "No problems in 1 file.")
    }

    @Test func aTestAndTheToolRecordingOneCassetteKeepEveryEntry() async throws {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/breeds/{name}")) { request in .text("breed \(request.url.lastPathComponent)") }
      let cassette = try temporaryDirectory().appendingPathComponent("shared.har")
      try await withStubServer(upstream) { real in
        // The test records in this process...
        let inProcess = Backend(issueReporter: .ignore)
        let inserted = try inProcess.insertCassette(at: cassette, record: .once, environment: [:])
        #expect(inserted.isRecording)
        // ...while `doppel record` records into the same file in another.
        let tool = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0", "--quiet",
        ])
        let proxy = try await tool.serverURL()
        for name in ["a", "b"] {
          let (data, _) = try await inProcess.session.data(from: real.baseURL.appendingPathComponent("breeds/\(name)"))
          #expect(String(decoding: data, as: UTF8.self) == "breed \(name)")
        }
        try inserted.eject()
        for name in ["c", "d"] {
          #expect(try await fetch(proxy.appendingPathComponent("breeds/\(name)")).body == "breed \(name)")
        }
        tool.interrupt()
        #expect(await tool.waitForExit() == 0)
        #expect(tool.outputLines.last == "Saved 2 exchanges to \(cassette.path).")
      }
      // The test saved first, then the tool: both recordings, each in its order.
      let saved = try Cassette.load(from: cassette)
      #expect(
        saved.entries.map { URL(string: $0.request.url)?.path } == ["/breeds/a", "/breeds/b", "/breeds/c", "/breeds/d"])
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: cassette.deletingLastPathComponent().path) == ["shared.har"]
      )
    }

    @Test func twoToolsRecordingOneCassetteKeepEveryEntry() async throws {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/breeds/{name}")) { request in .text("breed \(request.url.lastPathComponent)") }
      let cassette = try temporaryDirectory().appendingPathComponent("twice.har")
      try await withStubServer(upstream) { real in
        let arguments = ["record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--port", "0"]
        let first = try DoppelProcess(arguments)
        let firstURL = try await first.serverURL()
        let second = try DoppelProcess(arguments)
        let secondURL = try await second.serverURL()
        for round in 0..<3 {
          _ = try await fetch(firstURL.appendingPathComponent("breeds/first\(round)"))
          _ = try await fetch(secondURL.appendingPathComponent("breeds/second\(round)"))
        }
        _ = try await first.line(containing: "first2")
        _ = try await second.line(containing: "second2")
        first.interrupt()
        #expect(await first.waitForExit() == 0)
        second.interrupt()
        #expect(await second.waitForExit() == 0)
      }
      let paths = try Cassette.load(from: cassette).entries.compactMap { URL(string: $0.request.url)?.path }
      #expect(paths.count == 6)
      #expect(paths.filter { $0.contains("first") } == ["/breeds/first0", "/breeds/first1", "/breeds/first2"])
      #expect(paths.filter { $0.contains("second") } == ["/breeds/second0", "/breeds/second1", "/breeds/second2"])
    }
  }
#endif
