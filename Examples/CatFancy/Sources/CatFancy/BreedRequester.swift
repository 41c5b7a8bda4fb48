import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Fetches the list of breeds from one URL with one `URLSession`, both given by the caller.
///
/// In the app the session is `URLSession.shared`; in tests and in the `catfancy` tool it is a
/// Doppel backend's session, so no request reaches the network:
///
/// ```swift
/// let backend = CatFancyBackend.makeBackend()
/// let requester = BreedRequester(session: backend.session, url: BreedsURL.standard.url)
/// let breeds = try await requester.breeds()
/// ```
public struct BreedRequester: Sendable {
  /// The session requests go through.
  public let session: URLSession
  /// The breeds endpoint.
  public let url: URL

  /// Creates a requester that fetches `url` through `session`.
  public init(session: URLSession, url: URL) {
    self.session = session
    self.url = url
  }

  /// Fetches the breeds and calls `completion` once with them or with why they could not be loaded.
  ///
  /// `completion` is called on the session's delegate queue, not necessarily the main thread.
  public func getBreeds(completion: @escaping @Sendable (Result<[Breed], BreedsError>) -> Void) {
    let task = session.dataTask(with: url) { data, response, error in
      if let error {
        completion(.failure(.network(error)))
        return
      }
      completion(Self.decode(data ?? Data(), response))
    }
    task.resume()
  }

  /// Fetches the breeds.
  ///
  /// - Returns: the breeds, in the server's order; empty when the server lists none.
  /// - Throws: ``BreedsError``: a network failure, a status other than 200, or a body that is not
  ///   a list of breeds.
  public func breeds() async throws(BreedsError) -> [Breed] {
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(from: url)
    } catch {
      throw .network(error)
    }
    return try Self.decode(data, response).get()
  }

  /// Turns an HTTP answer into breeds or a ``BreedsError``.
  static func decode(_ data: Data, _ response: URLResponse?) -> Result<[Breed], BreedsError> {
    guard let http = response as? HTTPURLResponse else {
      return .failure(.network(reason: "the answer is not an HTTP response"))
    }
    guard http.statusCode == 200 else {
      return .failure(.badStatus(http.statusCode))
    }
    do {
      return .success(try JSONDecoder().decode(Breeds.self, from: data).breeds)
    } catch {
      return .failure(.malformed(reason: describe(error)))
    }
  }

  private static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return error.localizedDescription }
    switch error {
    case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
      .valueNotFound(_, let context):
      return context.debugDescription
    @unknown default:
      return "\(error)"
    }
  }
}
