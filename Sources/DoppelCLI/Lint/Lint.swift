#if Server
  import ArgumentParser
  import Doppel
  import Foundation

  /// `doppel lint`: checks manifests and cassettes.
  struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Check manifests and HAR cassettes: format errors, missing fixtures, secrets, drift from an OpenAPI document.",
      // The generated usage lists every option on one line, wider than a terminal.
      usage: "doppel lint <file> ... [<options>]",
      discussion: """
        Prints one line per problem, starting with the file and the position
        (line:column, and the JSON path of the field), and exits with status 1 when
        there is any. A manifest is checked as `doppel serve` would load it (every
        fixture it names must exist) and scanned for secrets; a cassette is checked
        for entries that cannot be replayed and for secrets that were not redacted
        (tokens, keys, cookies, passwords), exactly what `doppel record` would redact,
        in bodies of every encoding.

        With --openapi, every stub of a manifest and every entry of a cassette is also
        checked against the OpenAPI document, with the messages the runtime check
        gives: a stub at the line of its declaration, a cassette entry at the line of
        the entry.

        With --graphql, every GraphQL request of a cassette and its recorded answer are
        checked against the schema, at the line of the entry: the operation (fields,
        arguments, types, variables) and the answer's JSON against the operation's
        selection. A manifest's GraphQL stub names an operation without its text, so
        its answer is checked against the schema's types, at the stub's line: every
        field one its type has, values of the field's type, null only where allowed
        (a field left out, or an alias, cannot be told).
        """
    )

    @Argument(
      help: ArgumentHelp(
        "Manifests (doppel.json, or a directory holding one), fixture directories, .har cassettes, and OpenAPI documents and GraphQL schemas (checked for what doppel serve refuses).",
        valueName: "file"))
    var files: [String]

    @Option(
      name: .customLong("keep"),
      help: "Do not report this header, query or form parameter, or JSON key for its name (repeatable).")
    var keptNames: [String] = []

    @Flag(help: "Do not report bodies that cannot be scanned for secrets (as recorded with that option).")
    var keepUnscannableBodies = false

    @Option(
      name: .customLong("openapi"),
      help: ArgumentHelp(
        "Also check every stub and cassette entry against this OpenAPI document (YAML or JSON, 3.0 or 3.1).",
        valueName: "document"))
    var openAPI: String?

    @Option(
      name: .customLong("graphql"),
      help: ArgumentHelp(
        "Also check every GraphQL request of a cassette and its answer against this schema (SDL, or an introspection result in JSON).",
        valueName: "schema"))
    var graphQL: String?

    func validate() throws {
      guard !files.isEmpty else { throw ValidationError("Name at least one manifest or cassette to check.") }
      if openAPI != nil, let reason = Self.openAPINeedsTrait { throw ValidationError(reason) }
      if graphQL != nil, let reason = Self.graphQLNeedsTrait { throw ValidationError(reason) }
    }

    func run() throws {
      var problems: [String] = []
      var troubled = 0
      var warnings: [String] = []
      var unusableDocument = false
      // The document and the schema every file is also checked against, when given: each reports
      // why it cannot be used, and the files are still checked for everything else.
      let document = OpenAPIReference(openAPI, unusable: &unusableDocument)
      let schema = GraphQLReference(graphQL, unusable: &unusableDocument)
      for path in files {
        var redaction = Redaction.default.keeping(names: keptNames)
        if keepUnscannableBodies { redaction = redaction.excluding(.unscannableBodies) }
        var found = Self.check(path, redaction: redaction, warnings: &warnings)
        found += document.problems(in: path) + schema.problems(in: path)
        if !found.isEmpty { troubled += 1 }
        problems += Self.inFileOrder(found)
      }
      // What is served as written but likely a mistake does not fail the check.
      for warning in warnings { Console.out(warning) }
      for problem in problems { Console.out(problem) }
      if !problems.isEmpty {
        Console.error(
          "doppel lint: \(problems.count) \(problems.count == 1 ? "problem" : "problems") in \(troubled) of \(files.count) \(files.count == 1 ? "file" : "files")."
        )
      }
      guard problems.isEmpty, !unusableDocument else { throw ExitCode(1) }
      let warned = warnings.isEmpty ? "" : " (\(warnings.count) \(warnings.count == 1 ? "warning" : "warnings"))"
      Console.out("No problems in \(files.count) \(files.count == 1 ? "file" : "files")\(warned).")
    }

    /// The problems of one file in the order of their positions (`file:line:column: …`), those
    /// without a position first; problems at one position keep their order.
    static func inFileOrder(_ problems: [String]) -> [String] {
      func position(_ problem: String) -> (Int, Int) {
        // The first `:line:column: ` in the line; a path holds no such run before it.
        let parts = problem.split(separator: ":", omittingEmptySubsequences: false)
        for index in parts.indices.dropLast(2) {
          if let line = Int(parts[index]), let column = Int(parts[index + 1]), parts[index + 2].hasPrefix(" ") {
            return (line, column)
          }
        }
        return (0, 0)
      }
      return problems.enumerated().sorted { left, right in
        let (a, b) = (position(left.element), position(right.element))
        return a != b ? a < b : left.offset < right.offset
      }.map(\.element)
    }

    /// The problems of one input, each a line starting with its file (as typed) and position. The
    /// warnings of a manifest that loads (what it serves as written but is likely a mistake, such
    /// as a method no registry knows) are added to `warnings`: the manifest is read once for both.
    static func check(_ path: String, redaction: Redaction = .default, warnings: inout [String]) -> [String] {
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
      // A document or schema `doppel serve` would refuse has that one problem.
      if ServeInputs.isOpenAPIDocument(url) {
        return refusal {
          var documents = ServeInputs.OpenAPIInputs()
          // What the standard does not allow is a problem here, as with `doppel serve --strict`.
          try documents.load(path, strict: true)
        }
      }
      if ServeInputs.isGraphQLSchema(url) {
        return refusal {
          var schemas = ServeInputs.GraphQLInputs()
          // What `doppel serve` serves with a warning, lint reports.
          try schemas.load(path, strict: true)
        }
      }
      let manifest: Manifest
      do {
        manifest = try Manifest.load(contentsOf: url)
      } catch {
        return error.message.split(separator: "\n").map(String.init)
      }
      warnings += manifest.warnings
      // A fixture directory has no manifest file to scan.
      guard manifest.url.pathExtension.lowercased() == "json" else { return [] }
      return ServeInputs.graphQLRefusals(manifest)
        + secrets(in: manifest.url, shown: manifest.url.relativePath, redaction: redaction)
    }

    /// The error `load` throws, as the one problem of an input (naming the file as typed); none
    /// when it loads.
    static func refusal(_ load: () throws -> Void) -> [String] {
      do {
        try load()
        return []
      } catch {
        return "\(error)".split(separator: "\n").map(String.init)
      }
    }

    /// Every stub of a manifest: the base stubs, then each scenario's, in the order written.
    static func stubs(of manifest: Manifest) -> [StubHandle] {
      let base = Backend()
      let stubs = (try? base.addStubsLeavingOutExtensions(from: manifest, scenario: .base)) ?? []
      var all = stubs
      for name in manifest.scenarioNames {
        let layered = (try? Backend().addStubsLeavingOutExtensions(from: manifest, scenario: .named(name))) ?? []
        all += layered.dropFirst(stubs.count)
      }
      return all
    }

    /// The replayable entries of the cassette at `path`, each with where it is written
    /// (`path:line:column`, the path as typed); `nil` for an input that is not a `.har` file or a
    /// cassette that cannot be read (``check(_:redaction:)`` reports why).
    static func cassetteExchanges(_ path: String) -> [(place: String, request: Request, response: Response)]? {
      let url = URL(fileURLWithPath: path)
      guard url.pathExtension.lowercased() == "har", let data = try? WholeFile.read(url),
        let cassette = try? Cassette(data: data, file: path)
      else { return nil }
      return cassette.entries.enumerated().compactMap { index, entry in
        guard let request = try? entry.makeRequest(), let response = try? entry.makeResponse(for: request.method)
        else { return nil }
        let position =
          JSONLocation.position(of: "entries[\(index)]", in: data).map { "\($0.line):\($0.column)" }
          ?? "entries[\(index)]"
        return ("\(path):\(position)", request, response)
      }
    }

    /// The file a stub was declared in, as the user would name it: the manifest as typed (or,
    /// for a directory, its `doppel.json` under the typed directory), or for a fixture directory
    /// the fixture under it.
    static func shown(_ location: CodeLocation, in manifest: Manifest, typed: String) -> String {
      let file = URL(fileURLWithPath: location.filePath).standardizedFileURL.path
      if file == manifest.url.standardizedFileURL.path { return manifest.url.relativePath }
      let directory = URL(fileURLWithPath: typed).standardizedFileURL.path
      if file.hasPrefix(directory + "/") {
        let under = file.dropFirst(directory.count + 1)
        return typed.hasSuffix("/") ? typed + under : typed + "/" + under
      }
      return location.filePath
    }

    /// Secrets left in a JSON file, with where each is.
    private static func secrets(in url: URL, shown: String, redaction: Redaction) -> [String] {
      guard let data = try? WholeFile.read(url),
        let findings = try? CassetteLint.scan(data, file: shown, redaction: redaction)
      else {
        return []
      }
      // A HAR file's entries are under "log", as the reader's messages say.
      let underLog = JSONLocation.position(of: "log", in: data) != nil
      return findings.map { finding in
        let place = JSONLocation.position(of: finding.field, in: data).map { ":\($0.line):\($0.column)" } ?? ""
        let field = underLog && finding.field.hasPrefix("entries[") ? "log." + finding.field : finding.field
        let fix =
          finding.kind == .unscannableBody
          ? "record it again without --keep-unscannable-bodies, or replace it with a made-up body"
          : "redact it, or replace it with a made-up value"
        return "\(shown)\(place): \(field): \(finding.kind) (\(fix))"
      }
    }
  }
#endif
