#if Server && OpenAPI
  import ArgumentParser
  import Doppel
  import DoppelOpenAPI
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  // The OpenAPI documents `doppel serve` and `doppel lint` read, with the OpenAPI trait. Without
  // it, OpenAPIInputs+WithoutTrait.swift declares the same names, each saying how to build a
  // doppel that can.

  extension ServeInputs {
    /// The OpenAPI documents among the inputs.
    struct OpenAPIInputs {
      /// Each document with its path as typed.
      var documents: [(path: String, document: OpenAPIDocument)] = []
      /// The documents' ``DoppelOpenAPI/OpenAPIWarning``s, each a line naming the file as typed:
      /// `doppel serve` prints them.
      var warnings: [String] = []

      var isEmpty: Bool { documents.isEmpty }

      /// Reads the document at `path`.
      ///
      /// - Throws: ``DoppelError`` naming the file as typed, the line and the fix.
      mutating func load(_ path: String, strict: Bool = false) throws {
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
      }

      /// The names of the documents' named examples, in order, each once: the scenarios they have.
      var exampleNames: [String] {
        var names: [String] = []
        for name in documents.flatMap(\.document.exampleNames) where !names.contains(name) { names.append(name) }
        return names
      }

      /// The files the documents' `$ref`s named, besides the documents.
      var referencedFiles: [String] {
        documents.flatMap { $0.document.fileURLs.dropFirst().map(\.path) }
      }

      /// Adds one stub per operation of every document, answering only requests no other stub
      /// takes, with the named example `scenario` where a document has it; requests that break a
      /// document are refused unless `options` says to answer them.
      func addStubs(to backend: Backend, scenario: String?, options: ServeInputs.DocumentOptions) throws {
        for (_, document) in documents {
          // The scenario was resolved already (--scenario, else DOPPEL_SCENARIO): never `.automatic`.
          var selection = ScenarioSelection.base
          if let scenario, document.exampleNames.contains(scenario) { selection = .named(scenario) }
          try backend.addStubs(
            from: document, scenario: selection, seed: options.seed ?? 0,
            invalidRequests: options.answersInvalidRequests ? .answered : .refused,
            examples: options.examplesAsIs ? .asIs : .conforming)
        }
      }

      /// `api.yaml (OpenAPI 3.1.0, under /v1, scenario "empty")` for each document: the server
      /// paths its operations are served under, and the named example chosen.
      func summaries(scenario: String?) -> [String] {
        documents.map { path, document in
          let chosen = scenario.flatMap { document.exampleNames.contains($0) ? ", scenario \"\($0)\"" : nil } ?? ""
          let under = document.basePaths.filter { !$0.isEmpty }
          let paths = under.isEmpty ? "" : ", under \(under.joined(separator: " and "))"
          return "\(path) (OpenAPI \(document.version)\(paths)\(chosen))"
        }
      }
    }
  }

  extension Serve {
    /// With the trait, `--validate` needs nothing more.
    static let validationNeedsTrait: String? = nil

    /// Keeps the documents as loaded now: what `--validate` checks against.
    static func rememberDocuments(_ loaded: ServeInputs.Loaded) {
      validatedDocuments.withLock { $0 = loaded.openAPI.documents.map(\.document) }
    }

    /// With `--validate report` (or `refuse`), prints each violation of the documents in the
    /// request log from now on.
    func startValidating(_ loaded: ServeInputs.Loaded, backend: Backend) throws {
      guard validatesAgainstDocuments else { return }
      guard !loaded.openAPI.isEmpty else {
        throw ValidationError(
          "--validate checks against the OpenAPI documents among the inputs, and there are none. Pass the document (such as api.yaml) beside the other inputs, or drop --validate."
        )
      }
      Self.printViolations(of: backend)
    }
  }
#endif
