#if Server
  import Doppel
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  /// What `doppel serve` serves: manifests, fixture directories, cassettes, OpenAPI documents and
  /// GraphQL schemas, loaded into one backend (later inputs take precedence, and a document or a
  /// schema answers only what no other input does), and how to tell when they change.
  struct ServeInputs {
    /// The paths as given; the current directory when none were.
    let paths: [String]
    /// The scenario to layer over each manifest that has it, and the named example each OpenAPI
    /// document that has it answers with.
    let scenario: String?
    /// How requests are matched to the `.har` inputs (a manifest's cassettes have their own rule).
    var matching: Cassette.Matching = .methodAndURL
    /// Whether the `.har` inputs answer as slowly as they were recorded.
    var replayingTimings = false
    /// How the OpenAPI documents among the inputs are read and served.
    var documentOptions = DocumentOptions()

    /// How `doppel serve` reads and serves OpenAPI documents.
    struct DocumentOptions {
      /// Whether their stubs answer requests that break them instead of refusing them
      /// (`--validate report`).
      var answersInvalidRequests = false
      /// Whether examples that break their own schema are served as written (`--examples as-is`).
      var examplesAsIs = false
      /// The seed of the values generated for answers from documents and schemas, and of the
      /// backend's random answers (`--seed`); `nil` keeps each input's own (a manifest's `seed`,
      /// else 0).
      var seed: UInt64?
    }
    /// Whether a document with a deviation that is otherwise served with a warning (an OpenAPI
    /// operation written as a `$ref`, a GraphQL field defined twice) is refused (`--strict`).
    var strict = false
    /// Where ``scenario`` came from, for the message when no input has it.
    var scenarioSource = "from --scenario"

    /// A loaded backend and a description of what it serves.
    struct Loaded {
      let backend: Backend
      /// `doppel.json (scenario "empty"), breeds.har: 7 stubs`
      let summary: String
      /// The scenarios of every manifest, in order, then the named examples of every OpenAPI
      /// document, each once.
      var scenarioNames: [String] = []
      /// The OpenAPI documents among the inputs.
      var openAPI = OpenAPIInputs()
      /// The GraphQL schemas among the inputs and those the manifests serve.
      var graphQL = GraphQLInputs()
      /// What the manifests serve as written but is likely a mistake (``Manifest/warnings``).
      var manifestWarnings: [String] = []
    }

    /// Loads every input into a new backend.
    ///
    /// - Throws: ``DoppelError`` naming the file and the problem, or when `scenario` is in none of
    ///   the manifests and documents.
    func load() throws -> Loaded {
      var manifests: [(path: String, manifest: Manifest)] = []
      var cassettes: [(path: String, cassette: Cassette)] = []
      var documents = OpenAPIInputs()
      var schemas = GraphQLInputs()
      var order: [Either] = []
      for path in paths {
        let url = URL(fileURLWithPath: path)
        if url.pathExtension.lowercased() == "har" {
          cassettes.append((path, try Cassette.load(from: url)))
          order.append(.cassette(cassettes.count - 1))
        } else if Self.isGraphQLSchema(url) {
          // Like a document, it answers only what no other input does.
          try schemas.load(path, strict: strict)
        } else if Self.isOpenAPIDocument(url) {
          // Its stubs answer only what no other input's do, so it takes no place in the order.
          try documents.load(path, strict: strict)
        } else {
          let manifest = try Manifest.load(contentsOf: url)
          if let refusal = Self.graphQLRefusals(manifest, check: false).first { throw DoppelError(refusal) }
          manifests.append((path, manifest))
          order.append(.manifest(manifests.count - 1))
        }
      }
      if cassettes.isEmpty && (matching != .methodAndURL || replayingTimings) {
        throw DoppelError.usage(
          "The cassette options (such as --method-and-path and --replay-timings) apply to .har inputs, and there are none. Pass the .har files, or give a manifest's cassettes \"matching\" and \"timings\"."
        )
      }
      if let scenario, !documents.exampleNames.contains(scenario) {
        if !documents.isEmpty && !manifests.contains(where: { $0.manifest.scenarioNames.contains(scenario) }) {
          throw Self.unknownScenario(
            scenario, source: scenarioSource, manifests: manifests.flatMap(\.manifest.scenarioNames),
            examples: documents.exampleNames)
        }
        guard let first = manifests.first?.manifest else {
          throw DoppelError.usage(
            "The scenario \(scenario) (\(scenarioSource)) needs a manifest with scenarios; the inputs are cassettes only. Remove --scenario, or add the manifest."
          )
        }
        if !manifests.contains(where: { $0.manifest.scenarioNames.contains(scenario) }) {
          // The manifest's own error names the scenarios it has and the closest one.
          _ = try first.resolveScenario(.named(scenario, source: scenarioSource))
        }
      }
      /// The scenario served of `manifest`: `scenario` when the manifest has it.
      func scenarioName(_ manifest: Manifest) -> String? {
        scenario.flatMap { manifest.scenarioNames.contains($0) ? $0 : nil }
      }
      func selection(_ manifest: Manifest) -> ScenarioSelection {
        scenarioName(manifest).map { .named($0) } ?? .base
      }
      let backend: Backend
      var remaining = order[...]
      if case .manifest(let index)? = order.first {
        // The first manifest also gives its unmatched policy.
        backend = try Backend(
          manifest: manifests[index].manifest, scenario: selection(manifests[index].manifest), issueReporter: .ignore,
          extensions: Self.manifestExtensions)
        remaining = remaining.dropFirst()
      } else {
        backend = Backend(issueReporter: .ignore)
      }
      for input in remaining {
        switch input {
        case .manifest(let index):
          try backend.addStubs(
            from: manifests[index].manifest, scenario: selection(manifests[index].manifest),
            extensions: Self.manifestExtensions)
        case .cassette(let index):
          let path = cassettes[index].path
          let url = URL(fileURLWithPath: path)
          // Each stub is declared where its first entry is written: rec.har:14.
          let lines = (try? Data(contentsOf: url)).map(JSONLocation.entryLines(in:)) ?? []
          try backend.replay(
            cassettes[index].cassette, matching: matching, replayingTimings: replayingTimings,
            name: url.lastPathComponent, path: url.path, entryLines: lines)
        }
      }
      if let seed = documentOptions.seed { backend.seed = seed }
      try documents.addStubs(to: backend, scenario: scenario, options: documentOptions)
      schemas.addStubs(to: backend, seed: documentOptions.seed ?? 0)
      for (_, manifest) in manifests {
        if let entry = manifest.graphQL(for: scenarioName(manifest)) {
          schemas.note(entry)
        }
      }
      var parts: [String] = []
      for input in order {
        switch input {
        case .manifest(let index):
          let (path, manifest) = manifests[index]
          var part = path
          if manifest.url.lastPathComponent != Manifest.defaultFileName && !path.hasSuffix(".json") {
            part += " (fixture directory)"
          } else if let name = scenarioName(manifest) {
            part += " (scenario \"\(name)\")"
          }
          if let graphQL = manifest.graphQL(for: scenarioName(manifest)) {
            part += " (GraphQL \(graphQL.schema.lastPathComponent) at \(graphQL.endpointText))"
          }
          parts.append(part)
        case .cassette(let index):
          parts.append(cassettes[index].path)
        }
      }
      parts += documents.summaries(scenario: scenario)
      parts += schemas.summaries
      let count = backend.stubs.count
      var names: [String] = []
      for name in manifests.flatMap(\.manifest.scenarioNames) + documents.exampleNames where !names.contains(name) {
        names.append(name)
      }
      return Loaded(
        backend: backend, summary: parts.joined(separator: ", ") + ": \(count) \(count == 1 ? "stub" : "stubs")",
        scenarioNames: names, openAPI: documents, graphQL: schemas,
        manifestWarnings: manifests.flatMap(\.manifest.warnings))
    }

    /// A scenario that is neither a manifest's nor a named example of an OpenAPI document.
    private static func unknownScenario(
      _ scenario: String, source: String, manifests: [String], examples: [String]
    ) -> DoppelError {
      func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.map { "\"\($0)\"" }.joined(separator: ", ")
      }
      return DoppelError(
        "There is no scenario \"\(scenario)\" (\(source)) in the inputs: the manifests' scenarios are \(list(manifests)), and the OpenAPI documents' named examples are \(list(examples)). Use one of those, or add an example named \"\(scenario)\" under a response's `examples`."
      )
    }

    private enum Either {
      case manifest(Int)
      case cassette(Int)
    }

    /// A fingerprint of the inputs on disk (every file's path, size and modification date): when it
    /// changes, the inputs are reloaded. Fixture files a manifest names are read on every request,
    /// so an edit to one is served without a reload.
    /// `referencedFiles` are the files the OpenAPI documents' `$ref`s named when last loaded.
    func fingerprint(referencedFiles: [String] = []) -> String {
      var lines: [String] = referencedFiles.map(Self.stamp)
      let manager = FileManager.default
      for path in paths {
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
          lines.append("\(path) missing")
          continue
        }
        guard isDirectory.boolValue else {
          lines.append(Self.stamp(path))
          continue
        }
        let manifest = (path as NSString).appendingPathComponent(Manifest.defaultFileName)
        if manager.fileExists(atPath: manifest) {
          lines.append(Self.stamp(manifest))
        } else {
          // A fixture directory: files added, removed or renamed change what is served.
          let files = (manager.enumerator(atPath: path)?.allObjects as? [String] ?? []).sorted()
          lines.append(path + ":" + files.joined(separator: "|"))
        }
      }
      return lines.joined(separator: "\n")
    }

    private static func stamp(_ path: String) -> String {
      let attributes = try? FileManager.default.attributesOfItem(atPath: path)
      let size = (attributes?[.size] as? NSNumber)?.intValue ?? -1
      let date = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
      return "\(path) \(size) \(date)"
    }
  }

  // MARK: Telling inputs apart

  extension ServeInputs {
    /// Whether `url` names an OpenAPI document rather than a manifest: a `.yaml` or `.yml` file, or
    /// a `.json` file whose top level has an `openapi` key (or a `swagger` one, which the document's
    /// reader refuses with the fix). A manifest or a cassette has neither key.
    static func isOpenAPIDocument(_ url: URL) -> Bool {
      isDocument(url, extensions: ["yaml", "yml"]) { keys, _ in keys.contains("openapi") || keys.contains("swagger") }
    }

    /// Whether `url` names a document of a kind: a file with one of `extensions` (lowercase), or a
    /// `.json` file whose top-level object's keys (and those of the object under its `data` key)
    /// `hold` what the kind has. Only the keys are read, not the values (``TopLevelKeys``): a
    /// manifest of megabytes is not parsed for it.
    static func isDocument(
      _ url: URL, extensions: Set<String>, orJSONWhere hold: (_ keys: Set<String>, _ keysUnderData: Set<String>) -> Bool
    ) -> Bool {
      let fileExtension = url.pathExtension.lowercased()
      if extensions.contains(fileExtension) { return true }
      guard fileExtension == "json", let data = try? WholeFile.read(url),
        let found = TopLevelKeys.read(data, nested: "data")
      else { return false }
      return hold(found.keys, found.nestedKeys)
    }

    /// Whether `url` names a GraphQL schema rather than a manifest: a `.graphql` or `.graphqls`
    /// file, or a `.json` file holding an introspection result (a top-level `__schema`, or one
    /// under `data`). A manifest or a cassette has neither.
    static func isGraphQLSchema(_ url: URL) -> Bool {
      isDocument(url, extensions: ["graphql", "graphqls"]) { keys, keysUnderData in
        keys.contains("__schema") || keysUnderData.contains("__schema")
      }
    }
  }
#endif
