import Foundation
import Testing

@testable import Doppel

/// The README's examples, run as written, so the documentation cannot drift from the code.
@Suite struct ReadmeExampleTests {
  static let manifest = """
    {
      "stubs": [
        { "request": "GET https://api.example.com/breeds.json", "response": { "file": "breeds.json" } }
      ],
      "scenarios": {
        "empty":     { "stubs": [{ "request": "GET /breeds.json", "response": { "json": { "breeds": [] } } }] },
        "malformed": { "stubs": [{ "request": "GET /breeds.json", "response": { "text": "{ not json" } }] },
        "offline":   { "stubs": [{ "request": "/breeds.json", "response": { "error": "notConnectedToInternet" } }] }
      }
    }
    """

  static func manifestURL() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-readme-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(manifest.utf8).write(to: directory.appendingPathComponent("doppel.json"))
    try Data(#"{"breeds":[{"name":"Bengal"}]}"#.utf8).write(to: directory.appendingPathComponent("breeds.json"))
    return directory.appendingPathComponent("doppel.json")
  }

  @Test(arguments: [
    ("standard", #"200 {"breeds":[{"name":"Bengal"}]}"#), ("empty", #"200 {"breeds":[]}"#),
    ("malformed", "200 { not json"), ("offline", "URLError \(URLError.Code.notConnectedToInternet.rawValue)"),
  ])
  func theManifestExampleServesEveryScenario(scenario: String, expected: String) async throws {
    let manifestURL = try Self.manifestURL()
    defer { try? FileManager.default.removeItem(at: manifestURL.deletingLastPathComponent()) }
    let backend = try Backend(
      manifest: .load(contentsOf: manifestURL), scenario: scenario == "standard" ? .base : .named(scenario),
      issueReporter: .ignore)
    #expect(await backend.outcome(.get, "https://api.example.com/breeds.json") == expected)
  }

  @Test func theInjectionExampleCompiles() async throws {
    let backend = quietBackend()
    backend.stub(.get("/x"), .text("x"))
    let loader: any HTTPDataLoading = backend.dataLoader
    let fetch = backend.handler
    let request = URLRequest(url: URL(string: "https://a.com/x")!)
    #expect(String(decoding: try await loader.data(for: request).0, as: UTF8.self) == "x")
    #expect(try await fetch(request).1.statusCode == 200)
    #expect(backend.requests.count == 2)
  }
}
