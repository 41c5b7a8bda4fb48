#if Server && !GraphQL
  import Foundation

  // A doppel built without the GraphQL trait: the names Lint+GraphQL.swift declares with it.

  extension Lint {
    /// Why `--graphql` cannot be used.
    static let graphQLNeedsTrait: String? =
      "This doppel was built without the GraphQL trait. Build it with `swift build --traits Server,GraphQL`."

    /// No schema: `validate()` refused `--graphql` already.
    struct GraphQLReference {
      init(_ path: String?, unusable: inout Bool) {}
      func problems(in path: String) -> [String] { [] }
    }
  }
#endif
