import Foundation
import Testing

/// The generated snippet sources are what `Scripts/extract-doc-snippets` makes of the documentation
/// as it is now, so that compiling them compiles the documentation.
@Suite struct GeneratedSnippetsTests {
  /// The package root, from this file's path.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test("the generated sources are up to date with README.md and the DocC articles")
  func upToDate() throws {
    let (files, _) = try DocSnippets.generate(root: Self.root)
    for file in files {
      let committed = try? String(contentsOf: Self.root.appendingPathComponent(file.path), encoding: .utf8)
      #expect(
        committed == file.contents,
        "\(file.path) is out of date with the documentation. Run Scripts/extract-doc-snippets and commit the result.")
    }
    let directory = Self.root.appendingPathComponent(DocSnippets.outputDirectory)
    let present = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
    let stale = Set(present).subtracting(files.map { URL(fileURLWithPath: $0.path).lastPathComponent })
    #expect(
      stale.isEmpty,
      "\(stale.sorted()) in \(DocSnippets.outputDirectory) come from no document. Run Scripts/extract-doc-snippets.")
  }

  @Test(
    "every Swift block is compiled, or skipped with a reason that says why; every block of tests runs, or says why not")
  func everyBlockIsAccountedFor() throws {
    let (_, summary) = try DocSnippets.generate(root: Self.root)
    #expect(summary.compiled >= 35)
    #expect(summary.compiledWithServerTrait >= 3)
    #expect(summary.runAsTests >= 13)
    for compileOnly in summary.compileOnly {
      // Tests whose body the article leaves to the reader (`{ … }`), a contract test that would
      // write its pact into the package's folder, and one that attaches to a passing run.
      #expect(
        compileOnly.contains("left for the reader") || compileOnly.contains("pacts/")
          || compileOnly.contains("attaches"), "\(compileOnly)")
    }
    #expect(summary.compileOnly.count <= 7, "\(summary.compileOnly)")
    for skipped in summary.skipped {
      // Code that uses types swift-openapi-generator makes from the reader's document: the same code,
      // on types generated from a test document, is in DoppelOpenAPITests/TransportTests.swift.
      #expect(
        skipped.hasSuffix("a Package.swift excerpt") || skipped.contains("AsyncHTTPClient")
          || skipped.contains("swift-openapi-generator"), "\(skipped)")
    }
  }

  @Test("a block of statements becomes a function, its values marked as used")
  func statements() throws {
    let text = """
      Intro.

      ```swift
      import Doppel

      let backend = Backend()
      let (data, response) = try await backend.session.data(from: url)
      backend.stub(.get("/x"), .json(["a": 1]))   // { not a brace
      ```
      """
    let blocks = try DocSnippets.swiftBlocks(in: text, document: "Sources/Doppel/Doppel.docc/Guide.md")
    #expect(blocks.count == 1)
    #expect(blocks.first?.line == 3)
    let source = DocSnippets.source(for: blocks, of: "Sources/Doppel/Doppel.docc/Guide.md")
    #expect(
      source.hasSuffix(
        """
        // Sources/Doppel/Doppel.docc/Guide.md:3
        func snippet_Doppel_Guide_L3() async throws {
          let backend = Backend()
          let (data, response) = try await backend.session.data(from: url)
          backend.stub(.get("/x"), .json(["a": 1]))   // { not a brace
          // Generated: the snippet's values, as used by what the reader writes next.
          _ = backend
          _ = data
          _ = response
        }

        """))
  }

  @Test(
    "tests become a suite named after the block, which runs; protocols and extensions stay at file scope; … is left out"
  )
  func shapes() {
    #expect(DocSnippets.shape(of: ["@Test(.doppel { $0.stub(.get(\"/a\"), .ok) })", "func a() async { … }"]) == .suite)
    #expect(DocSnippets.shape(of: ["@Suite struct S {", "  @Test func a() {}", "}"]) == .suite)
    #expect(DocSnippets.shape(of: ["protocol P {}", "extension URLSession: P {}"]) == .fileScope)
    #expect(DocSnippets.shape(of: ["final class T: XCTestCase {", "  func testA() {}", "}"]) == .function)
    #expect(DocSnippets.shape(of: ["let s = \"\"\"", "  @Test", "  \"\"\""]) == .function)
    let source = DocSnippets.source(
      for: [.init(line: 7, lines: ["@Test func a() async throws { … }"], server: true, skipReason: nil)],
      of: "README.md")
    #expect(
      source.hasSuffix(
        """
        // README.md:7
        #if Server
        @Suite("README.md:7")
        struct Snippet_README_L7 {
          @Test func a() async throws {}
        }
        #endif

        """))
  }

  @Test("a skipped block needs a reason; an unknown marker names the valid ones")
  func markers() throws {
    let skipped = try DocSnippets.swiftBlocks(
      in: "<!-- snippet: skip (a Package.swift excerpt) -->\n```swift\n.package(url: …)\n```\n", document: "README.md")
    #expect(skipped.first?.skipReason == "a Package.swift excerpt")
    let server = try DocSnippets.swiftBlocks(
      in: "<!-- snippet: server -->\n\n```swift\nlet x = 1\n```\n", document: "README.md")
    #expect(server.first?.server == true)
    let tls = try DocSnippets.swiftBlocks(
      in: "<!-- snippet: tls -->\n```swift\nlet x = 1\n```\n", document: "README.md")
    #expect(tls.first?.tls == true && tls.first?.server == true)
    let source = DocSnippets.source(for: tls, of: "README.md")
    #expect(source.contains("#if TLS\n#if Server\nfunc snippet_README_L2() async throws {"))
    let graphQL = try DocSnippets.swiftBlocks(
      in: "<!-- snippet: graphql -->\n```swift\nlet x = 1\n```\n", document: "README.md")
    #expect(DocSnippets.source(for: graphQL, of: "README.md").contains("#if GraphQL\nfunc snippet_README_L2()"))

    let compileOnly = try DocSnippets.swiftBlocks(
      in:
        "<!-- snippet: compile-only (the test's \"body\" is left for the reader) -->\n```swift\n@Test func a() { … }\n```\n",
      document: "README.md")
    #expect(compileOnly.first?.compileOnlyReason == #"the test's "body" is left for the reader"#)
    #expect(
      DocSnippets.source(for: compileOnly, of: "README.md").hasSuffix(
        #"""
        // README.md:2
        // compile-only: the test's "body" is left for the reader
        struct Snippet_README_L2 {
          func a() {}
        }

        """#))
    // A compile-only block's attributes become properties that type-check their arguments, so the
    // block declares no test for swift test to list as skipped.
    #expect(
      DocSnippets.compileOnly([
        #"@Suite(.doppel { $0.stub(.get("/a)"), .ok) }) struct BreedTests {"#,
        "  @Test(",
        "    .doppel(cassette: \"feed\"))",
        "  func feed() async throws {}",
        "  @Test func b() {}",
        "}",
      ]) == [
        #"static var compileOnlyTraits1: Void { CompileOnlySnippet.suite(.doppel { $0.stub(.get("/a)"), .ok) }) }"#,
        "struct BreedTests {",
        "  static var compileOnlyTraits2: Void { CompileOnlySnippet.test(",
        "    .doppel(cassette: \"feed\")) }",
        "  func feed() async throws {}",
        "  func b() {}",
        "}",
      ])
    #expect {
      try DocSnippets.swiftBlocks(
        in: "<!-- snippet: compile-only -->\n```swift\n@Test func a() {}\n```\n", document: "README.md")
    } throws: { error in
      "\(error)"
        == "README.md:2: say why the tests do not run: <!-- snippet: compile-only (the test's body is left for the reader) -->"
    }
    #expect {
      try DocSnippets.swiftBlocks(
        in: "<!-- snippet: compile-only (never mind) -->\n```swift\nlet x = 1\n```\n", document: "README.md")
    } throws: { error in
      "\(error)"
        == "README.md:2: only a block of @Test or @Suite declarations can be compile-only; other blocks are never run"
    }
    #expect {
      try DocSnippets.swiftBlocks(in: "<!-- snippet: skip -->\n```swift\nx\n```\n", document: "README.md")
    } throws: { error in
      "\(error)" == "README.md:2: say why the block is skipped: <!-- snippet: skip (needs the network) -->"
    }
    #expect {
      try DocSnippets.swiftBlocks(in: "<!-- snippet: ignore -->\n```swift\nx\n```\n", document: "README.md")
    } throws: { error in
      "\(error)"
        == #"README.md:2: unknown snippet marker "ignore"; the markers are <!-- snippet: skip (reason) -->, <!-- snippet: compile-only (reason) -->, <!-- snippet: server -->, <!-- snippet: tls --> and <!-- snippet: graphql -->"#
    }
  }
}
