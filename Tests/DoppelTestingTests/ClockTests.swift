import Testing

@testable import DoppelTesting

/// `.doppel(clock:)`, `withBackend(clock:)` and `makeBackend(clock:)`: time in tests, with the
/// end-of-test verification kept.
@Suite struct ClockTests {
  @Test(.doppel(clock: ManualClock()) { $0.stub(.get("/slow"), Response.text("late").delayed(by: .seconds(30))) })
  func theTraitGivesEachTestCaseItsOwnManualClock() async throws {
    let clock = try #require(Backend.current.clock as? ManualClock)
    let load = Task { try await Backend.current.session.text("https://api.example.com/slow") }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(30))
    #expect(try await load.value == "late")
  }

  @Test(.doppel(clock: ManualClock()), arguments: 0..<4)
  func parallelTestCasesNeverShareAClock(argument: Int) async throws {
    let clock = try #require(Backend.current.clock as? ManualClock)
    clock.advance(by: .seconds(argument))
    #expect(clock.now.offset == .seconds(argument))
  }

  @Suite(.doppel(clock: ManualClock())) struct ASuitesClock {
    @Test func reachesItsTests() throws {
      #expect(Backend.current.clock is ManualClock)
    }

    @Test(.doppel { $0.stub(.get("/a"), .ok) }) func isKeptByATestTraitThatNamesNone() throws {
      #expect(Backend.current.clock is ManualClock)
    }

    @Test(.doppel(clock: ContinuousClock())) func isOverriddenByATestsOwn() throws {
      #expect(Backend.current.clock is ContinuousClock)
    }
  }

  @Test(.doppel) func theDefaultIsTheContinuousClock() {
    #expect(Backend.current.clock is ContinuousClock)
  }

  @Test func withBackendTakesAClockAndStillVerifies() async throws {
    let clock = ManualClock()
    let (result, issues) = await IssueCapture.capture {
      try await withBackend(clock: clock) { backend in
        #expect(backend.clock as? ManualClock === clock)
        backend.stub(.get("/slow"), Response.text("late").delayed(by: .seconds(5)))
        backend.stub(.get("/never"), .ok).expect(times: 1)
        let load = Task { try await backend.session.text("https://api.example.com/slow") }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(5))
        let body = try await load.value
        #expect(body == "late")
      }
    }
    #expect((try? result.get()) != nil)
    #expect(issues.map { $0.message.hasPrefix("The stub GET /never was expected to answer 1 time") } == [true])
  }

  @Test func theSynchronousWithBackendTakesAClock() {
    let clock = ManualClock()
    withBackend(clock: clock) { backend in
      #expect(backend.clock as? ManualClock === clock)
    }
  }
}
