import Doppel
import Foundation

/// The stand-in for the CatFancy server, described by the manifest `Fixtures/doppel.json`: every
/// ``BreedsURL`` variant answered with its bundled fixture, and one scenario per variant that makes
/// the app's own URL (``BreedsURL/standard``) answer as that variant.
///
/// ```swift
/// let backend = try CatFancyBackend.makeBackend(scenario: "empty")
/// let requester = BreedRequester(session: backend.session, url: BreedsURL.standard.url)
/// await BreedListState.load(with: requester)  // .noData
/// ```
///
/// The same manifest serves a running app: launched with `DOPPEL_SCENARIO=empty` or with the
/// argument `-DoppelScenario empty`, ``makeBackend(scenario:)`` with `.automatic` picks it up.
public enum CatFancyBackend {
  /// The bundled manifest.
  ///
  /// - Throws: `DoppelError` if the manifest is missing from the bundle or invalid (a test
  ///   catches that before anyone runs the app).
  public static func manifest() throws -> Manifest {
    try Manifest.load(named: "doppel", in: .module, subdirectory: "Fixtures")
  }

  /// A new backend serving the manifest's base stubs and, over them, `scenario`'s.
  ///
  /// Requests for any other URL fail (Doppel's default), so a wrong URL in the app shows up as a
  /// network error instead of reaching the real server.
  ///
  /// - Parameters:
  ///   - scenario: the scenario; by default none, so each variant is served at its own URL.
  ///   - clock: the clock the `slow` scenario's delay runs on; by default the continuous clock. A
  ///     test passes a `ManualClock` and moves time itself.
  /// - Throws: `DoppelError` for an unknown scenario, naming the valid ones.
  public static func makeBackend(
    scenario: ScenarioSelection = .base, clock: any Clock<Duration> = ContinuousClock()
  ) throws -> Backend {
    try Backend(manifest: manifest(), scenario: scenario, clock: clock)
  }
}
