import CatFancyKit
import Foundation
import Testing

/// The `catfancy` command line.
@Suite("Command line")
struct CatFancyCommandTests {
  @Test("no arguments shows every scenario")
  func noArguments() throws {
    #expect(try CatFancyCommand.parse([]) == .all)
  }

  @Test("--scenario NAME picks one", arguments: CatFancyScenario.allCases)
  func scenario(variant: CatFancyScenario) throws {
    #expect(try CatFancyCommand.parse(["--scenario", variant.rawValue]) == .scenario(variant))
    #expect(try CatFancyCommand.parse(["--scenario=\(variant.rawValue)"]) == .scenario(variant))
  }

  @Test func modes() throws {
    #expect(try CatFancyCommand.parse(["--live"]) == .live)
    #expect(try CatFancyCommand.parse(["--shared"]) == .shared)
    #expect(try CatFancyCommand.parse(["--help"]) == .help)
    #expect(try CatFancyCommand.parse(["-h"]) == .help)
    #expect(try CatFancyCommand.parse(["--scenario", "nope", "--help"]) == .help)
  }

  @Test("an unknown scenario names the valid ones")
  func unknownScenario() {
    #expect(
      throws: CatFancyCommand.UsageError(
        #"unknown scenario "dogs"; valid scenarios: standard, empty, malformed, withMore, slow"#)
    ) {
      try CatFancyCommand.parse(["--scenario", "dogs"])
    }
  }

  @Test("scenario names are case-sensitive, as printed")
  func caseSensitive() {
    #expect(throws: CatFancyCommand.UsageError.self) { try CatFancyCommand.parse(["--scenario", "WithMore"]) }
  }

  @Test func missingScenarioName() {
    #expect(
      throws: CatFancyCommand.UsageError(
        "--scenario needs a name; valid scenarios: standard, empty, malformed, withMore, slow")
    ) {
      try CatFancyCommand.parse(["--scenario"])
    }
  }

  @Test func unknownArgument() {
    #expect(throws: CatFancyCommand.UsageError(#"unknown argument "--verbose"; run catfancy --help for usage"#)) {
      try CatFancyCommand.parse(["--verbose"])
    }
  }

  @Test func twoModes() {
    #expect(throws: CatFancyCommand.UsageError("choose one of --scenario, --live and --shared")) {
      try CatFancyCommand.parse(["--live", "--shared"])
    }
  }

  @Test("the usage lists every option and scenario")
  func usage() {
    for option in ["--scenario NAME", "--live", "--shared", "--help", "standard, empty, malformed, withMore, slow"] {
      #expect(CatFancyCommand.usage.contains(option))
    }
  }

  @Test("the tool says where the answers come from, and shows the URL as stubbed")
  func fixturesNote() {
    #expect(
      CatFancyCommand.fixturesNote(url: BreedsURL.standard.url) == """
        Every answer comes from CatFancy's bundled fixtures (Fixtures/doppel.json), served by a Doppel
        backend: no request reaches the network.
        The app asks for https://raceconditionsoftware.s3.us-west-1.amazonaws.com/CatFancy/breeds.json; each scenario stubs that URL.
        """)
    #expect(CatFancyCommand.usage.contains("no request reaches the network, except with --live"))
  }
}
