import Foundation

/// `Scripts/extract-doc-snippets`: writes Tests/DocumentationSnippets/Generated from the Swift blocks
/// of README.md and the DocC articles (see DocSnippets.swift), or with `--check` only says whether
/// the committed files are up to date.
@main
struct ExtractDocSnippets {
  static func main() throws {
    let check = CommandLine.arguments.dropFirst().contains("--check")
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let (files, summary) = try DocSnippets.generate(root: root)
    let directory = root.appendingPathComponent(DocSnippets.outputDirectory)
    let existing = Set(
      (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter { $0.hasSuffix(".swift") } ?? [])
    let expected = Set(files.map { URL(fileURLWithPath: $0.path).lastPathComponent })
    var stale: [String] = []
    for file in files {
      let url = root.appendingPathComponent(file.path)
      if (try? String(contentsOf: url, encoding: .utf8)) != file.contents {
        stale.append(file.path)
        if !check {
          try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
          try file.contents.write(to: url, atomically: true, encoding: .utf8)
        }
      }
    }
    for name in existing.subtracting(expected).sorted() {
      stale.append("\(DocSnippets.outputDirectory)/\(name)")
      if !check { try FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
    }
    print(
      "\(summary.compiled) Swift blocks compiled by swift test, \(summary.compiledWithServerTrait) more with --traits Server, \(summary.skipped.count) skipped:"
    )
    for skipped in summary.skipped { print("  \(skipped)") }
    print(
      "\(summary.runAsTests) blocks of tests run, \(summary.compileOnly.count) more are compile-only (compiled, not run: no test is declared for them):"
    )
    for compileOnly in summary.compileOnly { print("  \(compileOnly)") }
    if check {
      guard stale.isEmpty else {
        print("Out of date: \(stale.joined(separator: ", ")). Run Scripts/extract-doc-snippets.")
        exit(1)
      }
      print("The generated snippets are up to date.")
    } else {
      print(stale.isEmpty ? "Nothing changed." : "Wrote \(stale.joined(separator: ", ")).")
    }
  }
}
