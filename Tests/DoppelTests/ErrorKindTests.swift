import Doppel
import Foundation
import Testing

/// A program can handle Doppel's errors: each carries a kind a `switch` matches and, where Doppel
/// knows it, where the problem is; its message (and what it prints as) is unchanged.
@Suite struct ErrorKindTests {
  private func error(_ body: () throws -> Void) -> DoppelError? {
    do {
      try body()
      return nil
    } catch {
      return error as? DoppelError
    }
  }

  @Test func aManifestErrorIsOfKindManifestAndNamesItsFirstProblemsPosition() throws {
    let url = URL(fileURLWithPath: "/App/doppel.json")
    let json = "{\n  \"stubs\": [\n    {\"request\": \"/a\", \"response\": {\"status\": 200,}}\n  ]\n}"
    let failure = try #require(error { _ = try Manifest(data: Data(json.utf8), url: url) })
    #expect(failure.kind == .manifest)
    #expect(
      failure.message
        == #"/App/doppel.json:3:50: malformed JSON: expected a key after ",", found "}"; JSON does not allow a trailing comma."#
    )
    #expect("\(failure)" == failure.message)
    // What an alert or a log shows of any error: the message, not "The operation couldn't be completed."
    #expect(failure.localizedDescription == failure.message)
    #expect((failure as any Error).localizedDescription == failure.message)
    #expect(failure.location?.filePath == "/App/doppel.json")
    #expect(failure.location?.fileName == "doppel.json")
    #expect(failure.location?.line == 3)
    #expect(failure.location?.column == 50)

    let problems = #"{"stubs": [{"request": "GET /a", "response": {"status": 200}}, {"request": "/b"}], "seed": "x"}"#
    let second = try #require(error { _ = try Manifest(data: Data(problems.utf8), url: url) })
    #expect(second.kind == .manifest)
    // Several problems, one line each in the order of the file: the location is the first one's.
    let location = try #require(second.location)
    #expect(second.message.split(separator: "\n").count >= 2)
    #expect(second.message.hasPrefix("/App/doppel.json:\(location.line):\(location.column): "))
  }

  @Test func aCassetteErrorIsOfKindCassetteAndNamesItsPosition() throws {
    let failure = try #require(
      error { _ = try Cassette(data: Data("{\"log\": {\"entries\": [".utf8), file: "bad.har") })
    #expect(failure.kind == .cassette)
    #expect(
      failure.message
        == "bad.har:1:22: malformed JSON: the file ends where a value was expected. A HAR file is one JSON document; check that the export finished and that the file was not cut short."
    )
    #expect(failure.location?.fileName == "bad.har")
    #expect(failure.location?.line == 1)
    #expect(failure.location?.column == 22)
  }

  @Test func aMissingBodyFileIsOfKindFile() throws {
    let response = Response.file(URL(fileURLWithPath: "/nonexistent/doppel-breeds.json"))
    let failure = try #require(error { _ = try response.bodyData() })
    #expect(failure.kind == .file)
    #expect(failure.message.hasPrefix("Could not read the response body file /nonexistent/doppel-breeds.json: "))
  }

  @Test func aStubThatCannotAnswerIsOfKindInvalidStubAndMisuseOfKindUsage() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/odd"), .status(1000))
    do {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/odd")!))
      Issue.record("a status of 1000 was answered")
    } catch let failure as DoppelError {
      switch failure.kind {
      case .invalidStub:
        #expect(
          failure.message
            == "A stub answered with status 1000, which is not an HTTP status. Use a status from 100 to 599, or .error(...) for a failure."
        )
      default:
        Issue.record("kind \(failure.kind), expected invalidStub")
      }
    }
    let request = Request(method: .get, url: URL(string: "https://a.com/x")!)
    let misuse = try #require(error { _ = try request.decodeJSON([String].self) })
    #expect(misuse.kind == .usage)
    #expect(misuse.message == "GET https://a.com/x has no body to decode as Array<String>.")
  }

  @Test func aRequestToAStubThatCannotAnswerFailsWithTheStubsDeclaration() async throws {
    let backend = Backend(issueReporter: .ignore)
    let line = #line + 1
    backend.stub(.get("/twice"), .sequence([.ok], then: .fail))
    _ = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/twice")!))
    do {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/twice")!))
      Issue.record("a sequence of one answered twice")
    } catch let failure as DoppelError {
      #expect(failure.kind == .invalidStub)
      #expect(failure.location?.fileName == "ErrorKindTests.swift")
      #expect(failure.location?.filePath == #filePath)
      #expect(failure.location?.line == line)
      #expect(
        failure.message
          == "The stub declared at ErrorKindTests.swift:\(line) (GET /twice) answered all 1 responses of its sequence; this was call 2. Add responses, or use .sequence(_:then: .repeatLast) or .cycle."
      )
    }
  }

  @Test func aStubThatCannotBeSentToAServerFailsWithItsDeclaration() async throws {
    // Refused before anything is sent: nothing listens on port 1.
    let remote = DoppelRemote(URL(string: "http://127.0.0.1:1")!)
    let line = #line + 1
    let failure = await #expect(throws: DoppelError.self) { try await remote.stub(.get("/me"), .handler { _ in .ok }) }
    #expect(failure?.kind == .invalidStub)
    #expect(failure?.location?.fileName == "ErrorKindTests.swift")
    #expect(failure?.location?.line == line)
  }

  @Test func anUnmatchedRequestUnwrapsAsKindUnmatchedRequestWithItsReport() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://a.com/breeds"), .ok)
    do {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/breed")!))
      Issue.record("an unmatched request was answered")
    } catch {
      // The caller gets what URLSession gives when no server answers.
      #expect((error as? URLError)?.code == .resourceUnavailable)
      let failure = try #require(DoppelError(unwrapping: error))
      #expect(failure.kind == .unmatchedRequest)
      #expect(failure.location == nil)
      #expect(failure.message.hasPrefix("No stub matched GET https://a.com/breed\nClosest stubs:\n"))
      #expect(failure.message.contains(#"✗ path   expected "/breeds", got "/breed""#))
    }
    // A Doppel error unwraps as itself; any other error as nil.
    #expect(DoppelError(unwrapping: DoppelError("x", kind: .file))?.kind == .file)
    #expect(DoppelError(unwrapping: URLError(.timedOut)) == nil)
    #expect(DoppelError(unwrapping: CocoaError(.fileNoSuchFile)) == nil)
  }

  @Test func anErrorMadeByHandStaysUsageWithoutALocation() {
    let made = DoppelError("Something went wrong.")
    #expect(made.kind == .usage)
    #expect(made.location == nil)
    #expect(made == DoppelError("Something went wrong.", kind: .file))
    // Kinds are values a module can add to; each prints its name as Swift spells it.
    #expect(DoppelError.Kind.usage.description == "usage")
    #expect(DoppelError.Kind("manifest") == .manifest)
    #expect(
      [DoppelError.Kind.invalidStub, .unmatchedRequest, .file, .manifest, .cassette, .server, .usage].map(\.name)
        == ["invalidStub", "unmatchedRequest", "file", "manifest", "cassette", "server", "usage"])
  }
}
