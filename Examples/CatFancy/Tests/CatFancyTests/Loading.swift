import CatFancyKit
import Foundation
import Testing

/// The two ways the app loads breeds, so each test can run through both.
enum LoadingAPI: String, CaseIterable, CustomTestStringConvertible {
  case completionHandler
  case async

  var testDescription: String { rawValue }

  /// Loads with `requester` through this API.
  func load(_ requester: BreedRequester) async -> Result<[Breed], BreedsError> {
    switch self {
    case .completionHandler:
      return await withCheckedContinuation { continuation in
        requester.getBreeds { continuation.resume(returning: $0) }
      }
    case .async:
      do throws(BreedsError) {
        return .success(try await requester.breeds())
      } catch {
        return .failure(error)
      }
    }
  }

  /// What the screen shows after loading with `requester` through this API.
  func state(_ requester: BreedRequester) async -> BreedListState {
    BreedListState(await load(requester))
  }
}
