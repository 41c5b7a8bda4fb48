import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// How a request is read as a GraphQL operation: its summary in near-miss reports and the operation
/// name found in a document.
@Suite struct GraphQLRequestTests {
  /// The request builders of the behaviour tests.
  private let requests = GraphQLMatcherTests()

  @Test func anAnonymousOperationIsAGraphQLRequestWithoutAName() throws {
    let anonymous = try requests.post(["query": "{ breeds { name } }"])
    #expect(GraphQLRequest(anonymous)?.summary == "an anonymous operation")
    #expect(!Matcher.graphQL(operation: "Breeds").matches(anonymous))
    #expect(GraphQLRequest(try requests.post(["sku": "A1"])) == nil)
    #expect(GraphQLRequest(try requests.get(["query": "query { breeds }"]))?.summary == "an anonymous operation")
    #expect(
      Matcher.graphQL(operation: "Breeds").check(anonymous).map(\.actual) == ["an anonymous operation"])
    #expect(
      Matcher.graphQL(operation: "Breeds").check(try requests.post(["sku": "A1"])).map(\.actual) == [
        "not a GraphQL request"
      ])
  }

  @Test(
    arguments: Example.list(
      [
        ("query Breeds { breeds { name } }", "Breeds"),
        ("mutation AddBreed($name: String!) { addBreed(name: $name) { id } }", "AddBreed"),
        ("subscription BreedAdded { breedAdded { name } }", "BreedAdded"),
        ("# query Commented\nquery Real { a }", "Real"),
        ("fragment Parts on Breed { name }\nquery WithFragment { breeds { ...Parts } }", "WithFragment"),
        (#"query Named { search(text: "query Inner {") { id } }"#, "Named"),
        (#"{ search(text: """query Inner""") { id } } query Second { b }"#, "Second"),
        ("{ breeds { query } }", nil),
        ("query { breeds }", nil),
        ("query($page: Int) { breeds(page: $page) }", nil),
        ("", nil),
        ("not graphql at all {{{", nil),
      ] as [(String, String?)]))
  func findsTheFirstOperationName(example: Example<String, String?>) {
    let (document, name) = (example.input, example.expected)
    #expect(GraphQLRequest.operationName(inDocument: document) == name)
  }
}
