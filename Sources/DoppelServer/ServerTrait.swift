#if !Server
  /// Without the package's `Server` trait this module is empty: the stub server needs SwiftNIO,
  /// which Doppel resolves only for packages that ask for it.
  ///
  /// Depend on Doppel with the trait on to use the server:
  /// `.package(url: "https://github.com/doppel-swift/Doppel.git", from: "0.2.0", traits: ["Server"])`.
  @available(
    *, unavailable,
    message: "DoppelServer needs the Server trait: .package(url: …, from: \"0.2.0\", traits: [\"Server\"])"
  )
  public enum StubServer {}
#endif
