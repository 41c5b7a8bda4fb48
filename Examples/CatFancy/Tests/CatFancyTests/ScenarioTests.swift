import CatFancyKit
import Doppel
import Foundation
import Testing

/// The manifest's scenarios put the app's own URL into each state, through every injection style
/// and both loading APIs.
@Suite("Scenarios from the manifest")
struct ScenarioTests {
  @Test("the manifest loads and has one scenario per URL variant, and slow")
  func scenarioNames() throws {
    let manifest = try CatFancyBackend.manifest()
    #expect(manifest.scenarioNames == CatFancyScenario.allCases.map(\.rawValue))
    #expect(manifest.scenarioNames == BreedsURL.allCases.map(\.rawValue) + ["slow"])
    #expect(manifest.description(ofScenario: "withMore") == "19 breeds: more rows than fit on a screen.")
  }

  @Test("standard: 14 breeds", arguments: InjectionStyle.withEveryAPI)
  func standard(style: InjectionStyle, api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend(scenario: "standard")

    let state = await api.state(style.requester(backend))

    guard case .breeds(let breeds) = state else {
      Issue.record("expected the breeds, got \(state)")
      return
    }
    #expect(breeds.count == 14)
    #expect(backend.requests.map(\.url) == [BreedsURL.standard.url])
  }

  @Test("empty: no data", arguments: InjectionStyle.withEveryAPI)
  func empty(style: InjectionStyle, api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend(scenario: "empty")

    #expect(await api.state(style.requester(backend)) == .noData)
  }

  @Test("malformed: a bad response", arguments: InjectionStyle.withEveryAPI)
  func malformed(style: InjectionStyle, api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend(scenario: "malformed")

    #expect(await api.state(style.requester(backend)) == .badResponse)
  }

  @Test("withMore: 19 breeds, more than a screen", arguments: InjectionStyle.withEveryAPI)
  func withMore(style: InjectionStyle, api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend(scenario: "withMore")

    let state = await api.state(style.requester(backend))

    #expect(state.lines.count == 19)
    #expect(state.lines.last == "Turkish Angora: known for a silky white coat and a plumed tail")
  }

  @Test("DOPPEL_SCENARIO and -DoppelScenario choose the scenario, as for a running app")
  func fromTheEnvironment() async throws {
    let fromVariable = try CatFancyBackend.makeBackend(
      scenario: .automatic(environment: ["DOPPEL_SCENARIO": "empty"], arguments: ["CatFancy"]))
    #expect(await BreedListState.load(with: InjectionStyle.loader.requester(fromVariable)) == .noData)

    let fromArgument = try CatFancyBackend.makeBackend(
      scenario: .automatic(environment: [:], arguments: ["CatFancy", "-DoppelScenario", "malformed"]))
    #expect(await BreedListState.load(with: InjectionStyle.closure.requester(fromArgument)) == .badResponse)
  }

  @Test("an unknown scenario names the valid ones")
  func unknownScenario() throws {
    let error = #expect(throws: DoppelError.self) { try CatFancyBackend.makeBackend(scenario: "withmore") }
    #expect(
      error?.message.hasSuffix(
        #"doppel.json:26:3: scenarios: there is no scenario "withmore" (chosen in code). Did you mean "withMore"? The scenarios are: standard, empty, malformed, withMore, slow."#
      ) == true)
  }

  @Test("offline, through every injection style", arguments: InjectionStyle.withEveryAPI)
  func offline(style: InjectionStyle, api: LoadingAPI) async throws {
    let backend = try CatFancyBackend.makeBackend()
    backend.stub(.get(BreedsURL.standard.url.absoluteString), .error(.notConnectedToInternet))

    #expect(await api.state(style.requester(backend)) == .networkError("the device is offline"))
  }

  @Test("an unknown URL fails the same way through every injection style", arguments: InjectionStyle.allCases)
  func unknownURL(style: InjectionStyle) async throws {
    let backend = try CatFancyBackend.makeBackend()
    backend.issueReporter = .ignore  // the near-miss report is expected here
    let url = try #require(URL(string: "https://raceconditionsoftware.s3.us-west-1.amazonaws.com/CatFancy/dogs.json"))

    let state = await BreedListState.load(with: style.requester(backend, url: url))

    guard case .networkError(let message) = state else {
      Issue.record("expected a network error, got \(state)")
      return
    }
    #expect(message.hasPrefix("No stub matched GET \(url.absoluteString)\nClosest stubs:\n  1. doppel.json:"))
    #expect(backend.unmatchedRequests.map(\.url) == [url])
  }
}
