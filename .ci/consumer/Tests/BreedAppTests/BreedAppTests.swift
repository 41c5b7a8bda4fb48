// A user's test file: `import DoppelTesting` is the only Doppel import, with no
// `import FoundationNetworking` on Linux.
import BreedApp
import DoppelTesting
import Testing

@MainActor
@Suite(.doppel { $0.stub(.get("/breeds.json"), .json([Breed(name: "Bengal")])) })
struct BreedListTests {
  @Test func loadsTheSuitesDefault() async throws {
    let model = BreedListModel(session: Backend.current.session)
    try await model.load()
    #expect(model.state == .loaded([Breed(name: "Bengal")]))
    #expect(Backend.current.requests.count == 1)
  }

  @Test(.doppel { $0.stub(.get("/breeds.json"), .json([Breed]())) })
  func showsTheEmptyState() async throws {
    let model = BreedListModel(session: Backend.current.session)
    try await model.load()
    #expect(model.state == .empty)
  }

  @Test(
    .doppel(clock: ManualClock()) {
      $0.stub(.get("/breeds.json"), Response.json([Breed]()).delayed(by: .seconds(5)))
    })
  func waitsOnAManualClock() async throws {
    let clock = try #require(Backend.current.clock as? ManualClock)
    let model = BreedListModel(session: Backend.current.session)
    let load = Task { try await model.load() }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(5))
    try await load.value
    #expect(model.state == .empty)
  }

  @Test func urlRequestNeedsNoOtherImport() {
    var request = URLRequest(url: BreedListModel.url)
    request.httpMethod = "POST"
    #expect(request.httpMethod == "POST")
  }
}
