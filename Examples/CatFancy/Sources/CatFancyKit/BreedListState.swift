/// What the breeds screen shows.
public enum BreedListState: Equatable, Sendable {
  /// The breeds are being fetched; the screen shows a spinner.
  case loading
  /// The breeds, in the server's order (never empty).
  case breeds([Breed])
  /// The server listed no breeds.
  case noData
  /// The server answered, but with something that is not a list of breeds.
  case badResponse
  /// The breeds could not be fetched; the message says why.
  case networkError(String)

  /// The state for the outcome of a load.
  ///
  /// An empty list is ``noData``, an undecodable body ``badResponse``, and a transport failure or a
  /// status other than 200 ``networkError(_:)``, since trying again later may help.
  public init(_ result: Result<[Breed], BreedsError>) {
    switch result {
    case .success(let breeds) where breeds.isEmpty: self = .noData
    case .success(let breeds): self = .breeds(breeds)
    case .failure(.malformed): self = .badResponse
    case .failure(.network(let reason)): self = .networkError(reason)
    case .failure(.badStatus(let status)): self = .networkError("the server answered with HTTP status \(status)")
    }
  }

  /// Loads the breeds with `requester` and returns what the screen shows.
  public static func load(with requester: BreedRequester) async -> BreedListState {
    do throws(BreedsError) {
      return BreedListState(.success(try await requester.breeds()))
    } catch {
      return BreedListState(.failure(error))
    }
  }

  /// The screen as text, one line per row: each breed with what it is known for, or one line
  /// saying that the breeds are loading or explaining why there is nothing to show.
  ///
  /// ```
  /// Abyssinian: known for a ticked coat and boundless curiosity
  /// ```
  public var lines: [String] {
    switch self {
    case .loading: ["Loading…"]
    case .breeds(let breeds): breeds.map { "\($0.name): known for \($0.knownFor)" }
    case .noData: ["No breeds to show."]
    case .badResponse: ["The server sent a response CatFancy could not read."]
    case .networkError(let message): ["CatFancy could not load the breeds: \(message)."]
    }
  }
}
