import Doppel
import Foundation
import TestSupport
import Testing

@Suite struct InvalidInputTests {
  @Test(
    arguments: Example.list([
      (
        "ht tp://x",
        "Invalid URL \"ht tp://x\" in a stub: it contains a space at offset 2; percent-encode it (a space is %20). Write an absolute URL such as \"https://api.example.com/breeds.json\" or a path such as \"/breeds.json\"."
      ),
      (
        "breeds.json",
        "Invalid URL \"breeds.json\" in a stub: it is neither an absolute URL (scheme://host/path) nor a path starting with \"/\". Write an absolute URL such as \"https://api.example.com/breeds.json\" or a path such as \"/breeds.json\"."
      ),
      (
        "https:///breeds",
        "Invalid URL \"https:///breeds\" in a stub: it has no host. Write an absolute URL such as \"https://api.example.com/breeds.json\" or a path such as \"/breeds.json\"."
      ),
      (
        "https://a.com:99999/x",
        "Invalid URL \"https://a.com:99999/x\" in a stub: the port \"99999\" is not a number from 1 to 65535. Write an absolute URL such as \"https://api.example.com/breeds.json\" or a path such as \"/breeds.json\"."
      ),
      (
        "",
        "Invalid URL \"\" in a stub: it is empty. Write an absolute URL such as \"https://api.example.com/breeds.json\" or a path such as \"/breeds.json\"."
      ),
    ]))
  func invalidURLsGiveAClearProblem(example: Example<String, String>) {
    let (url, message) = (example.input, example.expected)
    let matcher = Matcher.get(url)
    #expect(matcher.problem?.message == message)
    #expect(!matcher.matches(request("https://a.com/breeds")))
  }

  @Test func invalidTemplatesAndPatterns() {
    #expect(
      Matcher.path("/users/{id").problem?.message
        == "Invalid path template \"/users/{id\" in a stub: a \"{\" is never closed. Write parameters as /users/{id}.")
    #expect(
      Matcher.path("/users/{id}/{id}").problem?.message
        == "Invalid path template \"/users/{id}/{id}\" in a stub: the parameter {id} appears twice. Write parameters as /users/{id}."
    )
    #expect(
      Matcher.path(regex: "([a-z").problem?.message.hasPrefix(
        "Invalid regular expression \"([a-z\" for the path in a stub:") == true)
  }

  @Test func anInvalidStubIsReportedAtRegistrationWithItsLocation() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let line = #line + 1
    backend.stub(.get("ht tp://x"), .ok)
    let issue = try #require(issues.all.first)
    #expect(issue.location?.line == line)
    #expect(issue.location?.fileName == "StubURLTests.swift")
    #expect(issue.message.hasPrefix("Invalid stub: Invalid URL \"ht tp://x\" in a stub: it contains a space"))
    #expect(backend.problems.count == 1)
  }

  @Test func aZeroTimesLimitIsAProblem() {
    let backend = quietBackend()
    backend.stub(.get("/x"), .ok, times: 0)
    #expect(
      backend.problems.map(\.message) == [
        "Invalid stub: times: 0 is not allowed; a stub answers at least once. Remove the stub instead, or pass times: 1 or more."
      ])
  }
}
