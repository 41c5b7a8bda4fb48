import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The breeds screen's model: what the screen shows, and the load that changes it.
///
/// It starts ``BreedListState/loading`` (the screen shows a spinner), and ``load()`` moves it to the
/// breeds, no data, a bad response or a network error:
///
/// ```swift
/// let model = BreedListModel(session: backend.session)
/// await model.load()
/// model.state  // .breeds([…]), .noData, .badResponse or .networkError("…")
/// ```
///
/// It can be used from any task: the state is behind a lock.
public final class BreedListModel: @unchecked Sendable {
  // @unchecked Sendable: the only mutable state, `current`, is read and written under `lock`.
  private let lock = NSLock()
  private var current = BreedListState.loading

  /// What the screen shows now.
  public var state: BreedListState {
    lock.withLock { current }
  }

  /// How the breeds are fetched.
  public let requester: BreedRequester

  /// Creates a model that fetches the breeds with `requester`.
  public init(requester: BreedRequester) {
    self.requester = requester
  }

  /// Creates a model that fetches the breeds from `url` through `session`: `URLSession.shared` in
  /// the app, a backend's session in tests.
  public convenience init(session: URLSession, url: URL = BreedsURL.standard.url) {
    self.init(requester: BreedRequester(session: session, url: url))
  }

  /// The breeds on screen: empty unless the state is ``BreedListState/breeds(_:)``.
  public var breeds: [Breed] {
    guard case .breeds(let breeds) = state else { return [] }
    return breeds
  }

  /// Fetches the breeds: the state is ``BreedListState/loading`` until the answer comes, then what
  /// the answer shows. It never throws: a failure is a state of the screen.
  public func load() async {
    lock.withLock { current = .loading }
    let state = await BreedListState.load(with: requester)
    lock.withLock { current = state }
  }
}
