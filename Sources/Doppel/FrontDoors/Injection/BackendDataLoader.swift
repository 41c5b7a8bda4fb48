import Foundation

/// A backend's in-memory door for code that takes an ``HTTPDataLoading``: requests go straight to
/// ``Backend/respond(to:)`` (the same stubs, journal, verification and diagnostics as the
/// backend's sessions), without `URLSession`, so no task-type limits apply and it is much faster.
///
/// Get one from ``Backend/dataLoader``.
public struct BackendDataLoader: HTTPDataLoading {
  /// The backend that answers.
  public let backend: Backend

  /// A loader answered by `backend`.
  public init(backend: Backend) { self.backend = backend }

  /// Answers `request` with the backend. The task delegate is not called: there is no task.
  ///
  /// - Throws: what ``Backend/respond(to:)`` throws: the stubbed error, or for an unmatched
  ///   request (by default) a `URLError(.resourceUnavailable)` whose description is the near-miss
  ///   report.
  public func data(
    for request: URLRequest, delegate: (any URLSessionTaskDelegate)?
  ) async throws -> (Data, URLResponse) {
    let (data, response) = try await backend.respond(to: request)
    return (data, response)
  }
}
