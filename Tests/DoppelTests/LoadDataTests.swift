import Doppel
import Foundation
import Testing

/// `backend.loadData`: the closure shape `(URL) async throws -> Data`, answered in memory.
@Suite struct LoadDataTests {
  /// Client code written against the closure, as an app written around
  /// `URLSession.shared.data(from:)` would be.
  struct Client {
    let loadData: @Sendable (URL) async throws -> Data

    func text(_ url: String) async throws -> String {
      String(decoding: try await loadData(URL(string: url)!), as: UTF8.self)
    }
  }

  @Test func answersAGetForTheURLAndJournalsIt() async throws {
    let backend = Backend()
    let stub = backend.stub(.get("https://api.example.com/breeds.json"), .text("Abyssinian")).expect(times: 1)

    #expect(try await Client(loadData: backend.loadData).text("https://api.example.com/breeds.json") == "Abyssinian")

    #expect(stub.callCount == 1)
    #expect(backend.lastRequest?.method == .get)
    #expect(backend.lastRequest?.url.absoluteString == "https://api.example.com/breeds.json")
    #expect(backend.verify().isEmpty)
  }

  @Test("the body comes back whatever the status, as URLSession.data(from:) does")
  func returnsTheBodyOfAnErrorStatus() async throws {
    let backend = Backend()
    backend.stub(.get("/missing"), .text("not here", status: 404))

    #expect(try await Client(loadData: backend.loadData).text("https://api.example.com/missing") == "not here")
  }

  @Test func throwsTheStubbedError() async {
    let backend = Backend()
    backend.stub(.host("api.example.com"), .error(.notConnectedToInternet))

    await #expect(throws: URLError(.notConnectedToInternet)) {
      try await Client(loadData: backend.loadData).text("https://api.example.com/breeds.json")
    }
  }

  @Test func anUnmatchedRequestFailsWithTheNearMissReport() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.example.com/breeds.json"), .text("Abyssinian"))

    let error = await #expect(throws: URLError.self) {
      try await Client(loadData: backend.loadData).text("https://api.example.com/breed.json")
    }

    #expect(error?.code == .resourceUnavailable)
    #expect(error?.localizedDescription.hasPrefix("No stub matched GET https://api.example.com/breed.json\n") == true)
    #expect(backend.unmatchedRequests.map(\.url.absoluteString) == ["https://api.example.com/breed.json"])
  }

  @Test func delaysRunOnTheBackendsClock() async throws {
    let clock = ManualClock()
    let backend = Backend(clock: clock)
    backend.stub(.get("/slow"), .text("done").delayed(by: .seconds(2)))
    let load = Task { try await Client(loadData: backend.loadData).text("https://api.example.com/slow") }

    await clock.waitForSleepers()
    clock.advance(by: .seconds(2))

    #expect(try await load.value == "done")
  }
}
