#if Server && !OpenAPI
  import Doppel
  import Foundation

  // A doppel built without the OpenAPI trait: the names Drift+OpenAPI.swift declares with it.

  extension Drift {
    /// No document without the OpenAPI trait.
    typealias Document = Never

    /// Why `--openapi` cannot be used.
    static let openAPINeedsTrait: String? =
      "This doppel was built without the OpenAPI trait. Build it with `swift build --traits Server,OpenAPI`."

    /// None: `validate()` refused `--openapi` already.
    func document() throws -> Document? { nil }

    /// No document, so nothing to say.
    static func documentDifferences(_ target: Target, sentTo url: URL, live: Answer, settings: Settings)
      -> [DriftDifference]
    { [] }
  }
#endif
