#if !GraphQL
  /// Without the package's `GraphQL` trait this module is empty: reading and executing GraphQL
  /// schemas needs GraphQLSwift's GraphQL, which Doppel resolves only for packages that ask for it.
  ///
  /// Depend on Doppel with the trait on to serve stubs from a schema and validate against it:
  /// `.package(url: "https://github.com/doppel-swift/Doppel.git", from: "0.2.0", traits: ["GraphQL"])`.
  @available(
    *, unavailable,
    message: "DoppelGraphQL needs the GraphQL trait: .package(url: …, from: \"0.2.0\", traits: [\"GraphQL\"])"
  )
  public enum GraphQLSchemaDocument {}
#endif
