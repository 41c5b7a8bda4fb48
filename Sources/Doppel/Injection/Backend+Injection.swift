import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Backend {
  /// An ``HTTPDataLoading`` answered in memory by this backend, for code that takes a protocol
  /// instead of a `URLSession`.
  ///
  /// ```swift
  /// let client = BreedClient(loader: backend.dataLoader)
  /// ```
  public var dataLoader: BackendDataLoader { BackendDataLoader(backend: self) }

  /// A function answered in memory by this backend, for code that takes a closure instead of a
  /// session. It is ``respond(to:)``: the same stubs, journal and diagnostics as the sessions.
  ///
  /// ```swift
  /// let client = BreedClient(load: backend.handler)
  /// ```
  public var handler: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse) {
    { [self] request in try await respond(to: request) }
  }
}
