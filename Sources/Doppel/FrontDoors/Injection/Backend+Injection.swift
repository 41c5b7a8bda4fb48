import Foundation

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

  /// A function from a URL to its body, answered in memory by this backend, for code that takes the
  /// closure shape `(URL) async throws -> Data` (in the app,
  /// `{ url in try await URLSession.shared.data(from: url).0 }`).
  ///
  /// ```swift
  /// let client = BreedClient(loadData: backend.loadData)
  /// ```
  ///
  /// Each call sends a `GET` for the URL, as `URLSession.data(from:)` does, through
  /// ``respond(to:)``: the same stubs, journal and diagnostics as the sessions. Like
  /// `data(from:)`, it returns the body whatever the status: code that cares about the status
  /// takes ``handler`` instead.
  ///
  /// - Throws: what ``respond(to:)`` throws: the stubbed error, or for an unmatched request (by
  ///   default) a `URLError(.resourceUnavailable)` whose description is the near-miss report.
  public var loadData: @Sendable (URL) async throws -> Data {
    { [self] url in try await respond(to: URLRequest(url: url)).0 }
  }
}
