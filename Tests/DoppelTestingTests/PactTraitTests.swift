import Foundation
import Testing

@testable import DoppelTesting

/// `.doppel(pact:)`: the trait writes the test's contract when it returns.
@Suite struct PactTraitTests {
  static let breeds: @Sendable (Backend) async throws -> Void = {
    $0.stub(.get("/breeds"), .json(["Abyssinian"]), name: "breeds")
  }

  @Test func theTraitWritesThePactWhenTheTestReturns() async throws {
    let folder = CassetteTraitTests.folder()
    let issues = IssueLog()
    try await CassetteTraitTests.run(.doppel(pact: "App-BreedsAPI", pactDirectory: folder, Self.breeds), issues: issues)
    {
      _ = try await Backend.current.session.data(from: URL(string: "https://api.example.com/breeds")!)
    }
    #expect(issues.messages.isEmpty)
    let text = String(
      decoding: try Data(contentsOf: folder.appendingPathComponent("App-BreedsAPI.json")), as: UTF8.self)
    #expect(text.contains(#""description" : "breeds""#))
    #expect(text.contains(#""name" : "App""#) && text.contains(#""name" : "BreedsAPI""#))
    // Only the pact: nothing else in the folder.
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["App-BreedsAPI.json"])
  }

  @Test func aTestThatThrowsWritesNothing() async throws {
    let folder = CassetteTraitTests.folder()
    struct Failure: Error {}
    await #expect(throws: Failure.self) {
      try await CassetteTraitTests.run(.doppel(pact: "App-API", pactDirectory: folder, Self.breeds), issues: IssueLog())
      {
        _ = try await Backend.current.session.data(from: URL(string: "https://api.example.com/breeds")!)
        throw Failure()
      }
    }
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("App-API.json").path))
  }

  @Test func anUnwritableFolderFailsTheTestWithTheReason() async throws {
    let folder = CassetteTraitTests.folder()
    let blocker = folder.appendingPathComponent("pacts")
    try Data("a file, not a folder".utf8).write(to: blocker)
    let (_, issues) = await IssueCapture.capture {
      try await CassetteTraitTests.run(.doppel(pact: "App-API", pactDirectory: blocker), issues: IssueLog()) {}
    }
    #expect(issues.count == 1)
    let text = try #require(issues.first).message
    #expect(text.contains("Could not write the pact \(blocker.path)/App-API.json: "))
    #expect(text.contains("Check that the folder is writable, or write the pact to another folder."))
  }

  @Test func aPactWithoutAProviderFailsTheTestWithTheFix() async throws {
    let (_, issues) = await IssueCapture.capture {
      try await CassetteTraitTests.run(
        .doppel(pact: "BreedsApp", pactDirectory: CassetteTraitTests.folder()), issues: IssueLog()
      ) {}
    }
    #expect(issues.count == 1)
    #expect(
      try #require(issues.first).message.contains(
        #"Invalid pact "BreedsApp" in .doppel(pact:): name the consumer and the provider joined by "-", such as "BreedsApp-BreedsAPI""#
      ))
  }

  @Test func thePactGoesInPactDirectoryElseDOPPEL_PACT_DIRElseInThePackagesPactsFolder() throws {
    let test = try #require(Test.current)
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let given = URL(fileURLWithPath: "/tmp/given", isDirectory: true)
    func folder(_ directory: URL?, _ environment: [String: String]) -> String {
      PactOptions(pair: "App-API", directory: directory, redaction: .default)
        .folder(for: test, environment: environment).path
    }
    #expect(folder(given, ["DOPPEL_PACT_DIR": "/tmp/env"]) == "/tmp/given")
    #expect(folder(nil, ["DOPPEL_PACT_DIR": "/tmp/env"]) == "/tmp/env")
    #expect(folder(nil, [:]) == package.appendingPathComponent("pacts").path)
    #expect(
      try PactOptions(pair: "App-Breeds-API", directory: nil, redaction: .default).names() == ("App", "Breeds-API"))
  }

  @Test func onlyThePactFormWritesAPact() {
    #expect(DoppelTrait.doppel.pact == nil)
    #expect(DoppelTrait.doppel(cassette: "breeds").pact == nil)
    #expect(DoppelTrait.doppel(pact: "App-API").pact?.pair == "App-API")
  }
}
