import CatFancyKit
import Doppel
import Foundation
import Testing

/// Failures the fixtures cannot show: no network, and an error status.
@Suite("Failures")
struct FailureTests {
  let url = BreedsURL.standard.url

  @Test("offline: a network error, shown as such", arguments: LoadingAPI.allCases)
  func offline(api: LoadingAPI) async {
    let backend = Backend()
    backend.stub(.get(url.absoluteString), .error(.notConnectedToInternet))
    let requester = BreedRequester(session: backend.session, url: url)

    let result = await api.load(requester)

    #expect(throws: BreedsError.network(reason: "the device is offline")) { try result.get() }
    let state = BreedListState(result)
    #expect(state == .networkError("the device is offline"))
    #expect(state.lines == ["CatFancy could not load the breeds: the device is offline."])
    #expect(backend.requests.count == 1)
  }

  @Test("a timeout has its own reason", arguments: LoadingAPI.allCases)
  func timeout(api: LoadingAPI) async {
    let backend = Backend()
    backend.stub(.get(url.absoluteString), .error(.timedOut))

    let result = await api.load(BreedRequester(session: backend.session, url: url))

    #expect(BreedListState(result) == .networkError("the request timed out"))
  }

  @Test("status 500: a bad-status error", arguments: LoadingAPI.allCases)
  func serverError(api: LoadingAPI) async {
    let backend = Backend()
    backend.stub(.get(url.absoluteString), .status(500))
    let requester = BreedRequester(session: backend.session, url: url)

    let result = await api.load(requester)

    #expect(throws: BreedsError.badStatus(500)) { try result.get() }
    #expect(
      BreedListState(result).lines == ["CatFancy could not load the breeds: the server answered with HTTP status 500."])
  }

  @Test("status 404 with a valid body is still a bad status")
  func notFoundWithBody() async {
    let backend = Backend()
    backend.stub(.get(url.absoluteString), .json(Breeds(breeds: []), status: 404))
    let requester = BreedRequester(session: backend.session, url: url)

    await #expect(throws: BreedsError.badStatus(404)) { try await requester.breeds() }
  }

  @Test("a body of the wrong shape is malformed")
  func wrongShape() async {
    let backend = Backend()
    backend.stub(.get(url.absoluteString), .json(raw: #"[{"name": "Abyssinian"}]"#))
    let requester = BreedRequester(session: backend.session, url: url)

    let state = await BreedListState.load(with: requester)

    #expect(state == .badResponse)
  }

  @Test("the live failure message names the URL and the reason")
  func liveFailureMessage() {
    #expect(
      CatFancyCommand.liveFailureMessage(url: url, error: .network(reason: "the device is offline"))
        == "could not reach https://raceconditionsoftware.s3.us-west-1.amazonaws.com/CatFancy/breeds.json: the device is offline; run without --live to use the bundled fixtures"
    )
    #expect(
      CatFancyCommand.liveFailureMessage(url: url, error: .badStatus(403))
        == "could not reach https://raceconditionsoftware.s3.us-west-1.amazonaws.com/CatFancy/breeds.json: the server answered with HTTP status 403; run without --live to use the bundled fixtures"
    )
  }
}
