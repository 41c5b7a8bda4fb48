import Foundation
import Testing

@testable import DoppelTesting

@Suite struct WithBackendTests {
  @Test func anUnmatchedRequestFailsTheTestWithTheNearMissReport() async throws {
    let stubLine = #line + 4
    let fileID = #fileID
    await withKnownIssue {
      await withBackend { backend in
        backend.stub(.get("https://api.example.com/breeds.json"), .json(Breed.all))
        backend.stub(.post("/breeds.json"), .status(201))
        #expect(await backend.session.outcome("https://api.example.com/breed.json") == "URLError -1008")
        #expect(Backend.current === backend)
      }
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        No stub matched GET https://api.example.com/breed.json
        Closest stubs:
          1. WithBackendTests.swift:\(stubLine)  GET https://api.example.com/breeds.json
               ✓ method GET
               ✓ scheme https
               ✓ host   api.example.com
               ✗ path   expected "/breeds.json", got "/breed.json"
          2. WithBackendTests.swift:\(stubLine + 1)  POST /breeds.json
               ✗ method expected POST, got GET
               ✗ path   expected "/breeds.json", got "/breed.json"
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.get("https://api.example.com/breed.json"), .status(200))
          {"request":"GET https://api.example.com/breed.json","response":{"status":200}}
        """
      ] && issue.sourceLocation?.fileID == fileID && issue.sourceLocation?.line == stubLine
    }
  }

  @Test func anUnmatchedRequestTheBodyRethrowsIsReportedOnceAsTheNearMissReport() async throws {
    let count = Locked(0)
    try await withKnownIssue {
      try await withBackend { backend in
        backend.stub(.get("/breeds.json"), .json(Breed.all))
        _ = try await backend.session.data(from: URL(string: "https://api.example.com/breed.json")!)
      }
    } matching: { issue in
      count.withLock { $0 += 1 }
      // The rethrown error reads as the report, not as an NSError dump.
      return (issue.error as? DoppelError)?.description.hasPrefix(
        "No stub matched GET https://api.example.com/breed.json\nClosest stubs:\n") == true
    }
    #expect(count.withLock { $0 } == 1)
  }

  @Test func anUnmatchedRequestIsReportedOnce() async {
    let count = Locked(0)
    await withKnownIssue {
      await withBackend { backend in
        _ = await backend.session.outcome("https://api.example.com/a")
        _ = await backend.session.outcome("https://api.example.com/b")
      }
    } matching: { issue in
      count.withLock { $0 += 1 }
      return issue.comments.first?.rawValue.hasPrefix("No stub matched GET https://api.example.com/") == true
    }
    #expect(count.withLock { $0 } == 2)
  }

  @Test func anUnmatchedRequestAfterTheJournalWasClearedStillFails() async {
    await withKnownIssue {
      await withBackend { backend in
        _ = await backend.session.outcome("https://api.example.com/a")
        backend.clearJournal()
      }
    } matching: { issue in
      issue.comments.first?.rawValue.hasPrefix("No stub matched GET https://api.example.com/a") == true
    }
  }

  @Test func aStubExpectedTwiceButCalledOnceFailsAtItsDeclaration() async throws {
    let stubLine = #line + 4
    let filePath = #filePath
    await withKnownIssue {
      await withBackend { backend in
        backend.stub(.get("/breeds.json"), .json(Breed.all)).expect(times: 2)
        #expect(await backend.session.outcome("https://api.example.com/breeds.json") == "200")
      }
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "The stub GET /breeds.json was expected to answer 2 times but answered 1 time. "
          + "Make the code under test send the request, or change the stub's expectation."
      ] && issue.sourceLocation?.line == stubLine && issue.sourceLocation?.filePath == filePath
    }
  }

  @Test func requireAllStubsUsedFailsForEachUnusedStub() async throws {
    let stubLine = #line + 3
    try await withKnownIssue {
      try await withBackend(requireAllStubsUsed: true) { backend in
        backend.stub(.get("/breeds.json"), .json(Breed.all))
        backend.stub(.get("/used"), .ok)
        _ = try await backend.session.data(from: URL(string: "https://api.example.com/used")!)
      }
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "The stub GET /breeds.json was expected to answer at least 1 time but answered 0 times. "
          + "Make the code under test send the request, or change the stub's expectation."
      ] && issue.sourceLocation?.line == stubLine
    }
  }

  @Test func anInvalidStubFailsAtItsDeclaration() {
    let stubLine = #line + 3
    withKnownIssue {
      withBackend { backend in
        backend.stub(.get("ht tp://bad"), .ok)
        #expect(backend.problems.count == 1)
      }
    } matching: { issue in
      issue.comments.first?.rawValue.hasPrefix("Invalid stub: Invalid URL \"ht tp://bad\"") == true
        && issue.sourceLocation?.line == stubLine
    }
  }

  @Test func issuesAreReportedWhenTheBodyThrows() throws {
    struct Stop: Error {}
    let count = Locked(0)
    try withKnownIssue {
      try withBackend { backend in
        backend.stub(.get("/never"), .ok).expect(times: 1)
        throw Stop()
      }
    } matching: { issue in
      count.withLock { $0 += 1 }
      return issue.error is Stop || issue.comments.first?.rawValue.hasPrefix("The stub GET /never") == true
    }
    #expect(count.withLock { $0 } == 2)
  }

  @Test func aPolicyThatAnswersUnmatchedRequestsIsNotAFailure() async {
    await withBackend(unmatched: .respond(.status(404))) { backend in
      #expect(await backend.session.outcome("https://api.example.com/nothing") == "404")
      #expect(backend.unmatchedRequests.count == 1)
    }
  }

  @Test func aPassingScopeReturnsTheBodysResult() throws {
    let result = withBackend { backend in
      backend.stub(.get("/x"), .ok).expect(times: 0)
      return 42
    }
    #expect(result == 42)
    #expect(Backend.scoped == nil)
  }

  @Test(.doppel) func withBackendInsideATraitMakesASeparateBackend() async throws {
    let outer = Backend.current
    outer.stub(.get("/outer"), .ok)
    withBackend { inner in
      #expect(Backend.current === inner)
      #expect(inner !== outer)
      #expect(inner.stubs.isEmpty)
    }
    #expect(Backend.current === outer)
  }

  @Test func backendCurrentOutsideAScopeSaysHowToGetOne() {
    let testLine = Test.current?.sourceLocation.line
    withKnownIssue {
      let backend = Backend.current
      #expect(backend.stubs.isEmpty)
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        "Backend.current was used outside a Doppel scope, so there is no backend for this test. "
          + "Give the test or its suite one with the .doppel trait, @Test(.doppel { $0.stub(…) }) or "
          + "@Suite(.doppel { … }), or run the code inside withBackend { backend in … }. "
          + "A new, empty backend was returned instead."
      ] && issue.sourceLocation?.line == testLine
    }
  }
}
