import Doppel
import Foundation
import TestSupport
import Testing

@Suite struct ResponseTests {
  @Test func contentTypeAndLengthDefaults() async throws {
    let backend = quietBackend()
    backend.stub(.get("/text"), .text("héllo"))
    backend.stub(.get("/data"), .data(Data([0, 1, 2])))
    backend.stub(.get("/typed"), .json(raw: "{}", headers: ["Content-Type": "application/vnd.cat+json"]))
    backend.stub(.get("/empty"), .status(201))
    let text = try await backend.send(.get, "https://a.com/text").response
    #expect(text.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
    #expect(text.value(forHTTPHeaderField: "Content-Length") == "6")
    let data = try await backend.send(.get, "https://a.com/data").response
    #expect(data.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    let typed = try await backend.send(.get, "https://a.com/typed").response
    #expect(typed.value(forHTTPHeaderField: "Content-Type") == "application/vnd.cat+json")
    let empty = try await backend.send(.get, "https://a.com/empty").response
    #expect(empty.statusCode == 201)
    #expect(empty.value(forHTTPHeaderField: "Content-Type") == nil)
    #expect(empty.value(forHTTPHeaderField: "Content-Length") == "0")
    backend.stub(.get("/nothing"), .status(204))
    let nothing = try await backend.send(.get, "https://a.com/nothing").response
    #expect(nothing.value(forHTTPHeaderField: "Content-Length") == nil)
  }

  @Test func headKeepsTheLengthButSendsNoBody() async throws {
    let backend = quietBackend()
    backend.stub(.url("/doc"), .text("twelve bytes"))
    let (body, response) = try await backend.send(.head, "https://a.com/doc")
    #expect(body == "")
    #expect(response.value(forHTTPHeaderField: "Content-Length") == "12")
  }

  @Test func jsonWithACustomEncoder() async throws {
    struct Breed: Encodable { let knownFor: String }
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let backend = quietBackend()
    backend.stub(.get("/breed"), .json(Breed(knownFor: "agility"), encoder: encoder))
    #expect(try await backend.send(.get, "https://a.com/breed").body == #"{"known_for":"agility"}"#)
  }

  @Test func modifiers() {
    let response = Response.json(["a": 1]).status(201).header("Location", "/orders/7").headers(["X-A": "1"])
    #expect(response.status == 201)
    #expect(response.headers["location"] == "/orders/7")
    #expect(response.headers["X-A"] == "1")
  }

  @Test func fileBodiesAreReadWhenAnswering() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("breeds.json")
    try Data(#"[{"name":"Bengal"}]"#.utf8).write(to: file)
    let backend = quietBackend()
    backend.stub(.get("/breeds.json"), .file(file))
    let (body, response) = try await backend.send(.get, "https://a.com/breeds.json")
    #expect(body == #"[{"name":"Bengal"}]"#)
    #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
  }

  /// A file body is kept between requests while the file is unchanged, and read again when it
  /// changes, even to the same size, and even when it was just written (the file clock is coarse).
  @Test func anEditedFixtureIsServedAsEdited() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("cat.json")
    func write(_ text: String, secondsAgo: Double?) throws {
      try Data(text.utf8).write(to: file)
      if let secondsAgo {
        try FileManager.default.setAttributes(
          [.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)], ofItemAtPath: file.path)
      }
    }
    let backend = quietBackend()
    backend.stub(.get("/cat.json"), .file(file))
    func body(_ path: String = "/cat.json") async throws -> String {
      try await backend.send(.get, "https://a.com\(path)").body
    }
    try write(#"{"n":1}"#, secondsAgo: 60)
    #expect(try await body() == #"{"n":1}"#)
    #expect(try await body() == #"{"n":1}"#)
    try write(#"{"n":2}"#, secondsAgo: 30)
    #expect(try await body() == #"{"n":2}"#)
    // Written just now, twice within the same tick of the file clock, with the same size.
    try write(#"{"n":3}"#, secondsAgo: nil)
    #expect(try await body() == #"{"n":3}"#)
    try write(#"{"n":4}"#, secondsAgo: nil)
    #expect(try await body() == #"{"n":4}"#)
    try FileManager.default.removeItem(at: file)
    await #expect(throws: URLError.self) { try await body() }
  }

  @Test func aMissingFileFailsTheRequestNamingThePath() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let missing = URL(fileURLWithPath: "/nonexistent/doppel/breeds.json")
    backend.stub(.get("/breeds.json"), .file(missing))
    do {
      _ = try await backend.send(.get, "https://a.com/breeds.json")
      Issue.record("expected a failure")
    } catch let error as URLError {
      #expect(error.code == .resourceUnavailable)
      #expect(
        error.localizedDescription
          == "Could not read the response body file /nonexistent/doppel/breeds.json: no such file. Check that the file exists and is readable; for a fixture shipped with a target, declare it in the target's resources and load it with .resource(_:withExtension:in:)."
      )
    }
    #expect(issues.all.count == 1)
  }

  @Test func aMissingBundleResourceNamesItAndTheBundle() throws {
    let response = Response.resource("nope", withExtension: "json", in: .main)
    let message = try #require(throws: DoppelError.self) { try response.bodyData() }.message
    #expect(message.hasPrefix("The resource nope.json is not in the bundle at "))
    #expect(
      message.hasSuffix(
        "Add it to the target's resources in Package.swift (for example resources: [.copy(\"Fixtures\")]) and pass subdirectory: when it is inside a folder."
      ))
  }

  @Test func unencodableJSONFailsClearly() async {
    struct Bad: Encodable {
      func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "nope"))
      }
    }
    let backend = quietBackend()
    backend.stub(.get("/bad"), .json(Bad()))
    #expect(await backend.outcome(.get, "https://a.com/bad") == "URLError -1008")
    #expect(
      backend.journal.first.map { "\($0.error!)" }?.hasPrefix("Could not encode Bad as the JSON body of a response:")
        == true)
  }

  @Test func aStatusOutsideHTTPIsRejected() async {
    let backend = quietBackend()
    backend.stub(.get("/x"), .status(42))
    #expect(await backend.outcome(.get, "https://a.com/x") == "URLError -1008")
  }
}

@Suite struct ResponseProblemTests {
  @Test func aMissingBundleResourceIsReportedWhenTheStubIsMade() throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let line = #line + 1
    backend.stub(.get("/x"), .resource("nope", withExtension: "json", in: .main))
    let issue = try #require(issues.all.first)
    #expect(issue.location?.line == line)
    #expect(issue.message.hasPrefix("Invalid stub: The resource nope.json is not in the bundle at "))
    #expect(backend.problems.count == 1)
  }

  @Test func anEmptySequenceIsReportedWhenTheStubIsMade() {
    let backend = quietBackend()
    backend.stub(.get("/x"), .sequence([]))
    #expect(
      backend.problems.map(\.message) == [
        "Invalid stub: The stub has an empty .sequence([]). Give it at least one response."
      ])
  }
}
