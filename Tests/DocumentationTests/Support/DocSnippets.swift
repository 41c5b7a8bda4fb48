import Foundation

/// Turns the Swift code blocks of the documentation (README.md and the DocC articles) into Swift
/// sources for the DocumentationSnippets test target, so that a snippet that drifts from the API
/// fails the build, and a test a snippet shows runs (and must pass) in `swift test`.
///
/// Used in two places: `Scripts/extract-doc-snippets` writes the files, and a test checks that the
/// committed files are what this produces from the documentation as it is now.
///
/// Each ```` ```swift ```` block becomes one of:
/// - a function `snippet_<Document>_L<line>() async throws` holding the block
///   (statements, and local types and functions); every value the block declares at its top level is
///   marked as used, since a reader uses it after the snippet ends;
/// - for a block of `@Test`/`@Suite` declarations, a suite `Snippet_<Document>_L<line>` holding them,
///   named `<document>:<line>`: its tests run. The free names they use (`breeds`, `breedsURL`, …)
///   are in SnippetContext.swift; a cassette a test names is in `Generated/__Cassettes__/<file>/`;
/// - for a block that declares a protocol or an extension, the block itself at file scope.
///
/// `import` lines move to the top of the file. A `…` standing for code the reader fills in (a line
/// of its own, or `{ … }`) is left out. The HTML comment line right before a block changes what
/// happens to it:
/// - `<!-- snippet: skip (reason) -->`: not compiled; the reason is required;
/// - `<!-- snippet: compile-only (reason) -->`, for a block of tests that cannot run as written (its
///   body is left for the reader, or it writes files into the package): compiled, with its `@Test`
///   and `@Suite` attributes turned into properties that type-check their arguments (see
///   ``compileOnly(_:)``), so it declares no test and `swift test` lists nothing as skipped; the
///   script lists these blocks with their reasons; the reason is required;
/// - `<!-- snippet: server -->`: compiled only with the Server trait (`#if Server`), as is every
///   block of the DoppelServer catalog;
/// - `<!-- snippet: tls -->`: compiled only with the TLS trait (`#if TLS`), for HTTPS. Every block of the DoppelOpenAPI catalog is compiled only
///   with the OpenAPI trait (`#if OpenAPI`);
/// - `<!-- snippet: graphql -->`: compiled only with the GraphQL trait (`#if GraphQL`), as is every
///   block of the DoppelGraphQL catalog.
enum DocSnippets {
  /// A generated file: its path from the package root, and its contents.
  struct File: Equatable {
    var path: String
    var contents: String
  }

  /// What was found, for the script's summary.
  struct Summary: Equatable {
    var compiled = 0
    var compiledWithServerTrait = 0
    /// Of the compiled blocks, those whose tests run (with their trait, if they need one).
    var runAsTests = 0
    /// `<document>:<line>: <reason>` for each block of tests that is compiled but does not run.
    var compileOnly: [String] = []
    var skipped: [String] = []
  }

  /// A documentation problem that stops generation, for example a skip without a reason.
  struct Problem: Error, CustomStringConvertible {
    var description: String
  }

  /// Where the generated files go, from the package root.
  static let outputDirectory = "Tests/DocumentationSnippets/Generated"

  /// The documents whose Swift blocks are compiled, from the package root: README.md, then every
  /// DocC article, in path order.
  static func documents(root: URL) throws -> [String] {
    let fileManager = FileManager.default
    var articles: [String] = []
    let sources = root.appendingPathComponent("Sources")
    for module in try fileManager.contentsOfDirectory(atPath: sources.path) {
      let moduleURL = sources.appendingPathComponent(module)
      guard let entries = try? fileManager.contentsOfDirectory(atPath: moduleURL.path) else { continue }
      for catalog in entries where catalog.hasSuffix(".docc") {
        let catalogURL = moduleURL.appendingPathComponent(catalog)
        for article in try fileManager.contentsOfDirectory(atPath: catalogURL.path) where article.hasSuffix(".md") {
          articles.append("Sources/\(module)/\(catalog)/\(article)")
        }
      }
    }
    return ["README.md"] + articles.sorted()
  }

  /// The generated files for every document, and what was found.
  static func generate(root: URL) throws -> (files: [File], summary: Summary) {
    var files: [File] = []
    var summary = Summary()
    for document in try documents(root: root) {
      let text = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
      let blocks = try swiftBlocks(in: text, document: document)
      guard !blocks.isEmpty else { continue }
      files.append(
        File(path: "\(outputDirectory)/\(fileName(for: document))", contents: source(for: blocks, of: document)))
      for block in blocks {
        if let reason = block.skipReason {
          summary.skipped.append("\(document):\(block.line): \(reason)")
        } else if block.server || block.openAPI {
          summary.compiledWithServerTrait += 1
        } else {
          summary.compiled += 1
        }
        if let reason = block.compileOnlyReason {
          summary.compileOnly.append("\(document):\(block.line): \(reason)")
        } else if block.skipReason == nil, shape(of: block.lines) == .suite {
          summary.runAsTests += 1
        }
      }
    }
    return (files, summary)
  }

  // MARK: - Reading the documents

  /// One ```` ```swift ```` block.
  struct Block {
    /// The line of the opening fence, from 1.
    var line: Int
    /// The code, without the fence's indentation.
    var lines: [String]
    var server: Bool
    var openAPI = false
    var graphQL = false
    var tls = false
    var skipReason: String?
    var compileOnlyReason: String?
  }

  static func swiftBlocks(in text: String, document: String) throws -> [Block] {
    let lines = text.components(separatedBy: "\n")
    let serverDocument = document.hasPrefix("Sources/DoppelServer/")
    var blocks: [Block] = []
    var index = 0
    while index < lines.count {
      let line = lines[index]
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("```") else {
        index += 1
        continue
      }
      let info = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
      let indent = line.prefix { $0 == " " }.count
      var body: [String] = []
      var end = index + 1
      while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" {
        body.append(String(lines[end].dropFirst(min(indent, lines[end].prefix { $0 == " " }.count))))
        end += 1
      }
      if info == "swift" {
        var block = Block(line: index + 1, lines: body, server: serverDocument, skipReason: nil)
        block.openAPI = document.hasPrefix("Sources/DoppelOpenAPI/")
        block.graphQL = document.hasPrefix("Sources/DoppelGraphQL/")
        if let marker = previousNonBlankLine(lines, before: index), marker.hasPrefix("<!-- snippet:") {
          try apply(marker, to: &block, at: "\(document):\(index + 1)")
        }
        if block.compileOnlyReason != nil, shape(of: block.lines) != .suite {
          throw Problem(
            description:
              "\(document):\(index + 1): only a block of @Test or @Suite declarations can be compile-only; other blocks are never run"
          )
        }
        blocks.append(block)
      }
      index = end + 1
    }
    return blocks
  }

  static func previousNonBlankLine(_ lines: [String], before index: Int) -> String? {
    var previous = index - 1
    while previous >= 0 {
      let trimmed = lines[previous].trimmingCharacters(in: .whitespaces)
      if !trimmed.isEmpty { return trimmed }
      previous -= 1
    }
    return nil
  }

  static func apply(_ marker: String, to block: inout Block, at location: String) throws {
    guard marker.hasSuffix("-->") else {
      throw Problem(description: "\(location): a snippet marker must be one line ending with -->: \(marker)")
    }
    let content = marker.dropFirst("<!-- snippet:".count).dropLast(3).trimmingCharacters(in: .whitespaces)
    if content == "server" {
      block.server = true
    } else if content == "graphql" {
      block.graphQL = true
    } else if content == "tls" {
      block.server = true
      block.tls = true
    } else if content.hasPrefix("skip") {
      let reason = content.dropFirst(4).trimmingCharacters(in: .whitespaces)
      guard reason.hasPrefix("("), reason.hasSuffix(")"), reason.count > 2 else {
        throw Problem(
          description: "\(location): say why the block is skipped: <!-- snippet: skip (needs the network) -->")
      }
      block.skipReason = String(reason.dropFirst().dropLast())
    } else if content.hasPrefix("compile-only") {
      let reason = content.dropFirst("compile-only".count).trimmingCharacters(in: .whitespaces)
      guard reason.hasPrefix("("), reason.hasSuffix(")"), reason.count > 2 else {
        throw Problem(
          description:
            "\(location): say why the tests do not run: <!-- snippet: compile-only (the test's body is left for the reader) -->"
        )
      }
      block.compileOnlyReason = String(reason.dropFirst().dropLast())
    } else {
      throw Problem(
        description:
          "\(location): unknown snippet marker \"\(content)\"; the markers are <!-- snippet: skip (reason) -->, <!-- snippet: compile-only (reason) -->, <!-- snippet: server -->, <!-- snippet: tls --> and <!-- snippet: graphql -->"
      )
    }
  }

  // MARK: - Writing the sources

  /// `README.md` → `README.swift`; `Sources/Doppel/Doppel.docc/GettingStarted.md` →
  /// `Doppel+GettingStarted.swift`.
  static func fileName(for document: String) -> String {
    "\(identifier(for: document).replacingOccurrences(of: "_", with: "+")).swift"
  }

  /// `README`, or `Doppel_GettingStarted` for an article.
  static func identifier(for document: String) -> String {
    let parts = document.split(separator: "/")
    let name = String((parts.last ?? "").dropLast(3))
    guard parts.count >= 3 else { return name }
    return "\(parts[1])_\(name)"
  }

  enum Shape {
    case function, suite, fileScope
  }

  static func source(for blocks: [Block], of document: String) -> String {
    var imports: Set<String> = ["CatFancyKit", "Doppel", "DoppelTesting", "Foundation", "Testing", "XCTest"]
    if blocks.contains(where: { $0.server && $0.skipReason == nil }) { imports.insert("DoppelServer") }
    if blocks.contains(where: { $0.openAPI && $0.skipReason == nil }) { imports.insert("DoppelOpenAPI") }
    if blocks.contains(where: { $0.graphQL && $0.skipReason == nil }) { imports.insert("DoppelGraphQL") }
    var bodies: [String] = []
    for block in blocks {
      let location = "\(document):\(block.line)"
      if let reason = block.skipReason {
        bodies.append("// \(location): skipped (\(reason))")
        continue
      }
      var code: [String] = []
      for line in block.lines {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if let module = importedModule(trimmed) {
          imports.insert(module)
        } else if trimmed != "…" {
          code.append(line.replacingOccurrences(of: "{ … }", with: "{}"))
        }
      }
      while code.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { code.removeFirst() }
      while code.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { code.removeLast() }
      let name = "\(identifier(for: document))_L\(block.line)"
      var body: [String] = []
      switch shape(of: code) {
      case .function:
        body.append("func snippet_\(name)() async throws {")
        body += code.map { $0.isEmpty ? "" : "  \($0)" }
        let declared = declaredNames(code)
        if !declared.isEmpty {
          body.append("  // Generated: the snippet's values, as used by what the reader writes next.")
          body += declared.map { "  _ = \($0)" }
        }
        body.append("}")
      case .suite:
        if let reason = block.compileOnlyReason {
          body.append("// compile-only: \(reason)")
          body.append("struct Snippet_\(name) {")
          body += compileOnly(code).map { $0.isEmpty ? "" : "  \($0)" }
        } else {
          body.append("@Suite(\(stringLiteral(location)))")
          body.append("struct Snippet_\(name) {")
          body += code.map { $0.isEmpty ? "" : "  \($0)" }
        }
        body.append("}")
      case .fileScope:
        body += code
      }
      if block.server {
        body = ["#if Server"] + body + ["#endif"]
      }
      if block.openAPI {
        body = ["#if OpenAPI"] + body + ["#endif"]
      }
      if block.graphQL {
        body = ["#if GraphQL"] + body + ["#endif"]
      }
      if block.tls {
        body = ["#if TLS"] + body + ["#endif"]
      }
      bodies.append((["// \(location)"] + body).joined(separator: "\n"))
    }
    let header = """
      // swift-format-ignore-file
      // Generated by Scripts/extract-doc-snippets from \(document): do not edit. Edit the document,
      // then run the script. The test GeneratedSnippetsTests checks that this file is up to date.

      """
    var importLines = imports.sorted().map { "import \($0)" }
    importLines += ["", "#if canImport(FoundationNetworking)", "  import FoundationNetworking", "#endif"]
    return header + "\n" + importLines.joined(separator: "\n") + "\n\n" + bodies.joined(separator: "\n\n") + "\n"
  }

  /// A compile-only block of tests with its `@Test` and `@Suite` attributes turned into plain
  /// declarations: each attribute's arguments become a computed property that type-checks them
  /// (`static var compileOnlyTraits1: Void { CompileOnlySnippet.test(…) }`, never evaluated), so the
  /// block compiles as written but declares no test, and `swift test` lists nothing as skipped.
  static func compileOnly(_ code: [String]) -> [String] {
    let text = Array(code.joined(separator: "\n"))
    var result = ""
    var index = 0
    var count = 0
    var atLineStart = true
    while index < text.count {
      let character = text[index]
      if atLineStart, character == " " {
        result.append(character)
        index += 1
        continue
      }
      if atLineStart, character == "@",
        let kind = ["Test", "Suite"].first(where: { attribute(text, at: index + 1, is: $0) })
      {
        index += 1 + kind.count
        if index < text.count, text[index] == "(", let end = closingParenthesis(text, from: index) {
          count += 1
          let arguments = String(text[(index + 1)..<end])
          result +=
            "static var compileOnlyTraits\(count): Void { CompileOnlySnippet.\(kind.lowercased())(\(arguments)) }"
          index = end + 1
          // What followed the attribute on its line (`func a() {`) goes on a line of its own.
          while index < text.count, text[index] == " " { index += 1 }
          if index < text.count, text[index] != "\n" {
            result +=
              "\n"
              + String(result.split(separator: "\n", omittingEmptySubsequences: false).last ?? "")
              .prefix { $0 == " " }
          }
        } else {
          while index < text.count, text[index] == " " { index += 1 }
        }
        atLineStart = false
        continue
      }
      atLineStart = character == "\n"
      result.append(character)
      index += 1
    }
    return result.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// Whether `text` holds the word `name` at `index` (not the start of a longer name).
  private static func attribute(_ text: [Character], at index: Int, is name: String) -> Bool {
    let word = Array(name)
    guard index + word.count <= text.count, Array(text[index..<(index + word.count)]) == word else { return false }
    let next = index + word.count
    return next == text.count || !(text[next].isLetter || text[next].isNumber || text[next] == "_")
  }

  /// The index of the `)` that closes the `(` at `start`, skipping string literals.
  private static func closingParenthesis(_ text: [Character], from start: Int) -> Int? {
    var depth = 0
    var inString = false
    var index = start
    while index < text.count {
      let character = text[index]
      if inString {
        if character == "\\" {
          index += 1
        } else if character == "\"" {
          inString = false
        }
      } else if character == "\"" {
        inString = true
      } else if character == "(" {
        depth += 1
      } else if character == ")" {
        depth -= 1
        if depth == 0 { return index }
      }
      index += 1
    }
    return nil
  }

  /// `text` as a Swift string literal.
  static func stringLiteral(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }

  static func importedModule(_ line: String) -> String? {
    for prefix in ["import ", "@testable import "] where line.hasPrefix(prefix) {
      let module = line.dropFirst(prefix.count).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
      if !module.isEmpty { return String(module) }
    }
    return nil
  }

  /// How a block is compiled, from the first word of each line at its top level.
  static func shape(of code: [String]) -> Shape {
    var shape = Shape.function
    for line in topLevelLines(code) {
      let words = line.split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ":" || $0 == "{" })
      let modifiers: Set<Substring> = ["public", "private", "fileprivate", "internal", "final", "nonisolated"]
      guard let word = words.first(where: { !modifiers.contains($0) }) else { continue }
      if word == "extension" || word == "protocol" { return .fileScope }
      if word == "@Test" || word == "@Suite" { shape = .suite }
    }
    return shape
  }

  /// The names a block declares with `let` or `var` at its top level: `let backend = …` and
  /// `let (data, response) = …`.
  static func declaredNames(_ code: [String]) -> [String] {
    var names: [String] = []
    for line in topLevelLines(code) {
      for keyword in ["let ", "var "] where line.hasPrefix(keyword) {
        let rest = line.dropFirst(keyword.count)
        if rest.hasPrefix("(") {
          let inside = rest.dropFirst().prefix { $0 != ")" }
          names += inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        } else {
          names.append(String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
        }
      }
    }
    return names.filter { !$0.isEmpty && $0 != "_" }
  }

  /// The lines that start outside any brace, parenthesis or bracket, trimmed, without blank and
  /// comment lines.
  static func topLevelLines(_ code: [String]) -> [String] {
    var lexer = Lexer()
    var result: [String] = []
    for line in code {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if lexer.depth == 0, lexer.isInCode, !trimmed.isEmpty, !trimmed.hasPrefix("//") {
        result.append(trimmed)
      }
      lexer.read(line + "\n")
    }
    return result
  }

  /// Just enough of Swift's lexical structure to know the nesting depth: strings (with `#`s and
  /// triple quotes) and comments do not count.
  struct Lexer {
    enum State: Equatable {
      case code
      case lineComment
      case blockComment
      case string(hashes: Int, multiline: Bool)
    }

    var state = State.code
    var depth = 0

    var isInCode: Bool { state == .code }

    mutating func read(_ text: String) {
      let characters = Array(text)
      var index = 0
      func matches(_ string: String, at position: Int) -> Bool {
        let pattern = Array(string)
        guard position + pattern.count <= characters.count else { return false }
        return Array(characters[position..<position + pattern.count]) == pattern
      }
      while index < characters.count {
        let character = characters[index]
        switch state {
        case .code:
          if matches("//", at: index) {
            state = .lineComment
          } else if matches("/*", at: index) {
            state = .blockComment
            index += 1
          } else if character == "#" || character == "\"" {
            var hashes = 0
            while index + hashes < characters.count, characters[index + hashes] == "#" { hashes += 1 }
            if matches("\"\"\"", at: index + hashes) {
              state = .string(hashes: hashes, multiline: true)
              index += hashes + 2
            } else if matches("\"", at: index + hashes) {
              state = .string(hashes: hashes, multiline: false)
              index += hashes
            }
          } else if "{([".contains(character) {
            depth += 1
          } else if "})]".contains(character) {
            depth = max(0, depth - 1)
          }
        case .lineComment:
          if character == "\n" { state = .code }
        case .blockComment:
          if matches("*/", at: index) {
            state = .code
            index += 1
          }
        case .string(let hashes, let multiline):
          let quote = (multiline ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
          if hashes == 0, character == "\\" {
            index += 1
          } else if matches(quote, at: index) {
            state = .code
            index += quote.count - 1
          } else if !multiline, character == "\n" {
            state = .code
          }
        }
        index += 1
      }
    }
  }
}
