// The CatFancy breeds screen, as text. See `catfancy --help`.
//
// Every answer comes from the manifest Fixtures/doppel.json: `--scenario NAME` puts the app into
// that scenario, as DOPPEL_SCENARIO=NAME or `-DoppelScenario NAME` would put a running app.
//
// Nothing here creates a URLSession before the command is known: `--shared` must register
// Doppel's process-wide interception before the first URLSession exists (a Linux requirement).

import CatFancy
import Doppel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

func printError(_ message: String) {
  FileHandle.standardError.write(Data("catfancy: \(message)\n".utf8))
}

func show(_ state: BreedListState, heading: String) {
  print("== \(heading) ==")
  for line in state.lines { print(line) }
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
  // The session injection style: the requester is handed the backend's session.
  let variants = if case .scenario(let variant) = command { [variant] } else { BreedsURL.allCases }
  for (index, variant) in variants.enumerated() {
    if index > 0 { print() }
    let backend = makeBackend(scenario: .named(variant.rawValue))
    let requester = BreedRequester(session: backend.session, url: url)
    show(await BreedListState.load(with: requester), heading: "\(variant.rawValue): \(url.absoluteString)")
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
  let requester = BreedRequester(session: URLSession.shared, url: url)
  show(
    await BreedListState.load(with: requester),
    heading: "\(scenario ?? "standard") via URLSession.shared: \(url.absoluteString)")
  backend.stopInterceptingProcessWide()

case .live:
  let requester = BreedRequester(session: URLSession.shared, url: url)
  do throws(BreedsError) {
    show(.init(.success(try await requester.breeds())), heading: "standard, live: \(url.absoluteString)")
  } catch {
    printError(CatFancyCommand.liveFailureMessage(url: url, error: error))
    exit(1)
  }
}
