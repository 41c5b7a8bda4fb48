import Doppel
import Foundation

/// The stand-in for the CatFancy server: every ``BreedsURL`` variant answered with its bundled
/// fixture, so the app runs and is tested without the network.
///
/// ```swift
/// let backend = CatFancyBackend.makeBackend()
/// let requester = BreedRequester(session: backend.session, url: BreedsURL.empty.url)
/// await BreedListState.load(with: requester)  // .noData
/// ```
public enum CatFancyBackend {
  /// A new backend that answers `GET` for each variant's URL with that variant's fixture.
  ///
  /// Requests for any other URL fail (Doppel's default), so a wrong URL in the app shows up as a
  /// network error instead of reaching the real server.
  public static func makeBackend() -> Backend {
    let backend = Backend()
    for variant in BreedsURL.allCases {
      backend.stub(.get(variant.url.absoluteString), fixture(for: variant), name: variant.rawValue)
    }
    return backend
  }

  /// The response that serves `variant`'s bundled fixture file (`Fixtures/<fileName>.json`).
  public static func fixture(for variant: BreedsURL) -> Response {
    .resource(variant.fileName, withExtension: "json", subdirectory: "Fixtures", in: .module)
  }
}
