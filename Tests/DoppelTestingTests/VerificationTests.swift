@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import Testing

@testable import DoppelTesting

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
      try await trait.attachingNothing.withBackend(
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
      Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
        backend.stub(.get("https://api.example.com/unexpected"), .status(200))
        {"request":"GET https://api.example.com/unexpected","response":{"status":200}}
      """
    #expect(
      issues.messages == [
        unexpected,
        "The stub GET /expected was expected to answer 1 time but answered 0 times. "
          + "Make the code under test send the request, or change the stub's expectation.",
      ])
    // The unmatched request points at the closest stub, where the fix most likely goes; the unmet
    // expectation at the stub's declaration too.
    #expect(issues.all.map { $0.location?.line } == [stubLine, stubLine])
  }

  @Test func issuesAfterTheScopeEndedAreNotLost() async throws {
    let late = Locked<[String]>([])
    let scope = BackendScope(location: Doppel.CodeLocation(), lateIssues: { text in late.withLock { $0.append(text) } })
    #expect(scope.finish().isEmpty)
    // Reported to standard error (here: captured) now, never to a test that has ended.
    _ = await scope.backend.session.outcome("https://api.example.com/late")
    #expect(scope.finish().isEmpty)
    #expect(
      late.withLock { $0 } == [
        """
        Doppel: after the test ended: No stub matched GET https://api.example.com/late
        The backend has no stubs.
        Add a stub for this request; this one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://api.example.com/late"), .status(200))
          {"request":"GET https://api.example.com/late","response":{"status":200}}

        """
      ])
  }

  @Test func anUnmatchedRequestTheTestRethrowsIsReportedOnceAtTheClosestStub() async throws {
    let issues = IssueLog()
    let test = try #require(Test.current)
    let stubLine = #line + 2
    let trait = DoppelTrait.doppel {
      $0.stub(.get("/breeds.json"), .json(Breed.all))
    }
    // The test's body rethrows the URLError of the unmatched request, as code under test does.
    try await DoppelTrait.$enclosing.withValue(nil) {
      try await trait.attachingNothing.withBackend(
        for: test, testCase: Test.Case.current,
        { _ = try await Backend.current.session.data(from: URL(string: "https://api.example.com/breed.json")!) },
        report: issues.record)
    }
    #expect(
      issues.messages == [
        """
        No stub matched GET https://api.example.com/breed.json
        Closest stubs:
          1. VerificationTests.swift:\(stubLine)  GET /breeds.json
               ✓ method GET
               ✗ path   expected "/breeds.json", got "/breed.json"
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://api.example.com/breed.json"), .status(200))
          {"request":"GET https://api.example.com/breed.json","response":{"status":200}}
        """
      ])
    #expect(issues.all.map { $0.location?.line } == [stubLine])
  }

  @Test func anotherErrorTheTestThrowsStillFailsIt() async throws {
    struct Stop: Error {}
    let issues = IssueLog()
    let test = try #require(Test.current)
    await #expect(throws: Stop.self) {
      try await DoppelTrait.$enclosing.withValue(nil) {
        try await DoppelTrait.doppel.attachingNothing.withBackend(
          for: test, testCase: Test.Case.current, { throw Stop() }, report: issues.record)
      }
    }
    #expect(issues.all.isEmpty)
  }

  @Test func anUnmatchedRequestFromAnotherBackendIsNotSwallowed() async throws {
    let issues = IssueLog()
    let test = try #require(Test.current)
    let other = Backend(issueReporter: .ignore)
    await #expect(throws: URLError.self) {
      try await DoppelTrait.$enclosing.withValue(nil) {
        try await DoppelTrait.doppel.attachingNothing.withBackend(
          for: test, testCase: Test.Case.current,
          { _ = try await other.session.data(from: URL(string: "https://api.example.com/x")!) },
          report: issues.record)
      }
    }
    #expect(issues.all.isEmpty)
  }
}
