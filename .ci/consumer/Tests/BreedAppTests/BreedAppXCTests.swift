#if canImport(XCTest)
  import BreedApp
  import DoppelTesting
  import XCTest

  @MainActor
  final class BreedListXCTests: XCTestCase {
    func testMakeBackendServesTheModel() async throws {
      let backend = makeBackend()
      backend.stub(.get("/breeds.json"), .json([Breed(name: "Bengal")])).expect(times: 1)
      let model = BreedListModel(session: backend.session)
      try await model.load()
      XCTAssertEqual(model.state, .loaded([Breed(name: "Bengal")]))
    }

    func testAnEmptyListIsEmpty() async throws {
      let backend = makeBackend()
      backend.stub(.get("/breeds.json"), .json([Breed]()))
      let model = BreedListModel(session: backend.session)
      try await model.load()
      XCTAssertEqual(model.state, .empty)
    }
  }
#endif
