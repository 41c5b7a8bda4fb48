import DoppelTesting
import Testing

/// `.doppel(clock:)` and `makeBackend(clock:)`: time in tests, with the
/// end-of-test verification kept.
@Suite(.timeLimit(.minutes(2))) struct ClockTests {
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
}
