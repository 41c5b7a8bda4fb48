// The CatFancy breeds screen, as text. See `catfancy --help`.
//
// Every answer comes from the manifest Fixtures/doppel.json, never from the network (except with
// `--live`): `--scenario NAME` puts the app into that scenario, as DOPPEL_SCENARIO=NAME or
// `-DoppelScenario NAME` would put a running app. `--scenario slow` shows the loading state for
// 1.5 seconds before the list.
//
// Nothing here creates a URLSession before the command is known: `--shared` must register
// Doppel's process-wide interception before the first URLSession exists (a Linux requirement).

import CatFancyKit
import Doppel
import Foundation

func printError(_ message: String) {
  FileHandle.standardError.write(Data("catfancy: \(message)\n".utf8))
}

/// Shows the screen as `model` goes through its states: "Loading…" while the request is in flight,
/// then what the answer shows.
func showLoading(_ model: BreedListModel, heading: String) async {
  print("== \(heading) ==")
  for line in model.state.lines { print(line) }
  await model.load()
  for line in model.state.lines { print(line) }
}

/// A backend for `scenario` from the bundled manifest; exits with the manifest's error if it fails.
func makeBackend(scenario: ScenarioSelection) -> Backend {
  do {
    return try CatFancyBackend.makeBackend(scenario: scenario)
  } catch {
    printError("\(error)")
    exit(1)
  }
}

let command: CatFancyCommand
do {
  command = try CatFancyCommand.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  printError(error.message)
  exit(2)
}

// The app asks for one URL; the scenario decides what it gets.
let url = BreedsURL.standard.url

switch command {
case .help:
  print(CatFancyCommand.usage)

case .all, .scenario:
  // The session injection style: the model is handed the backend's session.
  print(CatFancyCommand.fixturesNote(url: url))
  let scenarios = if case .scenario(let scenario) = command { [scenario] } else { CatFancyScenario.allCases }
  for scenario in scenarios {
    print()
    let backend = makeBackend(scenario: .named(scenario.rawValue))
    await showLoading(BreedListModel(session: backend.session, url: url), heading: scenario.rawValue)
  }

case .shared:
  // For code that uses URLSession.shared and cannot be given a session: route the shared session
  // to the backend (at any point: sessions made earlier do not matter). The scenario comes from
  // the environment (DOPPEL_SCENARIO) or the launch argument (-DoppelScenario), as in an app.
  let selection = ScenarioSelection.automatic
  let backend = makeBackend(scenario: selection)
  let scenario = try? CatFancyBackend.manifest().resolveScenario(selection)
  do {
    try backend.interceptProcessWide()
  } catch {
    printError("\(error)")
    exit(1)
  }
  print(CatFancyCommand.fixturesNote(url: url))
  print()
  await showLoading(
    BreedListModel(session: URLSession.shared, url: url),
    heading: "\(scenario ?? "standard"), through URLSession.shared")
  backend.stopInterceptingProcessWide()

case .live:
  let requester = BreedRequester(session: URLSession.shared, url: url)
  do throws(BreedsError) {
    let state = BreedListState(.success(try await requester.breeds()))
    print("== standard, fetched live from \(url.absoluteString) ==")
    for line in state.lines { print(line) }
  } catch {
    printError(CatFancyCommand.liveFailureMessage(url: url, error: error))
    exit(1)
  }
}
