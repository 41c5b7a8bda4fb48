#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// `doppel record --to-manifest` and `doppel convert`: recorded traffic as a manifest, served
  /// by `doppel serve` as the cassette is.
  @Suite(.timeLimit(.minutes(1))) struct ConvertCommandTests {
    /// The requests sent through the recorder, then to each server.
    static let requests: [(method: String, path: String, body: String?)] = [
      ("GET", "/breeds.json", nil), ("GET", "/counter", nil), ("GET", "/counter", nil), ("GET", "/items?page=2", nil),
      ("GET", "/items", nil), ("POST", "/orders", "two"), ("GET", "/logo.png", nil), ("GET", "/long.txt", nil),
      ("GET", "/missing", nil),
    ]

    /// Status, `Content-Type` and body of each of `requests` sent to `base`.
    static func answers(from base: URL) async throws -> [String] {
      var answers: [String] = []
      for (method, path, body) in requests {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await realSession.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        answers.append(
          "\(method) \(path) \(http.statusCode) \(http.value(forHTTPHeaderField: "Content-Type") ?? "-") \(data.base64EncodedString())"
        )
      }
      return answers
    }

    /// `doppel serve file` answers to `requests`.
    static func served(_ file: URL) async throws -> [String] {
      let server = try DoppelProcess(["serve", file.path, "--port", "0", "--no-watch"])
      let answers = try await answers(from: server.serverURL())
      server.interrupt()
      #expect(await server.waitForExit() == 0)
      return answers
    }

    static func upstream() -> Backend {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/breeds.json"), .json(["Abyssinian", "Bengal"], headers: ["X-Upstream": "yes"]))
      upstream.stub(.get("/counter"), .sequence([.text("1"), .text("2")]))
      upstream.stub(.get("/items"), .json(["page 1"]))
      upstream.stub(.get("/items?page=2"), .json(["page 2"]))
      upstream.stub(.post("/orders")) { request in .text("ordered \(request.bodyText ?? "")", status: 201) }
      upstream.stub(.get("/logo.png"), .data(Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 3]), contentType: "image/png"))
      upstream.stub(.get("/long.txt"), .text(String(repeating: "a long answer ", count: 400)))
      upstream.stub(.get("/missing"), .json(["error": "no such thing"], status: 404))
      return upstream
    }

    @Test func recordedTrafficBecomesAManifestThatAnswersAsTheCassette() async throws {
      let directory = try temporaryDirectory()
      let cassette = directory.appendingPathComponent("api.har")
      let recorded = directory.appendingPathComponent("recorded.json")
      try await withStubServer(Self.upstream()) { real in
        let recorder = try DoppelProcess([
          "record", "--upstream", real.baseURL.absoluteString, "--out", cassette.path, "--to-manifest", recorded.path,
          "--port", "0",
        ])
        let proxied = try await Self.answers(from: recorder.serverURL())
        #expect(proxied.count == Self.requests.count)
        _ = try await recorder.line(containing: "GET /missing")
        recorder.interrupt()
        #expect(await recorder.waitForExit() == 0)
        #expect(
          recorder.outputLines.last
            == "Wrote 8 stubs to \(recorded.path) and 2 body files to recorded-fixtures/. Serve it with doppel serve \(recorded.path)."
        )
      }
      let manifest = directory.appendingPathComponent("api.json")
      let convert = try await DoppelProcess.run(["convert", cassette.path, "--to-manifest", manifest.path])
      #expect(convert.status == 0, "\(convert.error)")
      #expect(
        convert.output
          == "Wrote 8 stubs to \(manifest.path) and 2 body files to api-fixtures/. Serve it with doppel serve \(manifest.path)."
      )
      let files = try FileManager.default.contentsOfDirectory(
        atPath: directory.appendingPathComponent("api-fixtures").path)
      #expect(files.sorted() == ["006-logo.png.png", "007-long.txt.txt"])

      let fromCassette = try await Self.served(cassette)
      #expect(fromCassette.count == Self.requests.count)
      #expect(try await Self.served(manifest) == fromCassette)
      #expect(try await Self.served(recorded) == fromCassette)
      let lint = try await DoppelProcess.run(["lint", manifest.path])
      #expect(lint.status == 0, "\(lint.output)")
    }

    @Test func anExistingManifestIsReplacedOnlyWithForce() async throws {
      let directory = try temporaryDirectory()
      let cassette = directory.appendingPathComponent("api.har")
      try Cassette(entries: [
        try HAREntry(
          request: Request(url: URL(string: "https://api.example.com/big")!),
          response: .text(String(repeating: "x", count: 5000)))
      ]).save(to: cassette)
      let manifest = directory.appendingPathComponent("api.json")
      try Data("{}".utf8).write(to: manifest)

      let refused = try await DoppelProcess.run(["convert", cassette.path, "--to-manifest", manifest.path])
      #expect(refused.status != 0)
      #expect(
        refused.error.contains(
          "\(manifest.path) already exists. Pass --force to replace it, or choose another --to-manifest file."))
      #expect(try String(contentsOf: manifest, encoding: .utf8) == "{}")

      // A link in place of the body folder could send files outside the manifest's folder.
      let elsewhere = try temporaryDirectory()
      try FileManager.default.createSymbolicLink(
        at: directory.appendingPathComponent("api-fixtures"), withDestinationURL: elsewhere)
      let linked = try await DoppelProcess.run(["convert", cassette.path, "--to-manifest", manifest.path, "--force"])
      #expect(linked.status != 0)
      #expect(
        linked.error.contains(
          "\(directory.appendingPathComponent("api-fixtures").path) is not a folder (it is a symbolic link): the manifest's body files go there. Move it away, or choose another --to-manifest file."
        ))
      #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
      try FileManager.default.removeItem(at: directory.appendingPathComponent("api-fixtures"))

      let forced = try await DoppelProcess.run(["convert", cassette.path, "--to-manifest", manifest.path, "--force"])
      #expect(forced.status == 0, "\(forced.error)")
      #expect(
        try Manifest.load(contentsOf: manifest).description == "Converted from api.har by doppel convert: 1 stub.")

      // Inline up to the limit given.
      let inline = try await DoppelProcess.run([
        "convert", cassette.path, "--to-manifest", directory.appendingPathComponent("inline.json").path,
        "--inline-limit", "8192",
      ])
      #expect(inline.status == 0, "\(inline.error)")
      #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("inline-fixtures").path))
    }

    @Test func recordRefusesAnExistingManifestBeforeRecording() async throws {
      let directory = try temporaryDirectory(holding: ["api.json": "{}"])
      let manifest = directory.appendingPathComponent("api.json")
      let result = try await DoppelProcess.run([
        "record", "--upstream", "http://127.0.0.1:9", "--out", directory.appendingPathComponent("api.har").path,
        "--to-manifest", manifest.path, "--port", "0",
      ])
      #expect(result.status != 0)
      #expect(
        result.error.contains(
          "\(manifest.path) already exists. Pass --force to replace it, or choose another --to-manifest file."))
      #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("api.har").path))
    }
  }
#endif
