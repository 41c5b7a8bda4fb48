import CatFancyKit
import Foundation
import Testing

/// Every variant of the endpoint, served by `CatFancyBackend.makeBackend()` and fetched through the
/// backend's session, as the screen would show it.
@Suite("The bundled backend")
struct BackendVariantTests {
  @Test("standard: 14 breeds, snake_case fields decoded", arguments: LoadingAPI.allCases)
  func standard(api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend()
    let requester = BreedRequester(session: backend.session, url: BreedsURL.standard.url)

    let breeds = try await api.load(requester).get()

    #expect(breeds.count == 14)
    let first = try #require(breeds.first)
    #expect(first.name == "Abyssinian")
    #expect(first.knownFor == "a ticked coat and boundless curiosity")
    #expect(first.popularity == 7)
    #expect(
      first.photoURL.absoluteString
        == "https://raceconditionsoftware.s3.us-west-1.amazonaws.com/CatFancy/photos/abyssinian.jpg")
    #expect(first.infoURL.absoluteString == "https://en.wikipedia.org/wiki/Abyssinian_cat")
    #expect(first.license == "CC BY-SA 4.0")
    #expect(!first.description.isEmpty)
    #expect(breeds.last?.name == "Sphynx")
    #expect(Set(breeds.map(\.name)).count == 14, "breed names are unique")
  }

  @Test("withMore: the 14 standard breeds and 5 more", arguments: LoadingAPI.allCases)
  func withMore(api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend()
    let standard = try await api.load(BreedRequester(session: backend.session, url: BreedsURL.standard.url)).get()

    let more = try await api.load(BreedRequester(session: backend.session, url: BreedsURL.withMore.url)).get()

    #expect(more.count == 19)
    #expect(Array(more.prefix(14)) == standard)
    #expect(more.last?.name == "Turkish Angora")
  }

  @Test("standard and withMore show their breeds", arguments: LoadingAPI.allCases)
  func breedsState(api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend()

    let state = await api.state(BreedRequester(session: backend.session, url: BreedsURL.withMore.url))

    guard case .breeds(let breeds) = state else {
      Issue.record("expected the breeds, got \(state)")
      return
    }
    #expect(breeds.count == 19)
    #expect(state.lines.first == "Abyssinian: known for a ticked coat and boundless curiosity")
    #expect(state.lines.count == 19)
  }

  @Test("empty: no data", arguments: LoadingAPI.allCases)
  func empty(api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend()
    let requester = BreedRequester(session: backend.session, url: BreedsURL.empty.url)

    let result = await api.load(requester)

    #expect(try result.get() == [])
    #expect(BreedListState(result) == .noData)
    #expect(BreedListState(result).lines == ["No breeds to show."])
  }

  @Test("malformed: a bad response", arguments: LoadingAPI.allCases)
  func malformed(api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend()
    let requester = BreedRequester(session: backend.session, url: BreedsURL.malformed.url)

    let result = await api.load(requester)

    guard case .failure(.malformed(let reason)) = result else {
      Issue.record("expected a malformed-response error, got \(result)")
      return
    }
    #expect(!reason.isEmpty)
    #expect(BreedListState(result) == .badResponse)
    #expect(BreedListState(result).lines == ["The server sent a response CatFancy could not read."])
  }

  @Test("each load makes exactly one request, for the variant's URL", arguments: BreedsURL.allCases)
  func journal(variant: BreedsURL) async throws {
    let backend = try CatFancyBackend.makeBackend()

    _ = await BreedListState.load(with: BreedRequester(session: backend.session, url: variant.url))

    #expect(backend.requests.count == 1)
    let request = try #require(backend.requests.first)
    #expect(request.url == variant.url)
    #expect(request.method == .get)
    #expect(backend.journal.first?.isMatched == true)
  }

  @Test("a URL the backend does not serve fails instead of reaching the network")
  func unknownURL() async throws {
    let backend = try CatFancyBackend.makeBackend()
    backend.issueReporter = .ignore  // the near-miss report is expected here; keep the test log quiet
    let url = try #require(URL(string: "https://raceconditionsoftware.s3.us-west-1.amazonaws.com/CatFancy/dogs.json"))
    let requester = BreedRequester(session: backend.session, url: url)

    let state = await BreedListState.load(with: requester)

    guard case .networkError = state else {
      Issue.record("expected a network error, got \(state)")
      return
    }
    #expect(backend.unmatchedRequests.map(\.url) == [url])
  }
}
