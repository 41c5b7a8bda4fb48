import Doppel

#if canImport(Testing)
  import Testing
#endif

extension Backend {
  /// The backend of the running test: the one the `.doppel` trait made for it.
  ///
  /// ```swift
  /// @Test(.doppel { $0.stub(.get("/breeds.json"), .json(Breed.all)) })
  /// func loadsBreeds() async throws {
  ///   let model = BreedListModel(session: Backend.current.session)
  ///   try await model.load()
  ///   #expect(Backend.current.requests.count == 1)
  /// }
  /// ```
  ///
  /// It is a task-local value: code running in the test's task and in its child tasks sees it,
  /// each test (and each argument of a parameterized test) sees its own, and code outside any scope
  /// sees none. Used outside a scope it records a test failure that says how to get one, and
  /// returns a new, empty backend so the code can go on.
  ///
  /// `URLProtocol` callbacks and stub closures do not need it: a backend's sessions carry the
  /// backend with them.
  public static var current: Backend {
    if let scoped { return scoped }
    reportIssue(Self.noCurrentBackendMessage, at: nil)
    return Backend()
  }

  static let noCurrentBackendMessage = """
    Backend.current was used outside a Doppel scope, so there is no backend for this test. \
    Give the test or its suite one with the .doppel trait, @Test(.doppel { $0.stub(…) }) or \
    @Suite(.doppel { … }); in XCTest, make one with makeBackend() and pass it along. \
    A new, empty backend was returned instead.
    """
}
