import Doppel
import Foundation
import Testing

/// The README's manifest example, read from README.md itself (not copied here), serves every
/// scenario it names as the README says. The README's Swift blocks are compiled by
/// DocumentationSnippets; this runs the one block that is not Swift.
@Suite struct ReadmeExampleTests {
  /// The first JSON block of README.md that declares scenarios.
  static func readmeManifest() throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    for block in readme.components(separatedBy: "```json\n").dropFirst() {
      let json = block.components(separatedBy: "\n```").first ?? ""
      if json.contains("\"scenarios\"") && json.contains("\"malformed\"") { return json }
    }
    throw DoppelError("README.md has no JSON manifest with the scenarios this test runs.")
  }

  static func manifestURL() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-readme-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(try readmeManifest().utf8).write(to: directory.appendingPathComponent("doppel.json"))
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
    var request = URLRequest(url: URL(string: "https://api.example.com/breeds.json")!)
    request.httpMethod = "GET"
    let outcome: String
    do {
      let (data, response) = try await backend.respond(to: request)
      outcome = "\(response.statusCode) \(String(decoding: data, as: UTF8.self))"
    } catch let error as URLError {
      outcome = "URLError \(error.code.rawValue)"
    }
    #expect(outcome == expected)
  }
}
