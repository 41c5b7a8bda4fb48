import DoppelTesting
import Foundation
import Testing

/// Whether this process is the test binary itself, which a test can run again.
private let canRunTheTestBinaryAgain = CommandLine.arguments.first?.hasSuffix(".xctest") == true

/// A test that uses a backend gets the backend's traffic attached when it fails (or always, when
/// asked): checked by running the test binary again in a child process with
/// `--attachments-path`, as `swift test --attachments-path DIR` runs it, and reading the files back.
///
/// On Linux `swift test` runs the test binary itself (`….xctest`), which is run again here; on Apple
/// platforms it runs tests through a helper with other arguments, so there these tests are skipped
/// (only a Mac can confirm the attachments there, in Xcode's report or with
/// `swift test --attachments-path`).
@Suite(.enabled(if: canRunTheTestBinaryAgain, "needs the test binary itself (Linux's swift test)"))
struct AttachmentTests {

  /// What the child process runs, chosen by `DOPPEL_ATTACHMENT_CHILD`; in this process (unset)
  /// each child test passes at once without a request.
  static var childRole: String? { ProcessInfo.processInfo.environment["DOPPEL_ATTACHMENT_CHILD"] }

  @Test(.doppel { $0.stub(.get("https://api.example.com/breeds.json"), .json(Breed.all)) })
  func childMakesAnUnmatchedRequest() async {
    guard Self.childRole == "unmatched" else { return }
    #expect(await Backend.current.session.outcome("https://api.example.com/breeds.json") == "200")
    #expect(await Backend.current.session.outcome("https://api.example.com/breed.json") == "URLError -1008")
  }

  // `.always` in the child only: in this process the test would attach to a passing run.
  @Test(
    .doppel(attach: childRole == "always" ? .always : nil) {
      $0.stub(.get("https://api.example.com/breeds.json"), .json(Breed.all))
    })
  func childPassesWithAttachmentsAlways() async {
    guard Self.childRole == "always" else { return }
    #expect(await Backend.current.session.outcome("https://api.example.com/breeds.json") == "200")
  }

  @Test(.doppel { $0.stub(.get("https://api.example.com/breeds.json"), .json(Breed.all)) })
  func childFailsItsOwnExpectation() async {
    guard Self.childRole == "expectation" else { return }
    #expect(await Backend.current.session.outcome("https://api.example.com/breeds.json") == "404")
  }

  /// The files the child test `name` left in a fresh attachments folder, by name, and whether it
  /// passed.
  private func runChild(
    _ name: String, role: String, environment extra: [String: String] = [:]
  ) throws -> (passed: Bool, files: [String: String], output: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-attachments-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = folder.appendingPathComponent("output.txt")
    #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
    let attachments = folder.appendingPathComponent("attachments")
    try FileManager.default.createDirectory(at: attachments, withIntermediateDirectories: true)

    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = [
      "--testing-library", "swift-testing", "--filter", "AttachmentTests/\(name)", "--attachments-path",
      attachments.path,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["DOPPEL_ATTACHMENT_CHILD"] = role
    environment.removeValue(forKey: "DOPPEL_ATTACH")
    environment.merge(extra) { $1 }
    child.environment = environment
    // The child's report (with its failure) goes to a file: this run prints nothing of it.
    let handle = try FileHandle(forWritingTo: output)
    child.standardOutput = handle
    child.standardError = handle
    let ended = DispatchSemaphore(value: 0)
    child.terminationHandler = { _ in ended.signal() }
    try child.run()
    if ended.wait(timeout: .now() + 120) == .timedOut {
      child.terminate()
      Issue.record("the child test run did not end within 120 s")
      return (false, [:], "")
    }
    try handle.close()
    var files: [String: String] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: attachments.path) {
      files[name] = try String(contentsOf: attachments.appendingPathComponent(name), encoding: .utf8)
    }
    let printed = String(decoding: try Data(contentsOf: output), as: UTF8.self)
    return (child.terminationStatus == 0, files, printed)
  }

  @Test func aFailingTestGetsItsJournalAsHARAndEachNearMissReport() throws {
    let (passed, files, output) = try runChild("childMakesAnUnmatchedRequest", role: "unmatched")
    #expect(!passed)
    // Named after the suite and the test, so a folder of a run's attachments says whose each is.
    let prefix = "AttachmentTests.childMakesAnUnmatchedRequest-doppel-"
    #expect(files.keys.sorted() == ["\(prefix)journal.har", "\(prefix)unmatched-1.txt"])
    // The report's first line is the failure's headline, as the run prints it; the rest below.
    let line = try #require(output.split(separator: "\n").first { $0.contains("recorded an issue") })
    #expect(
      line.hasSuffix(
        "Test childMakesAnUnmatchedRequest() recorded an issue at AttachmentTests.swift:24:3: Caught error: No stub matched GET https://api.example.com/breed.json"
      ), "\(line)")
    #expect(output.contains("Closest stubs:\n"))
    let report = try #require(files["\(prefix)unmatched-1.txt"])
    #expect(report.hasPrefix("No stub matched GET https://api.example.com/breed.json\nClosest stubs:\n"))
    #expect(report.contains(#"backend.stub(.get("https://api.example.com/breed.json"), .status(200))"#))
    let har = try #require(files["\(prefix)journal.har"])
    // The HAR names the test and the run it comes from.
    let log = try #require(
      (try JSONSerialization.jsonObject(with: Data(har.utf8)) as? [String: Any])?["log"] as? [String: Any])
    let comment = try #require(log["comment"] as? String)
    #expect(
      comment.hasPrefix(
        "Doppel's journal of AttachmentTests/childMakesAnUnmatchedRequest() (AttachmentTests.swift:23), the test run of "
      ),
      "\(comment)")
    #expect(comment.range(of: #", process [0-9]+\.$"#, options: .regularExpression) != nil, "\(comment)")
    let cassette = try Cassette(data: Data(har.utf8))
    #expect(
      cassette.entries.map(\.request.url) == [
        "https://api.example.com/breeds.json", "https://api.example.com/breed.json",
      ])
    #expect(cassette.entries.map(\.response.status) == [200, 0])
  }

  @Test func aTestFailedByItsOwnExpectationGetsTheJournal() throws {
    let (passed, files, _) = try runChild("childFailsItsOwnExpectation", role: "expectation")
    #expect(!passed)
    #expect(files.keys.sorted() == ["AttachmentTests.childFailsItsOwnExpectation-doppel-journal.har"])
  }

  @Test func aPassingTestGetsNothingUnlessAskedAndTheEnvironmentWins() throws {
    let always = try runChild("childPassesWithAttachmentsAlways", role: "always")
    #expect(always.passed)
    #expect(always.files.keys.sorted() == ["AttachmentTests.childPassesWithAttachmentsAlways-doppel-journal.har"])
    let never = try runChild(
      "childPassesWithAttachmentsAlways", role: "always", environment: ["DOPPEL_ATTACH": "never"])
    #expect(never.passed)
    #expect(never.files.isEmpty)
    let failingButNever = try runChild(
      "childMakesAnUnmatchedRequest", role: "unmatched", environment: ["DOPPEL_ATTACH": "never"])
    #expect(!failingButNever.passed)
    #expect(failingButNever.files.isEmpty)
    let passingAlways = try runChild(
      "childFailsItsOwnExpectation", role: "none", environment: ["DOPPEL_ATTACH": "always"])
    #expect(passingAlways.passed)
    #expect(passingAlways.files.keys.sorted() == ["AttachmentTests.childFailsItsOwnExpectation-doppel-journal.har"])
  }
}
