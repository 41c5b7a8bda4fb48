import Foundation

/// Something that loads the data for a request: `URLSession`, or a backend's in-memory
/// ``BackendDataLoader``.
///
/// Code that takes an `any HTTPDataLoading` instead of a `URLSession` runs against the real
/// network in the app and against a ``Backend`` in tests, without `URLSession` in between:
///
/// ```swift
/// struct BreedClient {
///   let loader: any HTTPDataLoading
///   func breeds() async throws -> [Breed] {
///     let (data, _) = try await loader.data(for: URLRequest(url: breedsURL))
///     return try JSONDecoder().decode(Breeds.self, from: data).breeds
///   }
/// }
///
/// BreedClient(loader: URLSession.shared)   // the app
/// BreedClient(loader: backend.dataLoader)  // a test
/// ```
///
/// The requirement is `URLSession`'s own `data(for:delegate:)`, so `URLSession` conforms as it is.
public protocol HTTPDataLoading: Sendable {
  /// Loads the data for `request`, as `URLSession.data(for:delegate:)` does.
  ///
  /// - Parameters:
  ///   - request: the request.
  ///   - delegate: a task delegate, for a `URLSession`; other loaders may ignore it.
  /// - Returns: the body and the response (an `HTTPURLResponse` for HTTP).
  func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse)
}

extension HTTPDataLoading {
  /// Loads the data for `request` without a task delegate.
  public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
    try await data(for: request, delegate: nil)
  }
}

extension URLSession: HTTPDataLoading {}
