#if Server && !GraphQL
  import Doppel
  import Foundation

  // A doppel built without the GraphQL trait: the names GraphQLInputs.swift declares with it,
  // each refusing a schema with how to build a doppel that serves one.

  extension ServeInputs {
    /// No module serves a manifest's other parts without the trait.
    static var manifestExtensions: [ManifestExtension] { [] }

    /// That each of `manifest`'s `graphql` (the base's and each scenario's) cannot be served by
    /// this doppel, with how to build one that can. Empty when the manifest has none.
    static func graphQLRefusals(_ manifest: Manifest, check: Bool = true) -> [String] {
      manifest.graphQLEntries.map {
        "\($0.place): serving a GraphQL schema needs the GraphQL trait, which this doppel was built without. Build it with the trait on: swift build --traits Server,GraphQL --product doppel-cli."
      }
    }

    /// The GraphQL schemas among the inputs: always none without the trait.
    struct GraphQLInputs {
      /// Where a served schema would answer.
      static let path = "/graphql"
      /// No schema, so no warning.
      var warnings: [String] { [] }

      mutating func note(_ entry: ManifestGraphQL) {}

      /// Refuses the schema at `path`.
      ///
      /// - Throws: ``DoppelError`` saying that serving it needs the GraphQL trait, and how to build
      ///   the tool with it.
      mutating func load(_ path: String, strict: Bool = false) throws {
        throw DoppelError(
          "\(path) is a GraphQL schema, and serving one needs the GraphQL trait, which this doppel was built without. Build it with the trait on: swift build --traits Server,GraphQL --product doppel-cli (or swift run --traits Server,GraphQL doppel-cli serve \(path))."
        )
      }

      func addStubs(to backend: Backend, seed: UInt64) {}
      var summaries: [String] { [] }
    }
  }

  extension Serve {
    /// Nothing to check a request against without the trait.
    static func printGraphQLViolations(of backend: Backend) {}
    static func rememberSchemas(_ loaded: ServeInputs.Loaded) {}
  }
#endif
