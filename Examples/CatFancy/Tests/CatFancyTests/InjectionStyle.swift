import CatFancyKit
import Doppel
import Foundation
import Testing

/// The three ways a `BreedRequester` can be given its transport, each answered by a backend.
enum InjectionStyle: String, CaseIterable, CustomTestStringConvertible {
  /// `BreedRequester(session:url:)` with the backend's `URLSession`.
  case session
  /// `BreedRequester(loader:url:)` with the backend's in-memory `HTTPDataLoading`.
  case dataLoader
  /// `BreedRequester(url:load:)` with the backend's in-memory closure.
  case closure

  var testDescription: String { rawValue }

  /// A requester for `url` answered by `backend` through this style.
  func requester(_ backend: Backend, url: URL = BreedsURL.standard.url) -> BreedRequester {
    switch self {
    case .session: BreedRequester(session: backend.session, url: url)
    case .dataLoader: BreedRequester(loader: backend.dataLoader, url: url)
    case .closure: BreedRequester(url: url, load: backend.handler)
    }
  }

  /// Every style with every loading API, for parameterized tests.
  static var withEveryAPI: [(InjectionStyle, LoadingAPI)] {
    allCases.flatMap { style in LoadingAPI.allCases.map { (style, $0) } }
  }
}
