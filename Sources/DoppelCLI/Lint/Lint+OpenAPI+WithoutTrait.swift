#if Server && !OpenAPI
  import Foundation

  // A doppel built without the OpenAPI trait: the names Lint+OpenAPI.swift declares with it.

  extension Lint {
    /// Why `--openapi` cannot be used.
    static let openAPINeedsTrait: String? =
      "This doppel was built without the OpenAPI trait. Build it with `swift build --traits Server,OpenAPI`."

    /// No document: `validate()` refused `--openapi` already.
    struct OpenAPIReference {
      init(_ path: String?, unusable: inout Bool) {}
      func problems(in path: String) -> [String] { [] }
    }
  }
#endif
