import Foundation
import Testing

/// The examples the generated snippets compile but cannot run (they need a test runner's scope: a
/// trait, `URLSession.shared` taken in turn) run as tests elsewhere, copied; each copy must hold
/// its article's block exactly, so that what runs is what the article shows.
@Suite struct ExampleCopyTests {
  /// The Swift code blocks of `article` (a path from the package root) that contain `marker`.
  static func blocks(of article: String, containing marker: String) throws -> [String] {
    let text = try String(
      contentsOf: GeneratedSnippetsTests.root.appendingPathComponent(article), encoding: .utf8)
    return text.components(separatedBy: "```swift\n").dropFirst()
      .compactMap { $0.components(separatedBy: "\n```").first }
      .filter { $0.contains(marker) }
  }

  @Test(arguments: ["loadsBreedsThroughTheSharedSession", "showsTheForecast"])
  func gettingStartedsSessionExamplesRunAsWritten(_ test: String) throws {
    let copy = try String(
      contentsOf: GeneratedSnippetsTests.root.appendingPathComponent(
        "Tests/DoppelTestingTests/GettingStartedSessionExampleTests.swift"), encoding: .utf8)
    let blocks = try Self.blocks(of: "Sources/Doppel/Doppel.docc/GettingStarted.md", containing: "func \(test)(")
    #expect(blocks.count == 1)
    for block in blocks {
      let holdsTheBlock = copy.contains(block)
      #expect(
        holdsTheBlock,
        "GettingStartedSessionExampleTests.swift no longer holds GettingStarted.md's block with \(test): copy the block again."
      )
    }
  }
}
