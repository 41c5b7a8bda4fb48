// The CatFancy breeds screen, as text. See `catfancy --help`.
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

let command: CatFancyCommand
do {
  command = try CatFancyCommand.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  printError(error.message)
  exit(2)
}

switch command {
case .help:
  print(CatFancyCommand.usage)

case .all, .scenario:
  // The injection style: the requester is handed the backend's session.
  let backend = CatFancyBackend.makeBackend()
  let variants = if case .scenario(let variant) = command { [variant] } else { BreedsURL.allCases }
  for (index, variant) in variants.enumerated() {
    if index > 0 { print() }
    let requester = BreedRequester(session: backend.session, url: variant.url)
    show(await BreedListState.load(with: requester), heading: "\(variant.rawValue): \(variant.url.absoluteString)")
  }

case .shared:
  // For code that uses URLSession.shared and cannot be given a session: route the shared session
  // to the backend. This must come before anything creates a URLSession.
  let backend = CatFancyBackend.makeBackend()
  do {
    try backend.interceptProcessWide()
  } catch {
    printError("\(error)")
    exit(1)
  }
  let url = BreedsURL.standard.url
  let requester = BreedRequester(session: URLSession.shared, url: url)
  show(await BreedListState.load(with: requester), heading: "standard via URLSession.shared: \(url.absoluteString)")
  backend.stopInterceptingProcessWide()

case .live:
  let url = BreedsURL.standard.url
  let requester = BreedRequester(session: URLSession.shared, url: url)
  do throws(BreedsError) {
    show(.init(.success(try await requester.breeds())), heading: "standard, live: \(url.absoluteString)")
  } catch {
    printError(CatFancyCommand.liveFailureMessage(url: url, error: error))
    exit(1)
  }
}
