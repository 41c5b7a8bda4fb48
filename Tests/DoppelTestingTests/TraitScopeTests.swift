@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import Testing

@testable import DoppelTesting

/// The scope the `.doppel` trait gives a test: what it reports when the test ends, and where.
@Suite struct TraitScopeTests {
  // Each test below runs a trait's scope inside this test and checks the failures it reports:
  // `IssueCapture.capture` keeps them, with the exact text and location `Issue.record` would have
  // been given, instead of recording them (a known issue would be printed by every passing run).

  /// Runs `body` in the scope `trait` gives the running test, as Swift Testing runs a test with it.
  private func inScope(
    _ trait: DoppelTrait = .doppel, _ body: @escaping @Sendable () async throws -> Void
  ) async -> (result: Result<Void, any Error>, issues: [IssueCapture.Captured]) {
    await IssueCapture.capture {
      try await DoppelTrait.$enclosing.withValue(nil) {
        try await trait.attachingNothing.withBackend(for: Test.current!, testCase: Test.Case.current, body)
      }
    }
  }

  @Test func anUnmatchedRequestFailsTheTestWithTheNearMissReport() async throws {
    let stubLine = #line + 3
    let (_, issues) = await inScope {
      let backend = Backend.current
      backend.stub(.get("https://api.example.com/breeds.json"), .json(Breed.all))
      backend.stub(.post("/breeds.json"), .status(201))
      #expect(await backend.session.outcome("https://api.example.com/breed.json") == "URLError -1008")
    }
    #expect(
      issues.map(\.message) == [
        """
        No stub matched GET https://api.example.com/breed.json
        Closest stubs:
          1. TraitScopeTests.swift:\(stubLine)  GET https://api.example.com/breeds.json
               ✓ method GET
               ✓ scheme https
               ✓ host   api.example.com
               ✗ path   expected "/breeds.json", got "/breed.json"
          2. TraitScopeTests.swift:\(stubLine + 1)  POST /breeds.json
               ✗ method expected POST, got GET
               ✗ path   expected "/breeds.json", got "/breed.json"
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://api.example.com/breed.json"), .status(200))
          {"request":"GET https://api.example.com/breed.json","response":{"status":200}}
        """
      ])
    #expect(issues.first?.sourceLocation.fileID == #fileID)
    #expect(issues.first?.sourceLocation.line == stubLine)
  }

  @Test func eachUnmatchedRequestIsReportedOnce() async {
    let (_, issues) = await inScope {
      _ = await Backend.current.session.outcome("https://api.example.com/a")
      _ = await Backend.current.session.outcome("https://api.example.com/b")
    }
    #expect(
      issues.map { $0.message.prefix { $0 != "\n" } } == [
        "No stub matched GET https://api.example.com/a", "No stub matched GET https://api.example.com/b",
      ])
  }

  @Test func anUnmatchedRequestAfterTheJournalWasClearedStillFails() async {
    let (_, issues) = await inScope {
      _ = await Backend.current.session.outcome("https://api.example.com/a")
      Backend.current.clearJournal()
    }
    #expect(issues.map { $0.message.prefix { $0 != "\n" } } == ["No stub matched GET https://api.example.com/a"])
  }

  @Test func aStubExpectedTwiceButCalledOnceFailsAtItsDeclaration() async throws {
    let stubLine = #line + 3
    let (_, issues) = await inScope {
      let backend = Backend.current
      backend.stub(.get("/breeds.json"), .json(Breed.all)).expect(times: 2)
      #expect(await backend.session.outcome("https://api.example.com/breeds.json") == "200")
    }
    #expect(
      issues == [
        .init(
          message: "The stub GET /breeds.json was expected to answer 2 times but answered 1 time. "
            + "Make the code under test send the request, or change the stub's expectation.",
          sourceLocation: SourceLocation(fileID: #fileID, filePath: #filePath, line: stubLine, column: 19))
      ])
  }

  @Test func requireAllStubsUsedListsTheUnusedStubsWhereTheyWereDeclared() async throws {
    let stubLine = #line + 3
    let (result, issues) = await inScope(.doppel(requireAllStubsUsed: true)) {
      let backend = Backend.current
      backend.stub(.get("/breeds.json"), .json(Breed.all))
      backend.stub(.get("/used"), .ok)
      backend.stub(.post("/favorites"), .status(201))
      _ = try await backend.session.data(from: URL(string: "https://api.example.com/used")!)
    }
    #expect((try? result.get()) != nil)
    #expect(
      issues.map(\.message) == [
        """
        2 of the 3 stubs that must answer (requiresAllStubsUsed) never answered:
          GET /breeds.json  declared at TraitScopeTests.swift:\(stubLine)
          POST /favorites  declared at TraitScopeTests.swift:\(stubLine + 2)
        Make the code under test send these requests, or remove the stubs it does not need.
        """
      ])
    #expect(issues.first?.sourceLocation.line == stubLine)
  }

  /// Runs `body` in the scope of `suite` (as if attached to the test's suite) and then `test`.
  private func inSuiteScope(
    _ suite: DoppelTrait, _ test: DoppelTrait, _ body: @escaping @Sendable () async throws -> Void
  ) async -> [IssueCapture.Captured] {
    suite.isOnSuite.withLock { $0 = true }
    return await inScope(suite) {
      try await test.withBackend(for: Test.current!, testCase: Test.Case.current, body)
    }.issues
  }

  @Test func requireAllStubsUsedLeavesTheSuitesStubsOutUnlessAsked() async throws {
    let suiteLine = #line + 1
    let suite = DoppelTrait.doppel { $0.stub(.get("/suite-default"), .ok) }
    let test = DoppelTrait.doppel(requireAllStubsUsed: true) { $0.stub(.get("/own"), .ok) }
    let used = await inSuiteScope(suite, test) {
      _ = try await Backend.current.session.data(from: URL(string: "https://api.example.com/own")!)
    }
    #expect(used.isEmpty)
    let unused = await inSuiteScope(suite, test) {}
    #expect(
      unused.map(\.message) == [
        """
        A stub that must answer (requiresAllStubsUsed) never answered:
          GET /own  declared at TraitScopeTests.swift:\(suiteLine + 1)
        Make the code under test send the request, or remove the stub.
        """
      ])
    let counted = await inSuiteScope(suite.countingSuiteStubs(), test) {
      _ = try await Backend.current.session.data(from: URL(string: "https://api.example.com/own")!)
    }
    #expect(
      counted.map(\.message) == [
        """
        1 of the 2 stubs that must answer (requiresAllStubsUsed) never answered:
          GET /suite-default  declared at TraitScopeTests.swift:\(suiteLine)
        Make the code under test send the request, or remove the stub.
        """
      ])
  }

  @Test func anInvalidStubFailsAtItsDeclaration() async {
    let stubLine = #line + 3
    let (_, issues) = await inScope {
      let backend = Backend.current
      backend.stub(.get("ht tp://bad"), .ok)
      #expect(backend.problems.count == 1)
    }
    #expect(issues.count == 1)
    #expect(issues.first?.message.hasPrefix("Invalid stub: Invalid URL \"ht tp://bad\"") == true)
    #expect(issues.first?.sourceLocation.line == stubLine)
  }

  @Test func issuesAreReportedWhenTheTestThrows() async throws {
    struct Stop: Error {}
    let (result, issues) = await inScope {
      Backend.current.stub(.get("/never"), .ok).expect(times: 1)
      throw Stop()
    }
    // The test's error is rethrown, and the verification still ran.
    guard case .failure(let error) = result else {
      Issue.record("the scope did not rethrow")
      return
    }
    #expect(error is Stop)
    #expect(issues.map { $0.message.hasPrefix("The stub GET /never was expected to answer 1 time") } == [true])
  }

  @Test func aPolicyThatAnswersUnmatchedRequestsIsNotAFailure() async {
    let (result, issues) = await inScope(.doppel(unmatched: .respond(.status(404)))) {
      #expect(await Backend.current.session.outcome("https://api.example.com/nothing") == "404")
      #expect(Backend.current.unmatchedRequests.count == 1)
    }
    #expect((try? result.get()) != nil)
    #expect(issues.isEmpty)
    #expect(Backend.scoped == nil)
  }

  @Test func backendCurrentOutsideAScopeSaysHowToGetOne() {
    let testLocation = Test.current?.sourceLocation
    let (_, issues) = IssueCapture.captureSynchronously {
      let backend = Backend.current
      #expect(backend.stubs.isEmpty)
    }
    #expect(
      issues.map(\.message) == [
        "Backend.current was used outside a Doppel scope, so there is no backend for this test. "
          + "Give the test or its suite one with the .doppel trait, @Test(.doppel { $0.stub(…) }) or "
          + "@Suite(.doppel { … }); in XCTest, make one with makeBackend() and pass it along. "
          + "A new, empty backend was returned instead."
      ])
    #expect(issues.first?.sourceLocation == testLocation)
  }
}
