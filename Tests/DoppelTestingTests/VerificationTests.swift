import Foundation
import Testing

@testable import DoppelTesting

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite(.doppel { $0.stub(.get("/breeds.json"), .json(Breed.all)) })
struct VerificationTests {
  struct Order: Codable, Equatable {
    let sku: String
    let quantity: Int
  }

  @Test(.doppel { $0.stub(.post("/orders"), .status(201)).expect(times: 3) })
  func midTestHelpers() async throws {
    let backend = Backend.current
    let orders = try #require(backend.stubs.last)
    #expect(backend.lastRequest(matching: .post("/orders")) == nil)
    for quantity in 1...3 {
      var request = URLRequest(url: URL(string: "https://api.example.com/orders")!)
      request.httpMethod = "POST"
      request.httpBody = try JSONEncoder().encode(Order(sku: "A1", quantity: quantity))
      _ = try await backend.session.data(for: request)
    }
    _ = try await backend.session.data(from: BreedListModel.url)

    #expect(orders.callCount == 3)
    #expect(backend.requests(matching: .post("/orders")).count == 3)
    #expect(backend.lastRequest?.url == BreedListModel.url)
    let last = try #require(backend.lastRequest(matching: .post("/orders")))
    #expect(try last.decodeJSON(Order.self) == Order(sku: "A1", quantity: 3))
    #expect(backend.verify().isEmpty)
  }

  @Test func theTraitReportsAtTheEndOfTheTest() async throws {
    let issues = IssueLog()
    let test = try #require(Test.current)
    let stubLine = #line + 2
    let trait = DoppelTrait.doppel {
      $0.stub(.get("/expected"), .ok).expect(times: 1)
    }
    try await DoppelTrait.$enclosing.withValue(nil) {
      try await trait.withBackend(
        for: test, testCase: Test.Case.current,
        {
          _ = await Backend.current.session.outcome("https://api.example.com/unexpected")
          #expect(issues.all.isEmpty)  // nothing is recorded while the test runs
        }, report: issues.record)
    }
    let unexpected = """
      No stub matched GET https://api.example.com/unexpected
      Closest stubs:
        1. VerificationTests.swift:\(stubLine)  GET /expected
             ✓ method GET
             ✗ path   expected "/expected", got "/unexpected"
      Add a stub for this request, or fix the closest one.
      """
    #expect(
      issues.messages == [
        unexpected,
        "The stub GET /expected was expected to answer 1 time but answered 0 times. "
          + "Make the code under test send the request, or change the stub's expectation.",
      ])
    // The unmatched request points at the test; the stub at its declaration.
    #expect(issues.all.map { $0.location?.line } == [test.sourceLocation.line, stubLine])
  }

  @Test func issuesAfterTheScopeEndedAreNotLost() async throws {
    let scope = BackendScope(location: Doppel.CodeLocation())
    #expect(scope.finish().isEmpty)
    // Reported to standard error now, never to a test that has ended.
    _ = await scope.backend.session.outcome("https://api.example.com/late")
    #expect(scope.finish().isEmpty)
  }
}
