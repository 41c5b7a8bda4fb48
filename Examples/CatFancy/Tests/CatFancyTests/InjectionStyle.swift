import CatFancyKit
import Doppel
import Foundation
import Testing

/// The three ways a `BreedRequester` can be given its transport, each answered by a backend.
enum InjectionStyle: String, CaseIterable, CustomTestStringConvertible {
  /// `BreedRequester(session:url:)` with the backend's `URLSession`.
  case session
  /// `BreedRequester(loader:url:)` with an in-memory `DataLoading` over the backend.
  case loader
  /// `BreedRequester(url:load:)` with the backend's in-memory closure.
  case closure

  var testDescription: String { rawValue }

  /// A requester for `url` answered by `backend` through this style.
  func requester(_ backend: Backend, url: URL = BreedsURL.standard.url) -> BreedRequester {
    switch self {
    case .session: BreedRequester(session: backend.session, url: url)
    case .loader: BreedRequester(loader: InMemoryLoader(backend), url: url)
    case .closure: BreedRequester(url: url, load: backend.handler)
    }
  }

  /// Every style with every loading API, for parameterized tests.
  static var withEveryAPI: [(InjectionStyle, LoadingAPI)] {
    allCases.flatMap { style in LoadingAPI.allCases.map { (style, $0) } }
  }
}

/// The app's `DataLoading`, answered in memory by a backend: the adapter a test target writes.
struct InMemoryLoader: DataLoading {
  let backend: Backend

  init(_ backend: Backend) { self.backend = backend }

  func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse) {
    try await backend.respond(to: request)
  }
}
