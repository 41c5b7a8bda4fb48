import Foundation
import Testing

@testable import DoppelTesting

@Suite struct WithBackendTests {
  // Each test below checks a failure DoppelTesting reports: `IssueCapture.capture` keeps it, with
  // the exact text and location `Issue.record` would have been given, instead of recording it (a
  // known issue would be printed by every passing run).

  @Test func anUnmatchedRequestFailsTheTestWithTheNearMissReport() async throws {
    let stubLine = #line + 3
    let (_, issues) = await IssueCapture.capture {
      await withBackend { backend in
        backend.stub(.get("https://api.example.com/breeds.json"), .json(Breed.all))
        backend.stub(.post("/breeds.json"), .status(201))
        #expect(await backend.session.outcome("https://api.example.com/breed.json") == "URLError -1008")
        #expect(Backend.current === backend)
      }
    }
    #expect(
      issues.map(\.message) == [
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
      ])
    #expect(issues.first?.sourceLocation.fileID == #fileID)
    #expect(issues.first?.sourceLocation.line == stubLine)
  }

  @Test func anUnmatchedRequestTheBodyRethrowsIsReportedOnceAsTheNearMissReport() async throws {
    let (result, issues) = await IssueCapture.capture {
      try await withBackend { backend in
        backend.stub(.get("/breeds.json"), .json(Breed.all))
        _ = try await backend.session.data(from: URL(string: "https://api.example.com/breed.json")!)
      }
    }
    // Reported once: as the error the test throws, which reads as the report, not as an NSError dump.
    #expect(issues.isEmpty)
    guard case .failure(let error) = result else {
      Issue.record("the scope did not rethrow")
      return
    }
    #expect(
      (error as? DoppelError)?.description.hasPrefix(
        "No stub matched GET https://api.example.com/breed.json\nClosest stubs:\n") == true)
    #expect("\(error)".hasPrefix("No stub matched GET https://api.example.com/breed.json\nClosest stubs:\n"))
    #expect((error as? DoppelError)?.kind == .unmatchedRequest)
  }

  @Test func anUnmatchedRequestIsReportedOnce() async {
    let (_, issues) = await IssueCapture.capture {
      await withBackend { backend in
        _ = await backend.session.outcome("https://api.example.com/a")
        _ = await backend.session.outcome("https://api.example.com/b")
      }
    }
    #expect(
      issues.map { $0.message.prefix { $0 != "\n" } } == [
        "No stub matched GET https://api.example.com/a", "No stub matched GET https://api.example.com/b",
      ])
  }

  @Test func anUnmatchedRequestAfterTheJournalWasClearedStillFails() async {
    let (_, issues) = await IssueCapture.capture {
      await withBackend { backend in
        _ = await backend.session.outcome("https://api.example.com/a")
        backend.clearJournal()
      }
    }
    #expect(issues.map { $0.message.prefix { $0 != "\n" } } == ["No stub matched GET https://api.example.com/a"])
  }

  @Test func aStubExpectedTwiceButCalledOnceFailsAtItsDeclaration() async throws {
    let stubLine = #line + 3
    let (_, issues) = await IssueCapture.capture {
      await withBackend { backend in
        backend.stub(.get("/breeds.json"), .json(Breed.all)).expect(times: 2)
        #expect(await backend.session.outcome("https://api.example.com/breeds.json") == "200")
      }
    }
    #expect(
      issues == [
        .init(
          message: "The stub GET /breeds.json was expected to answer 2 times but answered 1 time. "
            + "Make the code under test send the request, or change the stub's expectation.",
          sourceLocation: SourceLocation(fileID: #fileID, filePath: #filePath, line: stubLine, column: 21))
      ])
  }

  @Test func requireAllStubsUsedFailsForEachUnusedStub() async throws {
    let stubLine = #line + 3
    let (result, issues) = await IssueCapture.capture {
      try await withBackend(requireAllStubsUsed: true) { backend in
        backend.stub(.get("/breeds.json"), .json(Breed.all))
        backend.stub(.get("/used"), .ok)
        _ = try await backend.session.data(from: URL(string: "https://api.example.com/used")!)
      }
    }
    #expect((try? result.get()) != nil)
    #expect(
      issues.map(\.message) == [
        "The stub GET /breeds.json was expected to answer at least 1 time but answered 0 times. "
          + "Make the code under test send the request, or change the stub's expectation."
      ])
    #expect(issues.first?.sourceLocation.line == stubLine)
  }

  @Test func anInvalidStubFailsAtItsDeclaration() {
    let stubLine = #line + 3
    let (_, issues) = IssueCapture.captureSynchronously {
      withBackend { backend in
        backend.stub(.get("ht tp://bad"), .ok)
        #expect(backend.problems.count == 1)
      }
    }
    #expect(issues.count == 1)
    #expect(issues.first?.message.hasPrefix("Invalid stub: Invalid URL \"ht tp://bad\"") == true)
    #expect(issues.first?.sourceLocation.line == stubLine)
  }

  @Test func issuesAreReportedWhenTheBodyThrows() throws {
    struct Stop: Error {}
    let (result, issues) = IssueCapture.captureSynchronously {
      try withBackend { backend in
        backend.stub(.get("/never"), .ok).expect(times: 1)
        throw Stop()
      }
    }
    // The body's error is rethrown, and the verification still ran.
    guard case .failure(let error) = result else {
      Issue.record("the scope did not rethrow")
      return
    }
    #expect(error is Stop)
    #expect(issues.map { $0.message.hasPrefix("The stub GET /never was expected to answer 1 time") } == [true])
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
    let testLocation = Test.current?.sourceLocation
    let (_, issues) = IssueCapture.captureSynchronously {
      let backend = Backend.current
      #expect(backend.stubs.isEmpty)
    }
    #expect(
      issues.map(\.message) == [
        "Backend.current was used outside a Doppel scope, so there is no backend for this test. "
          + "Give the test or its suite one with the .doppel trait, @Test(.doppel { $0.stub(…) }) or "
          + "@Suite(.doppel { … }), or run the code inside withBackend { backend in … }. "
          + "A new, empty backend was returned instead."
      ])
    #expect(issues.first?.sourceLocation == testLocation)
  }
}
