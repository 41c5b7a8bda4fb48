#if Server
  import ArgumentParser
  import Doppel
  import Foundation

  /// `doppel lint`: checks manifests and cassettes.
  struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Check manifests and HAR cassettes: format errors, missing fixtures, secrets.",
      discussion: """
        Prints one line per problem, starting with the file and the position (line:column, and
        the JSON path of the field), and exits with status 1 when there is any. A manifest is
        checked as `doppel serve` would load it (every fixture it names must exist) and scanned
        for secrets; a cassette is checked for entries that cannot be replayed and for secrets
        that were not redacted (tokens, keys, cookies, passwords).
        """
    )

    @Argument(
      help: ArgumentHelp(
        "Manifests (doppel.json, or a directory holding one), fixture directories, and .har cassettes.",
        valueName: "file"))
    var files: [String]

    @Option(
      name: .customLong("keep"),
      help: "Do not report this header, query or form parameter, or JSON key for its name (repeatable).")
    var keptNames: [String] = []

    func validate() throws {
      guard !files.isEmpty else { throw ValidationError("Name at least one manifest or cassette to check.") }
    }

    func run() throws {
      var problems: [String] = []
      var troubled = 0
      for path in files {
        let found = Self.check(path, redaction: Redaction.default.keeping(names: keptNames))
        if !found.isEmpty { troubled += 1 }
        problems += found
      }
      for problem in problems { Console.out(problem) }
      guard problems.isEmpty else {
        Console.error(
          "doppel lint: \(problems.count) \(problems.count == 1 ? "problem" : "problems") in \(troubled) of \(files.count) \(files.count == 1 ? "file" : "files")."
        )
        throw ExitCode(1)
      }
      Console.out("No problems in \(files.count) \(files.count == 1 ? "file" : "files").")
    }

    /// The problems of one input, each a line starting with its file (as typed) and position.
    static func check(_ path: String, redaction: Redaction = .default) -> [String] {
      // A relative URL keeps the path as typed in every message.
      let url = URL(fileURLWithPath: path)
      if url.pathExtension.lowercased() == "har" {
        var problems: [String] = []
        do {
          _ = try Cassette.load(from: url)
        } catch {
          // One line per problem.
          problems += "\(error)".split(separator: "\n").map(String.init)
        }
        problems += secrets(in: url, shown: path, redaction: redaction)
        return problems
      }
      let manifest: Manifest
      do {
        manifest = try Manifest.load(contentsOf: url)
      } catch {
        return error.message.split(separator: "\n").map(String.init)
      }
      // A fixture directory has no manifest file to scan.
      guard manifest.url.pathExtension.lowercased() == "json" else { return [] }
      return secrets(in: manifest.url, shown: manifest.url.relativePath, redaction: redaction)
    }

    /// Secrets left in a JSON file, with where each is.
    private static func secrets(in url: URL, shown: String, redaction: Redaction) -> [String] {
      guard let data = try? Data(contentsOf: url),
        let findings = try? CassetteLint.scan(data, file: shown, redaction: redaction)
      else {
        return []
      }
      return findings.map { finding in
        let place = JSONLocation.position(of: finding.field, in: data).map { ":\($0.line):\($0.column)" } ?? ""
        return "\(shown)\(place): \(finding.field): \(finding.kind) (redact it, or replace it with a made-up value)"
      }
    }
  }
#endif
