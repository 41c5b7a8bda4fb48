import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What the app needs of something that loads data: `URLSession`'s own `data(for:delegate:)`, so
/// `URLSession` conforms as it is. The app's protocol, not Doppel's: tests conform a small adapter
/// over a backend's `respond(to:)`.
public protocol DataLoading: Sendable {
  /// Loads the data for `request`, as `URLSession.data(for:delegate:)` does.
  func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse)
}

extension URLSession: DataLoading {}

/// Fetches the list of breeds from one URL, through whatever the caller injects: a `URLSession`, a
/// ``DataLoading`` (the app's own protocol, which `URLSession` conforms to as it is), or an async
/// closure.
///
/// In the app it is `URLSession.shared`; in tests and in the `catfancy` tool it is a Doppel
/// backend, so no request reaches the network. The three injection styles, each answered by the
/// same backend and stubs:
///
/// ```swift
/// let backend = try CatFancyBackend.makeBackend(scenario: "withMore")
/// let url = BreedsURL.standard.url
/// BreedRequester(session: backend.session, url: url)     // a URLSession
/// BreedRequester(loader: InMemoryLoader(backend), url: url)  // a protocol, in memory (an adapter in the tests)
/// BreedRequester(url: url, load: backend.handler)        // a closure, in memory
/// ```
public struct BreedRequester: Sendable {
  /// How requests are sent.
  enum Transport: Sendable {
    case session(URLSession)
    case loader(any DataLoading)
    case closure(@Sendable (URLRequest) async throws -> (Data, HTTPURLResponse))
  }

  let transport: Transport
  /// The breeds endpoint.
  public let url: URL

  /// Creates a requester that fetches `url` through `session`.
  public init(session: URLSession, url: URL) {
    transport = .session(session)
    self.url = url
  }

  /// Creates a requester that fetches `url` through `loader`: `URLSession.shared` in the app, an
  /// adapter over a backend's `respond(to:)` in tests.
  public init(loader: any DataLoading, url: URL) {
    transport = .loader(loader)
    self.url = url
  }

  /// Creates a requester that fetches `url` by calling `load`: in tests a backend's `handler`, in
  /// the app a function over `URLSession.shared`:
  ///
  /// ```swift
  /// BreedRequester(url: url) { request in
  ///   let (data, response) = try await URLSession.shared.data(for: request)
  ///   guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
  ///   return (data, http)
  /// }
  /// ```
  public init(url: URL, load: @escaping @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)) {
    transport = .closure(load)
    self.url = url
  }

  /// Fetches the breeds and calls `completion` once with them or with why they could not be loaded.
  ///
  /// With a session, `completion` is called on the session's delegate queue; otherwise on a task.
  /// Neither is necessarily the main thread.
  public func getBreeds(completion: @escaping @Sendable (Result<[Breed], BreedsError>) -> Void) {
    guard case .session(let session) = transport else {
      Task {
        do throws(BreedsError) {
          completion(.success(try await breeds()))
        } catch {
          completion(.failure(error))
        }
      }
      return
    }
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
      switch transport {
      case .session(let session): (data, response) = try await session.data(from: url)
      case .loader(let loader): (data, response) = try await loader.data(for: URLRequest(url: url), delegate: nil)
      case .closure(let load): (data, response) = try await load(URLRequest(url: url))
      }
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
