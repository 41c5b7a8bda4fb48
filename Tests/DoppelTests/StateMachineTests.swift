import Doppel
import Foundation
import TestSupport
import Testing

/// Several named state machines, each with its own state; the unnamed main one stays the default.
@Suite struct StateMachineTests {
  @Test func namedMachinesMoveIndependently() async {
    let backend = quietBackend()
    backend.stub(.get("/me"), .status(401))
    backend.stub(.post("/login"), .status(204)).setsState("signedIn").stateMachine("session")
    backend.stub(.get("/me"), .text("ada")).requiresState("signedIn").stateMachine("session")
    backend.stub(.get("/basket"), .text("empty"))
    backend.stub(.post("/basket"), .status(201)).setsState("full").stateMachine("basket")
    backend.stub(.get("/basket"), .text("1 item")).requiresState("full").stateMachine("basket")
    #expect(backend.stateMachines == ["session": "initial", "basket": "initial"])

    #expect(await backend.outcome(.post, "https://a.com/basket", body: "{}") == "201 ")
    #expect(await backend.outcome(.get, "https://a.com/basket") == "200 1 item")
    #expect(await backend.outcome(.get, "https://a.com/me") == "401 ")
    #expect(await backend.outcome(.post, "https://a.com/login", body: "{}") == "204 ")
    #expect(await backend.outcome(.get, "https://a.com/me") == "200 ada")
    #expect(backend.stateMachines == ["session": "signedIn", "basket": "full"])
    #expect(backend.state() == "initial")

    backend.setState("initial", ofMachine: "basket")
    #expect(await backend.outcome(.get, "https://a.com/basket") == "200 empty")
    #expect(backend.state(ofMachine: "session") == "signedIn")
    backend.resetStates()
    #expect(await backend.outcome(.get, "https://a.com/me") == "401 ")
  }

  @Test func theNearMissReportNamesTheMachine() async throws {
    let backend = quietBackend()
    backend.stub(.get("/me"), .text("ada"), fileID: "T/MeTests.swift", line: 7)
      .requiresState("signedIn").stateMachine("session")
    #expect(await backend.outcome(.get, "https://a.com/me").hasPrefix("URLError"))
    let report = try #require(backend.journal.first?.unmatchedReport)
    #expect(report.contains("✗ state session expected signedIn, got initial"))
  }

  @Test func aManifestStubNamesItsMachine() throws {
    let manifest = try Manifest(
      data: Data(
        #"""
        {"stubs": [
          {"request": "POST /login", "response": {"status": 204}, "setsState": "signedIn", "stateMachine": "session"},
          {"request": "GET /me", "response": {"text": "ada"}, "requiresState": "signedIn", "stateMachine": "session"}
        ]}
        """#.utf8), url: URL(fileURLWithPath: "/tmp/doppel.json"))
    let backend = try Backend(manifest: manifest, scenario: .base, issueReporter: .ignore)
    #expect(backend.stubs.map(\.stateMachine) == ["session", "session"])
    #expect(
      throws: DoppelError(
        #"/tmp/doppel.json:1:79: stubs[0].stateMachine: expected a state machine name, found an empty string."#)
    ) {
      try Manifest(
        data: Data(#"{"stubs": [{"request": "/", "response": {}, "setsState": "a", "stateMachine": ""}]}"#.utf8),
        url: URL(fileURLWithPath: "/tmp/doppel.json"))
    }
  }
}
