#if !OpenAPI
  /// Without the package's `OpenAPI` trait this module is empty: reading OpenAPI documents needs
  /// OpenAPIKit and Yams, which Doppel resolves only for packages that ask for them.
  ///
  /// Depend on Doppel with the trait on to serve stubs from a document and validate against it:
  /// `.package(url: "https://github.com/doppel-swift/Doppel.git", from: "0.2.0", traits: ["OpenAPI"])`.
  @available(
    *, unavailable,
    message: "DoppelOpenAPI needs the OpenAPI trait: .package(url: …, from: \"0.2.0\", traits: [\"OpenAPI\"])"
  )
  public enum OpenAPIDocument {}
#endif
