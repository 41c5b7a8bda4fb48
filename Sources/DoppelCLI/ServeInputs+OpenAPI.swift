#if Server
  import Doppel
  import Foundation

  #if OpenAPI
    import DoppelOpenAPI
  #endif

  extension ServeInputs {
    /// Whether `url` names an OpenAPI document rather than a manifest: a `.yaml` or `.yml` file, or
    /// a `.json` file whose top level has an `openapi` key (or a `swagger` one, which the document's
    /// reader refuses with the fix). A manifest or a cassette has neither key.
    static func isOpenAPIDocument(_ url: URL) -> Bool {
      isDocument(url, extensions: ["yaml", "yml"]) { object in object["openapi"] != nil || object["swagger"] != nil }
    }

    /// Whether `url` names a document of a kind: a file with one of `extensions` (lowercase), or a
    /// `.json` file whose top-level object `holds` what the kind has.
    static func isDocument(
      _ url: URL, extensions: Set<String>, orJSONWhere holds: ([String: Any]) -> Bool
    ) -> Bool {
      let fileExtension = url.pathExtension.lowercased()
      if extensions.contains(fileExtension) { return true }
      guard fileExtension == "json", let data = try? WholeFile.read(url),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      else { return false }
      return holds(object)
    }

    /// The OpenAPI documents among the inputs.
    struct OpenAPIInputs {
      #if OpenAPI
        /// Each document with its path as typed.
        var documents: [(path: String, document: OpenAPIDocument)] = []
      #endif
      /// The documents' ``DoppelOpenAPI/OpenAPIWarning``s, each a line naming the file as typed:
      /// `doppel serve` prints them.
      var warnings: [String] = []

      var isEmpty: Bool {
        #if OpenAPI
          documents.isEmpty
        #else
          true
        #endif
      }

      /// Reads the document at `path`.
      ///
      /// - Throws: ``DoppelError`` naming the file as typed, the line and the fix; without the
      ///   OpenAPI trait, one that says how to build the tool with it.
      mutating func load(_ path: String, strict: Bool = false) throws {
        #if OpenAPI
          let url = URL(fileURLWithPath: path)
          let document: OpenAPIDocument
          do {
            // Named by its file name, as a manifest's stubs are in the request log.
            document = try OpenAPIDocument(contentsOf: url)
          } catch {
            // The message names the file as typed (a file a `$ref` names keeps its own name).
            let file = error.file == url.lastPathComponent ? path : error.file
            throw DoppelError("\(file):\(error.line)\(error.column.map { ":\($0)" } ?? ""): \(error.message)")
          }
          // Named as typed too; a file a `$ref` names, by its path from the document's folder.
          let named = document.warnings.map { warning in
            let file = warning.file == url.lastPathComponent ? path : warning.file
            return "\(file):\(warning.line): warning: " + warning.description.split(separator: " ", maxSplits: 2)[2]
          }
          if strict, !named.isEmpty {
            throw DoppelError(
              (named + [
                "\(path) deviates from OpenAPI \(document.version) in \(named.count) \(named.count == 1 ? "way" : "ways") (above); --strict refuses it. Fix the document, or serve it without --strict."
              ]).joined(separator: "\n"))
          }
          warnings += named
          documents.append((path, document))
        #else
          throw DoppelError(
            "\(path) is an OpenAPI document, and serving one needs the OpenAPI trait, which this doppel was built without. Build it with the trait on: swift build --traits Server,OpenAPI --product doppel-cli (or swift run --traits Server,OpenAPI doppel-cli serve \(path))."
          )
        #endif
      }

      /// The names of the documents' named examples, in order, each once: the scenarios they have.
      var exampleNames: [String] {
        #if OpenAPI
          var names: [String] = []
          for name in documents.flatMap(\.document.exampleNames) where !names.contains(name) { names.append(name) }
          return names
        #else
          []
        #endif
      }

      /// The files the documents' `$ref`s named, besides the documents.
      var referencedFiles: [String] {
        #if OpenAPI
          documents.flatMap { $0.document.fileURLs.dropFirst().map(\.path) }
        #else
          []
        #endif
      }

      /// Adds one stub per operation of every document, answering only requests no other stub
      /// takes, with the named example `scenario` where a document has it; requests that break a
      /// document are refused unless `options` says to answer them.
      func addStubs(to backend: Backend, scenario: String?, options: ServeInputs.DocumentOptions) throws {
        #if OpenAPI
          for (_, document) in documents {
            // The scenario was resolved already (--scenario, else DOPPEL_SCENARIO): never `.automatic`.
            var selection = ScenarioSelection.base
            if let scenario, document.exampleNames.contains(scenario) { selection = .named(scenario) }
            try backend.addStubs(
              from: document, scenario: selection, seed: options.seed ?? 0,
              invalidRequests: options.answersInvalidRequests ? .answered : .refused,
              examples: options.examplesAsIs ? .asIs : .conforming)
          }
        #endif
      }

      /// `api.yaml (OpenAPI 3.1.0, under /v1, scenario "empty")` for each document: the server
      /// paths its operations are served under, and the named example chosen.
      func summaries(scenario: String?) -> [String] {
        #if OpenAPI
          documents.map { path, document in
            let chosen = scenario.flatMap { document.exampleNames.contains($0) ? ", scenario \"\($0)\"" : nil } ?? ""
            let under = document.basePaths.filter { !$0.isEmpty }
            let paths = under.isEmpty ? "" : ", under \(under.joined(separator: " and "))"
            return "\(path) (OpenAPI \(document.version)\(paths)\(chosen))"
          }
        #else
          []
        #endif
      }
    }
  }
#endif
