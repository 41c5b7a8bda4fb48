import Doppel
import Foundation
import Testing

/// The near-miss reports the documentation shows are what Doppel prints for the stubs they name.
@Suite struct NearMissReportTests {
  /// The report for `GET https://api.example.com/breed.json` with `stubs` declared in `file` at
  /// the given lines.
  static func report(file: String, stubs: [(line: Int, matcher: Matcher)]) async throws -> String {
    let backend = Backend(issueReporter: .ignore)
    for stub in stubs {
      backend.stub(
        stub.matcher, .ok, fileID: "AppTests/\(file)", filePath: "/App/Tests/AppTests/\(file)", line: stub.line)
    }
    _ = try? await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/breed.json")!))
    return try #require(backend.journal.first?.unmatchedReport)
  }

  /// The plain code block of `document` that starts with the report's first line.
  static func shownReport(in document: String) throws -> String {
    let text = try String(
      contentsOf: GeneratedSnippetsTests.root.appendingPathComponent(document), encoding: .utf8)
    let start = try #require(text.range(of: "```\nNo stub matched GET https://api.example.com/breed.json\n"))
    let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
    return String(text[text.index(start.lowerBound, offsetBy: 4)..<end.lowerBound])
  }

  @Test("README: two stubs, the closest first")
  func readme() async throws {
    let real = try await Self.report(
      file: "BreedTests.swift",
      stubs: [(14, .get("https://api.example.com/breeds.json")), (15, .post("/breeds.json"))])
    #expect(try Self.shownReport(in: "README.md") == real, "README.md should show the real report:\n\(real)")
  }

  @Test(
    "the articles: one stub",
    arguments: [
      ("Sources/Doppel/Doppel.docc/GettingStarted.md", "BreedTests.swift"),
      ("Sources/DoppelTesting/DoppelTesting.docc/TestingWithDoppel.md", "BreedListTests.swift"),
    ])
  func articles(document: String, file: String) async throws {
    let real = try await Self.report(file: file, stubs: [(14, .get("https://api.example.com/breeds.json"))])
    #expect(try Self.shownReport(in: document) == real, "\(document) should show the real report:\n\(real)")
  }
}
