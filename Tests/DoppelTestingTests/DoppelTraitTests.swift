import Foundation
import Testing

@testable import DoppelTesting

@Suite(.doppel { $0.stub(.get("/breeds.json"), .json(Breed.all)) })  // suite-wide defaults
struct BreedListTests {
  @Test(.doppel { $0.stub(.get("/breeds.json"), .json([Breed]())) })  // overrides the default
  func showsEmptyState() async throws {
    let model = BreedListModel(session: Backend.current.session)
    try await model.load()
    #expect(model.state == .empty)
    #expect(Backend.current.requests.count == 1)
  }

  @Test func usesTheSuiteDefault() async throws {
    let model = BreedListModel(session: Backend.current.session)
    try await model.load()
    #expect(model.state == .loaded(Breed.all))
    #expect(Backend.current.requests.map(\.url) == [BreedListModel.url])
  }

  @Test(.doppel { $0.stub(.get("/extra"), .text("extra")) })
  func addsToTheSuiteDefault() async throws {
    #expect(Backend.current.stubs.map(\.matcher.description) == ["GET /breeds.json", "GET /extra"])
    #expect(try await Backend.current.session.text("https://api.example.com/extra") == "extra")
  }

  @Suite(.doppel { $0.stub(.get("/breeds.json"), .json([Breed(name: "Nested")])) })
  struct Nested {
    @Test func theInnerSuiteOverridesTheOuter() async throws {
      let model = BreedListModel(session: Backend.current.session)
      try await model.load()
      #expect(model.state == .loaded([Breed(name: "Nested")]))
    }

    @Test(.doppel { $0.stub(.get("/breeds.json"), .json([Breed(name: "Test")])) }, .doppel { _ in })
    func theTestOverridesBothSuitesOnOneBackend() async throws {
      let backend = Backend.current
      // Outermost suite first, then the inner suite, then the test's traits in order.
      #expect(backend.stubs.count == 3)
      let model = BreedListModel(session: backend.session)
      try await model.load()
      #expect(model.state == .loaded([Breed(name: "Test")]))
      #expect(backend.stubs.map(\.callCount) == [0, 0, 1])
    }
  }
}

@Suite struct DoppelTraitTests {
  @Test(.doppel) func theBareTraitGivesAnEmptyBackend() {
    #expect(Backend.current.stubs.isEmpty)
    #expect(Backend.current === Backend.current)
    #expect(!Backend.current.requiresAllStubsUsed)
  }

  @Test(.doppel, arguments: 0..<20)
  func eachArgumentGetsItsOwnBackend(argument: Int) async throws {
    let backend = Backend.current
    #expect(backend.stubs.isEmpty)
    backend.stub(.get("/n"), .text("\(argument)"))
    #expect(try await backend.session.text("https://api.example.com/n") == "\(argument)")
    #expect(backend.requests.count == 1)
  }

  @Test(.doppel { $0.stub(.get("/child"), .text("child")) })
  func childTasksSeeTheTestsBackend() async throws {
    let backend = Backend.current
    let seen = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<4 { group.addTask { Backend.current === backend } }
      return await group.reduce(true) { $0 && $1 }
    }
    #expect(seen)
  }

  @Test func configureCanUseTheTaskLocalBackend() async throws {
    let trait = DoppelTrait.doppel { backend in
      #expect(Backend.current === backend)
      Backend.current.stub(.get("/x"), .ok)
    }
    try await trait.withBackend(for: Test.current!, testCase: Test.Case.current) {
      #expect(Backend.current.stubs.count == 1)
    }
  }

  @Test func aSuiteWithoutATestCaseGetsNoBackend() async throws {
    try await DoppelTrait.doppel.withBackend(for: Test.current!, testCase: nil) {
      #expect(DoppelTrait.enclosing == nil)
      #expect(Backend.scoped == nil)
    }
  }
}

@Suite(.doppel(requireAllStubsUsed: true, unmatched: .respond(.status(404))))
struct DoppelTraitOptionTests {
  @Test func theSuitesOptionsApply() async {
    #expect(Backend.current.requiresAllStubsUsed)
    // Answered by the policy, so not a failure of this test.
    #expect(await Backend.current.session.outcome("https://api.example.com/nothing") == "404")
  }

  @Test(.doppel(requireAllStubsUsed: false))
  func aTestCanTurnAnOptionOffAndKeepTheOthers() async {
    #expect(!Backend.current.requiresAllStubsUsed)
    Backend.current.stub(.get("/unused"), .ok)  // not required here
    #expect(await Backend.current.session.outcome("https://api.example.com/nothing") == "404")
  }

  @Test(.doppel { $0.requiresAllStubsUsed = false })
  func configureCanSetPropertiesToo() {
    #expect(!Backend.current.requiresAllStubsUsed)
  }

  @Test func aTestCanChangeThePolicyBack() async throws {
    let issues = IssueLog()
    // The suite's trait is already in effect here, so run the traits as if on a test of their own.
    try await DoppelTrait.$enclosing.withValue(nil) {
      try await DoppelTrait.doppel(unmatched: .respond(.status(404))).withBackend(
        for: Test.current!, testCase: Test.Case.current,
        {
          try await DoppelTrait.doppel(unmatched: .fail).withBackend(for: Test.current!, testCase: Test.Case.current) {
            #expect(await Backend.current.session.outcome("https://api.example.com/nothing") == "URLError -1008")
          }
        }, report: issues.record)
    }
    #expect(issues.messages.count == 1)
    #expect(issues.messages.first?.hasPrefix("No stub matched GET https://api.example.com/nothing") == true)
  }
}

/// A suite's stubs are defaults its tests share: `requireAllStubsUsed` asks each test to use the
/// stubs it declared itself. This test fails if the suite's unused stub were counted.
@Suite(.doppel(requireAllStubsUsed: true) { $0.stub(.get("/suite-default"), .ok) })
struct SuiteStubsAreNotRequiredTests {
  @Test(.doppel { $0.stub(.get("/own"), .ok) })
  func aTestUsesItsOwnStubOnly() async {
    #expect(await Backend.current.session.outcome("https://api.example.com/own") == "200")
  }
}
