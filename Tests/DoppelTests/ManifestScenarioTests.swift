import Doppel
import Foundation
import Testing

/// Scenarios layered over the base stubs, chosen in code, by environment variable or by launch
/// argument.
@Suite struct ManifestScenarioTests {
  static let json = """
    {
      "stubs": [
        {"request": "GET https://api.example.com/breeds", "response": {"json": ["Abyssinian", "Sphynx"]}},
        {"request": "GET https://api.example.com/me", "response": {"text": "Tom"}}
      ],
      "scenarios": {
        "standard": {"description": "The usual list."},
        "empty": {
          "description": "No breeds at all.",
          "stubs": [{"request": "GET https://api.example.com/breeds", "response": {"json": []}}]
        },
        "withMore": {
          "stubs": [{"request": "GET https://api.example.com/breeds", "response": {"json": ["A", "B", "C"]}}]
        }
      }
    }
    """

  private func breeds(_ selection: ScenarioSelection) async throws -> String {
    try await Backend(manifest: manifest(Self.json), scenario: selection).answer("https://api.example.com/breeds").body
  }

  @Test func listsScenariosInOrderWithTheirDescriptions() throws {
    let manifest = try manifest(Self.json)
    #expect(manifest.scenarioNames == ["standard", "empty", "withMore"])
    #expect(manifest.description(ofScenario: "empty") == "No breeds at all.")
    #expect(manifest.description(ofScenario: "withMore") == nil)
  }

  @Test func aScenarioOverridesTheBaseStubsAndKeepsTheRest() async throws {
    #expect(try await breeds(.base) == #"["Abyssinian","Sphynx"]"#)
    #expect(try await breeds("standard") == #"["Abyssinian","Sphynx"]"#)
    #expect(try await breeds("empty") == "[]")
    #expect(try await breeds(.named("withMore")) == #"["A","B","C"]"#)
    let backend = try Backend(manifest: manifest(Self.json), scenario: "empty")
    #expect(try await backend.answer("https://api.example.com/me").body == "Tom")
    #expect(backend.stubs.count == 3)
  }

  @Test func automaticReadsTheEnvironmentVariableFirst() async throws {
    let both = ScenarioSelection.automatic(
      environment: ["DOPPEL_SCENARIO": "empty"], arguments: ["App", "-DoppelScenario", "withMore"])
    #expect(try await breeds(both) == "[]")
    let argument = ScenarioSelection.automatic(environment: [:], arguments: ["App", "-DoppelScenario", "withMore"])
    #expect(try await breeds(argument) == #"["A","B","C"]"#)
    let emptyVariable = ScenarioSelection.automatic(
      environment: ["DOPPEL_SCENARIO": ""], arguments: ["App", "-DoppelScenario", "empty"])
    #expect(try await breeds(emptyVariable) == "[]")
    let neither = ScenarioSelection.automatic(environment: ["HOME": "/root"], arguments: ["App", "-verbose"])
    #expect(try await breeds(neither) == #"["Abyssinian","Sphynx"]"#)
    #expect(try manifest(Self.json).resolveScenario(neither) == nil)
  }

  @Test func anUnknownScenarioListsTheValidOnesAndTheClosest() throws {
    let manifest = try manifest(Self.json)
    #expect(
      throws: DoppelError(
        #"/project/Fixtures/doppel.json:6:3: scenarios: there is no scenario "emtpy" (chosen in code). Did you mean "empty"? The scenarios are: standard, empty, withMore."#
      )
    ) { try Backend(manifest: manifest, scenario: "emtpy") }
    #expect(
      throws: DoppelError(
        #"/project/Fixtures/doppel.json:6:3: scenarios: there is no scenario "offline" (from the DOPPEL_SCENARIO environment variable). The scenarios are: standard, empty, withMore."#
      )
    ) { try manifest.resolveScenario(.automatic(environment: ["DOPPEL_SCENARIO": "offline"], arguments: [])) }
    #expect(
      throws: DoppelError(
        #"/project/Fixtures/doppel.json:6:3: scenarios: there is no scenario "WithMore" (from the launch argument -DoppelScenario). Did you mean "withMore"? The scenarios are: standard, empty, withMore."#
      )
    ) { try manifest.resolveScenario(.automatic(environment: [:], arguments: ["App", "-DoppelScenario", "WithMore"])) }
  }

  @Test func aScenarioInAManifestWithoutScenarios() throws {
    let manifest = try manifest(#"{"stubs": []}"#)
    #expect(
      throws: DoppelError(
        #"/project/Fixtures/doppel.json: there is no scenario "empty" (chosen in code): the manifest has no scenarios. Add "scenarios": {"empty": {"stubs": [ … ]}}, or choose no scenario."#
      )
    ) { try manifest.resolveScenario("empty") }
  }

  @Test func theLaunchArgumentNeedsAName() throws {
    for arguments in [["App", "-DoppelScenario"], ["App", "-DoppelScenario", "-NSDebug"]] {
      #expect(
        throws: DoppelError(
          "The launch argument -DoppelScenario needs a scenario name after it, as in -DoppelScenario empty.")
      ) { try manifest(Self.json).resolveScenario(.automatic(environment: [:], arguments: arguments)) }
    }
  }

  @Test func anUnknownScenarioAddsNoStubs() throws {
    let backend = Backend()
    #expect(throws: DoppelError.self) { try backend.addStubs(from: manifest(Self.json), scenario: "nope") }
    #expect(backend.stubs.isEmpty)
  }

  @Test func selectionsDescribeThemselves() {
    #expect(ScenarioSelection.base.description == "base")
    #expect(ScenarioSelection.named("empty").description == "\"empty\"")
    #expect(ScenarioSelection.automatic.description == "automatic (DOPPEL_SCENARIO, -DoppelScenario)")
  }
}
