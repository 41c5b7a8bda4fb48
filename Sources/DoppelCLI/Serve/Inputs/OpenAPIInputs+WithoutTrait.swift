#if Server && !OpenAPI
  import Doppel
  import Foundation

  // A doppel built without the OpenAPI trait: the names OpenAPIInputs.swift declares with it,
  // each refusing a document with how to build a doppel that reads one.

  extension ServeInputs {
    /// The OpenAPI documents among the inputs: always none without the trait.
    struct OpenAPIInputs {
      /// No document, so no warning.
      var warnings: [String] { [] }
      var isEmpty: Bool { true }

      /// Refuses the document at `path`.
      ///
      /// - Throws: ``DoppelError`` saying that serving it needs the OpenAPI trait, and how to build
      ///   the tool with it.
      mutating func load(_ path: String, strict: Bool = false) throws {
        throw DoppelError(
          "\(path) is an OpenAPI document, and serving one needs the OpenAPI trait, which this doppel was built without. Build it with the trait on: swift build --traits Server,OpenAPI --product doppel-cli (or swift run --traits Server,OpenAPI doppel-cli serve \(path))."
        )
      }

      var exampleNames: [String] { [] }
      var referencedFiles: [String] { [] }
      func addStubs(to backend: Backend, scenario: String?, options: ServeInputs.DocumentOptions) throws {}
      func summaries(scenario: String?) -> [String] { [] }
    }
  }

  extension Serve {
    /// Why `--validate` cannot be used: it checks against OpenAPI documents.
    static let validationNeedsTrait: String? =
      "--validate checks against OpenAPI documents, and this doppel was built without the OpenAPI trait. Build it with the trait on: swift build --traits Server,OpenAPI --product doppel-cli."

    static func rememberDocuments(_ loaded: ServeInputs.Loaded) {}

    /// Nothing to start: `validate()` refused `--validate` already.
    func startValidating(_ loaded: ServeInputs.Loaded, backend: Backend) throws {}
  }
#endif
