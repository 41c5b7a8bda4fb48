import CatFancyKit
import Doppel
import Foundation
import Testing

/// The screen's loading state: the `slow` scenario holds the answer back on the backend's clock, so
/// the model shows "Loading…" until the clock moves, then the list. Time is a `ManualClock`: the
/// test moves it, nothing sleeps.
@Suite("Loading")
struct LoadingStateTests {
  @Test("slow: Loading… while the answer is held back, then the list", arguments: InjectionStyle.allCases)
  func slow(style: InjectionStyle) async throws {
    let clock = ManualClock()
    let backend = try CatFancyBackend.makeBackend(scenario: "slow", clock: clock)
    let model = BreedListModel(requester: style.requester(backend))

    let load = Task { await model.load() }
    await clock.waitForSleepers()  // the request is in flight, waiting on the clock

    #expect(model.state == .loading)
    #expect(model.state.lines == ["Loading…"])
    #expect(model.breeds.isEmpty)
    #expect(backend.requests.map(\.url) == [BreedsURL.standard.url])

    clock.advance(by: CatFancyScenario.slowDelay - .milliseconds(1))  // not yet
    #expect(clock.sleeperCount == 1)
    #expect(model.state == .loading)

    clock.advance(by: .milliseconds(1))  // 1.5 s, the manifest's delay
    await load.value

    #expect(model.breeds.count == 14)
    #expect(model.state.lines.first == "Abyssinian: known for a ticked coat and boundless curiosity")
  }

  @Test("a model starts loading, and a failed load is a state, not a thrown error")
  func states() async throws {
    let backend = try CatFancyBackend.makeBackend(scenario: "malformed")
    let model = BreedListModel(session: backend.session)
    #expect(model.state == .loading)

    await model.load()

    #expect(model.state == .badResponse)
    #expect(model.breeds.isEmpty)
  }

  @Test("loading again goes back through Loading…")
  func reload() async throws {
    let clock = ManualClock()
    let backend = try CatFancyBackend.makeBackend(scenario: "slow", clock: clock)
    let model = BreedListModel(session: backend.session)
    let first = Task { await model.load() }
    await clock.waitForSleepers()
    clock.advance(by: CatFancyScenario.slowDelay)
    await first.value
    #expect(model.breeds.count == 14)

    let second = Task { await model.load() }
    await clock.waitForSleepers()

    #expect(model.state == .loading)
    clock.advance(by: CatFancyScenario.slowDelay)
    await second.value
    #expect(model.breeds.count == 14)
    #expect(backend.requests.count == 2)
  }
}
