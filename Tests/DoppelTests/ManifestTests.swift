import Doppel
import Foundation
import Testing

/// A directory of its own under the temporary directory, for manifests and fixture files.
struct ScratchDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  var path: String { url.path }

  /// Writes `text` to `relative` (creating directories) and returns the file's URL.
  @discardableResult
  func write(_ relative: String, _ text: String) throws -> URL {
    let file = url.appendingPathComponent(relative)
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: file)
    return file
  }

  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The URL in-memory manifests claim to come from.
let manifestURL = URL(fileURLWithPath: "/project/Fixtures/doppel.json")

/// Reads a manifest from text, as if it were `/project/Fixtures/doppel.json`.
func manifest(_ json: String) throws(DoppelError) -> Manifest {
  try Manifest(data: Data(json.utf8), url: manifestURL)
}

/// The message of the error loading `json` gives, or "loaded".
func manifestError(_ json: String) -> String {
  do {
    _ = try manifest(json)
    return "loaded"
  } catch {
    return error.message
  }
}

/// What a backend answers, read through ``Backend/respond(to:)``.
struct Answer: Equatable, CustomStringConvertible {
  var status: Int
  var body: String
  var contentType: String?

  var description: String { "\(status) \(contentType ?? "-") \(body)" }
}

extension Backend {
  /// Sends a `GET` in memory and returns what came back.
  func answer(_ url: String, headers: [String: String] = [:]) async throws -> Answer {
    try await answer(.get, url, headers: headers)
  }

  /// Sends a request in memory and returns what came back.
  func answer(
    _ method: HTTPMethod, _ url: String, headers: [String: String] = [:], body: String? = nil
  ) async throws -> Answer {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method.rawValue
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body.map { Data($0.utf8) }
    let (data, response) = try await respond(to: request)
    return Answer(
      status: response.statusCode, body: String(decoding: data, as: UTF8.self),
      contentType: response.value(forHTTPHeaderField: "Content-Type"))
  }
}

/// Loading manifests and answering with their stubs.
@Suite struct ManifestTests {
  @Test func servesInlineJSONAsWrittenTextAndEmptyResponses() async throws {
    let backend = try Backend(
      manifest: manifest(
        """
        {
          "$schema": "../Schemas/doppel-manifest.schema.json",
          "description": "The breeds API",
          "stubs": [
            {"request": "GET https://api.example.com/breeds", "response": {"json": {"z": 1, "a": [1.50, "é"]}}},
            {"request": "/hello", "response": {"text": "hi", "status": 201, "headers": {"X-Mode": "test"}}},
            {"request": {"method": "DELETE", "url": "/breeds/{id}"}, "response": {"status": 204}},
            {"request": "/raw", "response": {"text": "{broken", "contentType": "application/json"}}
          ]
        }
        """), scenario: .base)
    #expect(
      try await backend.answer("https://api.example.com/breeds").description
        == #"200 application/json {"z":1,"a":[1.50,"é"]}"#)
    #expect(
      try await backend.answer("https://other.example.com/hello").description == "201 text/plain; charset=utf-8 hi")
    #expect(try await backend.answer(.delete, "https://x.com/breeds/7").status == 204)
    #expect(try await backend.answer("https://x.com/raw").description == "200 application/json {broken")
    #expect(try manifest("{\"description\": \"The breeds API\"}").description == "The breeds API")
  }

  @Test func keysNamedJSONAnywhereReadAsUsual() async throws {
    // Values of "json" keys are read lazily: a scenario of that name, a body with escapes and
    // white space, and a fault inside a body must all behave as anywhere else.
    let backend = try Backend(
      manifest: manifest(
        #"""
        {"scenarios": {"json": {"stubs": [
          {"request": "/a", "response": {"json": { "s" : "line\nbreak \u00e9", "n": [ 1 , 2 ] }}},
          {"request": {"method": "POST", "url": "/b", "json": {"k": [true]}}, "response": {"json": [ ]}}
        ]}}}
        """#), scenario: "json", issueReporter: .ignore)
    #expect(try await backend.answer("https://x.com/a").body == #"{"s":"line\nbreak é","n":[1,2]}"#)
    #expect(try await backend.answer(.post, "https://x.com/b", body: #"{"k": [true]}"#).body == "[]")
    #expect(
      manifestError(#"{"stubs": [{"request": "/a", "response": {"json": {"a": 1, "a": 2}}}]}"#)
        == "/project/Fixtures/doppel.json:1:60: malformed JSON: the key \"a\" appears twice in this object (first at 1:52); keep one."
    )
  }

  @Test func laterStubsWinAndTimesLimitsAStub() async throws {
    let backend = try Backend(
      manifest: manifest(
        """
        {"stubs": [
          {"request": "/a", "response": {"text": "default"}},
          {"request": "/a", "response": {"text": "once"}, "times": 1, "name": "first call"}
        ]}
        """), scenario: .base)
    #expect(try await backend.answer("https://x.com/a").body == "once")
    #expect(try await backend.answer("https://x.com/a").body == "default")
    #expect(backend.stubs.map(\.name) == [nil, "first call"])
  }

  @Test func matchesQueryHeadersAndBodies() async throws {
    let backend = try Backend(
      manifest: manifest(
        """
        {"stubs": [
          {"request": {"url": "/q", "query": {"page": "2", "tag": ["a", "b"]}}, "response": {"text": "subset"}},
          {"request": {"url": "/q", "queryExactly": {"page": "3"}}, "response": {"text": "exact"}},
          {"request": {"url": "/h", "headers": {"Accept": "application/json", "Authorization": true}},
           "response": {"text": "headers"}},
          {"request": {"method": "POST", "url": "/j", "json": {"sku": "A1", "n": 2}}, "response": {"text": "json"}},
          {"request": {"method": "POST", "url": "/c", "jsonContaining": {"sku": "A1"}}, "response": {"text": "contains"}},
          {"request": {"method": "POST", "url": "/t", "text": "ping"}, "response": {"text": "pong"}},
          {"request": {"method": "POST", "url": "/f", "form": {"name": "Tom"}}, "response": {"text": "form"}},
          {"request": {"host": "cdn.example.com", "pathGlob": "/img/**/*.png"}, "response": {"text": "glob"}},
          {"request": {"pathRegex": "^/v[0-9]+/ping$"}, "response": {"text": "regex"}}
        ]}
        """), scenario: .base, issueReporter: .ignore)
    #expect(try await backend.answer("https://x.com/q?tag=b&page=2&tag=a&extra=1").body == "subset")
    #expect(try await backend.answer("https://x.com/q?page=3").body == "exact")
    #expect(
      try await backend.answer("https://x.com/h", headers: ["Accept": "application/json", "Authorization": "k"]).body
        == "headers")
    #expect(try await backend.answer(.post, "https://x.com/j", body: #"{"n": 2.0, "sku": "A1"}"#).body == "json")
    #expect(try await backend.answer(.post, "https://x.com/c", body: #"{"sku": "A1", "n": 9}"#).body == "contains")
    #expect(try await backend.answer(.post, "https://x.com/t", body: "ping").body == "pong")
    #expect(try await backend.answer(.post, "https://x.com/f", body: "name=Tom&age=3").body == "form")
    #expect(try await backend.answer("https://cdn.example.com/img/a/b/cat.png").body == "glob")
    #expect(try await backend.answer("https://x.com/v2/ping").body == "regex")
    await #expect(throws: URLError.self) {
      try await backend.answer("https://x.com/h", headers: ["Accept": "application/json"])
    }
    await #expect(throws: URLError.self) { try await backend.answer("https://x.com/q?page=3&more=1") }
  }

  @Test func anEmptyRequestObjectMatchesEverything() async throws {
    let backend = try Backend(
      manifest: manifest(#"{"stubs": [{"request": {}, "response": {"status": 404}}]}"#), scenario: .base)
    #expect(try await backend.answer(.put, "https://any.example.com/thing").status == 404)
  }

  @Test func servesFixtureFilesRelativeToTheManifest() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try scratch.write("fixtures/breeds.json", #"{"breeds": []}"#)
    try scratch.write("fixtures/cat.png", "PNG")
    try scratch.write(
      "doppel.json",
      """
      {"stubs": [
        {"request": "/breeds", "response": {"file": "fixtures/breeds.json"}},
        {"request": "/cat", "response": {"file": "fixtures/cat.png", "status": 203}},
        {"request": "/cat.txt", "response": {"file": "fixtures/cat.png", "contentType": "text/plain"}}
      ]}
      """)
    let backend = try Backend(manifest: Manifest.load(contentsOf: scratch.url), scenario: .base)
    #expect(try await backend.answer("https://x.com/breeds").description == #"200 application/json {"breeds": []}"#)
    #expect(try await backend.answer("https://x.com/cat").description == "203 image/png PNG")
    #expect(try await backend.answer("https://x.com/cat.txt").description == "200 text/plain PNG")
    #expect(
      try Manifest.load(contentsOf: scratch.url.appendingPathComponent("doppel.json")).url.lastPathComponent
        == "doppel.json")
  }

  @Test func sequencesAnswerInTurn() async throws {
    let backend = try Backend(
      manifest: manifest(
        """
        {"stubs": [
          {"request": "/poll", "response": {"sequence": [{"status": 202}, {"text": "done"}]}},
          {"request": "/cycle", "response": {"sequence": [{"text": "a"}, {"text": "b"}], "then": "cycle"}},
          {"request": "/fail", "response": {"sequence": [{"text": "only"}], "then": "fail"}}
        ]}
        """), scenario: .base, issueReporter: .ignore)
    #expect(try await backend.answer("https://x.com/poll").status == 202)
    #expect(try await backend.answer("https://x.com/poll").body == "done")
    #expect(try await backend.answer("https://x.com/poll").body == "done")
    var cycle: [String] = []
    for _ in 0..<3 { cycle.append(try await backend.answer("https://x.com/cycle").body) }
    #expect(cycle == ["a", "b", "a"])
    #expect(try await backend.answer("https://x.com/fail").body == "only")
    await #expect(throws: DoppelError.self) { try await backend.answer("https://x.com/fail") }
  }

  @Test func errorsRedirectsAndHeadersWithManyValues() async throws {
    let backend = try Backend(
      manifest: manifest(
        """
        {"stubs": [
          {"request": "/offline", "response": {"error": "notConnectedToInternet"}},
          {"request": "/old", "response": {"redirect": {"to": "/new", "status": 301}}},
          {"request": "/kept", "response": {"redirect": {"to": "/new", "follow": false}}},
          {"request": "/new", "response": {"text": "moved", "headers": {"Set-Cookie": ["a=1", "b=2"]}}}
        ]}
        """), scenario: .base)
    await #expect(throws: URLError(.notConnectedToInternet)) { try await backend.answer("https://x.com/offline") }
    #expect(try await backend.answer("https://x.com/old").body == "moved")
    let kept = try await backend.respond(to: URLRequest(url: URL(string: "https://x.com/kept")!)).1
    #expect(kept.statusCode == 302)
    #expect(kept.value(forHTTPHeaderField: "Location") == "/new")
    let new = try #require(backend.journal.first { $0.request.path == "/new" }?.response)
    #expect(new.headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
  }

  @Test func loadsFromABundle() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try scratch.write("Fixtures/doppel.json", #"{"scenarios": {"empty": {}}}"#)
    let bundle = try #require(Bundle(path: scratch.path))
    #expect(try Manifest.load(in: bundle, subdirectory: "Fixtures").scenarioNames == ["empty"])
    #expect(
      throws: DoppelError(
        "The manifest stubs.json in Fixtures/ is not in the bundle at \(bundle.bundleURL.path). Add it to the target's resources in Package.swift (for example resources: [.copy(\"Fixtures\")]) and pass subdirectory: when it is inside a folder."
      )
    ) { try Manifest.load(named: "stubs", in: bundle, subdirectory: "Fixtures") }
  }

  @Test func unmatchedPolicyFromTheManifest() async throws {
    let notFound = try Backend(
      manifest: manifest(#"{"unmatched": {"status": 404, "text": "nope"}, "stubs": []}"#), scenario: .base)
    #expect(try await notFound.answer("https://x.com/anything").description == "404 text/plain; charset=utf-8 nope")
    #expect(notFound.unmatchedRequests.count == 1)
    let overridden = try Backend(
      manifest: manifest(#"{"unmatched": "passthrough"}"#), scenario: .base, unmatched: .respond(.status(418)))
    #expect(try await overridden.answer("https://x.com/anything").status == 418)
    // "fail", the default policy, made explicit: the request fails with `.resourceUnavailable`.
    let failing = try Backend(
      manifest: manifest(#"{"unmatched": "fail"}"#), scenario: .base, unmatched: nil, issueReporter: .ignore)
    #expect(
      await failing.outcome(.get, "https://x.com/anything")
        == "URLError \(URLError.Code.resourceUnavailable.rawValue)")
  }

  @Test func statefulStubs() async throws {
    let backend = try Backend(
      manifest: manifest(
        """
        {"stubs": [
          {"request": "GET /me", "response": {"status": 401}},
          {"request": "POST /login", "response": {"status": 200}, "setsState": "loggedIn"},
          {"request": "GET /me", "response": {"text": "Tom"}, "requiresState": "loggedIn"}
        ]}
        """), scenario: .base)
    #expect(try await backend.answer("https://x.com/me").status == 401)
    #expect(try await backend.answer(.post, "https://x.com/login").status == 200)
    #expect(try await backend.answer("https://x.com/me").body == "Tom")
  }

  @Test func nearMissReportsPointIntoTheManifest() async throws {
    let backend = try Backend(
      manifest: manifest(
        """
        {
          "stubs": [
            {"name": "breeds", "request": "GET https://api.example.com/breeds.json", "response": {"status": 200}}
          ]
        }
        """), scenario: .base, issueReporter: .ignore)
    await #expect(throws: URLError.self) { try await backend.answer("https://api.example.com/breed.json") }
    #expect(
      backend.journal.first?.unmatchedReport == """
        No stub matched GET https://api.example.com/breed.json
        Closest stubs:
          1. doppel.json:3  "breeds" GET https://api.example.com/breeds.json
               ✓ method GET
               ✓ scheme https
               ✓ host   api.example.com
               ✗ path   expected "/breeds.json", got "/breed.json"
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://api.example.com/breed.json"), .status(200))
          {"request":"GET https://api.example.com/breed.json","response":{"status":200}}
        """)
    #expect(backend.stubs.first?.location.filePath == "/project/Fixtures/doppel.json")
    #expect(backend.stubs.first?.location.column == 5)
  }

  @Test func addStubsLayersOverAnExistingBackend() async throws {
    let backend = Backend()
    backend.stub(.get("/a"), .text("code"))
    backend.stub(.get("/b"), .text("code"))
    let handles = try backend.addStubs(
      from: manifest(#"{"stubs": [{"request": "/a", "response": {"text": "manifest"}}]}"#), scenario: .base)
    #expect(handles.count == 1)
    #expect(try await backend.answer("https://x.com/a").body == "manifest")
    #expect(try await backend.answer("https://x.com/b").body == "code")
  }

  @Test func worksThroughTheBackendsSession() async throws {
    let backend = try Backend(
      manifest: manifest(#"{"stubs": [{"request": "GET https://api.example.com/x", "response": {"json": [1, 2]}}]}"#),
      scenario: .base)
    let (data, response) = try await backend.session.data(from: URL(string: "https://api.example.com/x")!)
    #expect(String(decoding: data, as: UTF8.self) == "[1,2]")
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
  }
}
