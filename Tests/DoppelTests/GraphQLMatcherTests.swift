import Doppel
import Foundation
import TestSupport
import Testing

/// `.graphQL(operation:variables:)` and `.graphQL(persistedQueryHash:)`: the forms GraphQL clients
/// send, the manifest's `graphql`, the wire to a stub server, and the near-miss report.
@Suite struct GraphQLMatcherTests {
  private let endpoint = "https://api.example.com/graphql"

  /// A `POST` with a JSON body, as Apollo and most clients send it.
  func post(_ body: JSONValue, headers: HTTPHeaders = ["Content-Type": "application/json"]) throws -> Request {
    Request(
      method: .post, url: URL(string: endpoint)!, headers: headers, body: try JSONEncoder().encode(body))
  }

  /// A `GET` with the operation in query items (`variables` and `extensions` as JSON text).
  func get(_ items: [String: String]) throws -> Request {
    var components = try #require(URLComponents(string: endpoint))
    components.queryItems = items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
    return Request(method: .get, url: try #require(components.url))
  }

  @Test func matchesTheOperationNameAndASubsetOfTheVariables() throws {
    let matcher = Matcher.graphQL(operation: "Breeds", variables: ["page": 2, "filter": ["origin": "Egypt"]])
    let query = "query Breeds($page: Int, $filter: Filter) { breeds(page: $page, filter: $filter) { name } }"
    #expect(
      matcher.matches(
        try post([
          "query": .string(query), "operationName": "Breeds",
          "variables": ["page": 2, "size": 20, "filter": ["origin": "Egypt", "coat": "short"]],
        ])))
    #expect(!matcher.matches(try post(["query": .string(query), "operationName": "Breeds", "variables": ["page": 3]])))
    #expect(!matcher.matches(try post(["query": .string(query), "operationName": "Breeds"])))
    #expect(!matcher.matches(try post(["query": "query Owners { owners { name } }", "variables": ["page": 2]])))
    #expect(Matcher.graphQL(operation: "Breeds").matches(try post(["query": .string(query)])))
  }

  @Test func exactVariablesRequireTheSameVariables() throws {
    let matcher = Matcher.graphQL(operation: "Breeds", variables: ["page": 2], exactVariables: true)
    #expect(matcher.matches(try post(["operationName": "Breeds", "query": "{ breeds }", "variables": ["page": 2]])))
    #expect(
      !matcher.matches(
        try post(["operationName": "Breeds", "query": "{ breeds }", "variables": ["page": 2, "size": 20]])))
    let none = Matcher.graphQL(operation: "Breeds", exactVariables: true)
    #expect(none.matches(try post(["operationName": "Breeds", "query": "{ breeds }"])))
    #expect(none.matches(try post(["operationName": "Breeds", "query": "{ breeds }", "variables": .null])))
    #expect(!none.matches(try post(["operationName": "Breeds", "query": "{ breeds }", "variables": ["page": 1]])))
  }

  @Test func variablesMayBeAnyEncodableValue() throws {
    struct Page: Encodable { let page: Int }
    let request = try post(["operationName": "Breeds", "query": "{ breeds }", "variables": ["page": 2, "size": 5]])
    #expect(Matcher.graphQL(operation: "Breeds", variables: Page(page: 2)).matches(request))
    let sizes: [String: Int] = ["size": 5]
    #expect(Matcher.graphQL(operation: "Breeds", variables: sizes).matches(request))
    #expect(!Matcher.graphQL(operation: "Breeds", variables: Page(page: 1)).matches(request))
  }

  @Test func readsTheGetForm() throws {
    let matcher = Matcher.graphQL(operation: "Breeds", variables: ["page": 2])
    #expect(
      matcher.matches(
        try get(["query": "query Breeds($page: Int) { breeds(page: $page) { name } }", "variables": #"{"page":2}"#])))
    #expect(matcher.matches(try get(["query": "{ breeds }", "operationName": "Breeds", "variables": #"{"page":2}"#])))
    #expect(!matcher.matches(try get(["query": "query Breeds { breeds }", "variables": "not json"])))
    #expect(!matcher.matches(try get(["page": "2"])))
  }

  @Test func readsAnApplicationGraphQLBody() {
    let matcher = Matcher.graphQL(operation: "Breeds")
    let body = "query Breeds { breeds { name } }"
    #expect(
      matcher.matches(
        request(.post, endpoint, headers: ["Content-Type": "application/graphql; charset=utf-8"], body: body)))
    #expect(!matcher.matches(request(.post, endpoint, headers: ["Content-Type": "text/plain"], body: body)))
  }

  @Test func matchesPersistedQueriesByHashOrByName() throws {
    let hash = "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"
    let persisted: JSONValue = ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]]
    let byHash = Matcher.graphQL(persistedQueryHash: hash, variables: ["page": 2])
    let byName = Matcher.graphQL(operation: "Breeds")
    let withName = try post(["operationName": "Breeds", "variables": ["page": 2], "extensions": persisted])
    let withoutName = try post(["variables": ["page": 2], "extensions": persisted])
    #expect(byHash.matches(withName))
    #expect(byHash.matches(withoutName))
    #expect(byName.matches(withName))
    #expect(!byName.matches(withoutName))
    #expect(!Matcher.graphQL(persistedQueryHash: "0000").matches(withName))
    let encoded = String(decoding: try JSONEncoder().encode(persisted), as: UTF8.self)
    let viaGet = try get(["operationName": "Breeds", "variables": #"{"page":2}"#, "extensions": encoded])
    #expect(byHash.matches(viaGet))
    #expect(byName.matches(viaGet))
  }

  @Test func servesThroughTheSession() async throws {
    let backend = quietBackend()
    backend.stub(.post("/graphql") && .graphQL(operation: "Breeds"), .json(["data": ["breeds": []]]))
    backend.stub(
      .post("/graphql") && .graphQL(operation: "Breeds", variables: ["page": 2]),
      .json(["data": ["breeds": [["name": "Bengal"]]]]))
    let body = try JSONEncoder().encode(
      ["query": "query Breeds($page: Int) { breeds(page: $page) { name } }", "variables": ["page": 2]] as JSONValue)
    let (text, response) = try await backend.send(.post, endpoint, body: body)
    #expect(response.statusCode == 200)
    #expect(text == #"{"data":{"breeds":[{"name":"Bengal"}]}}"#)
  }

  @Test func theNearMissReportNamesTheOperationSentAndTheOnesStubbed() throws {
    let backend = quietBackend()
    backend.stub(.post("/graphql") && .graphQL(operation: "Breeds", variables: ["page": 2]), .status(204), line: 1)
    backend.stub(.post("/graphql") && .graphQL(operation: "Owners"), .status(204), line: 2)
    backend.stub(.post("/graphql") && .graphQL(persistedQueryHash: "abc123"), .status(204), line: 3)
    let sent = request(.post, endpoint, body: #"{"query":"query Cats { cats }","variables":{"page":1}}"#)
    #expect(
      backend.nearMissReport(for: sent) == """
        No stub matched POST https://api.example.com/graphql
          body: "{"query":"query Cats { cats }","variables":{"page":1}}"
          GraphQL operation: Cats with variables {"page":1}
        Closest stubs:
          1. GraphQLMatcherTests.swift:2  POST /graphql, GraphQL Owners
               ✓ method            POST
               ✓ path              "/graphql"
               ✗ graphql operation expected Owners, got Cats
          2. GraphQLMatcherTests.swift:3  POST /graphql, GraphQL persisted query abc123
               ✓ method                  POST
               ✓ path                    "/graphql"
               ✗ graphql persisted query expected abc123, got no persisted query hash
          3. GraphQLMatcherTests.swift:1  POST /graphql, GraphQL Breeds, variables containing {"page":2}
               ✓ method            POST
               ✓ path              "/graphql"
               ✗ graphql operation expected Breeds, got Cats
               ✗ graphql variables expected containing {"page":2}, got {"page":1}
        GraphQL operations stubbed: Breeds with variables containing {"page":2}; Owners; persisted query abc123
        Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
          backend.stub(.post("https://api.example.com/graphql") && .graphQL(operation: "Cats"), .status(200))
          {"request":{"graphql":{"operation":"Cats"},"method":"POST","url":"https://api.example.com/graphql"},"response":{"status":200}}
        """)
  }

  @Test func invalidMatchersMatchNothingAndSayWhy() {
    #expect(
      Matcher.graphQL(operation: "").problem?.message
        == #"A GraphQL matcher's operation name is empty. Give the operation's name, such as "Breeds"."#)
    #expect(
      Matcher.graphQL(operation: "Breeds", variables: [1, 2]).problem?.message
        == #"The variables of a GraphQL matcher must be a JSON object, such as ["page": 2]; found [1,2]."#)
    #expect(
      Matcher.graphQL(persistedQueryHash: "").problem?.message
        == "A GraphQL matcher's persisted query hash is empty. Give the query's SHA-256 hash, as sent in extensions.persistedQuery.sha256Hash."
    )
  }

  // MARK: Manifest and wire

  @Test func theManifestDescribesGraphQLStubs() async throws {
    let backend = try Backend(
      manifest: manifest(
        """
        {"stubs": [
          {"request": {"method": "POST", "url": "/graphql", "graphql": {"operation": "Breeds", "variables": {"page": 2}}},
           "response": {"json": {"data": {"breeds": []}}}},
          {"request": {"graphql": {"persistedQueryHash": "abc", "variables": {}, "exactVariables": true}},
           "response": {"status": 204}}
        ]}
        """), scenario: .base)
    let stubs = backend.stubs
    #expect(stubs.count == 2)
    #expect(
      stubs[0].matcher.matches(
        try post(["operationName": "Breeds", "query": "{ breeds }", "variables": ["page": 2, "size": 3]])))
    #expect(
      !stubs[0].matcher.matches(try post(["operationName": "Owners", "query": "{ o }", "variables": ["page": 2]])))
    let persisted: JSONValue = ["persistedQuery": ["version": 1, "sha256Hash": "abc"]]
    #expect(stubs[1].matcher.matches(try post(["extensions": persisted])))
    #expect(!stubs[1].matcher.matches(try post(["extensions": persisted, "variables": ["page": 1]])))
  }

  @Test(
    arguments: Example.list([
      (
        #"{"stubs": [{"request": {"graphql": {"variables": {"page": 2}}}, "response": {}}]}"#,
        #"1:36: stubs[0].request.graphql: a GraphQL matcher needs "operation" (the operation's name, such as "Breeds") or "persistedQueryHash" (the SHA-256 hash a persisted query sends)."#
      ),
      (
        #"{"stubs": [{"request": {"graphql": {"operationName": "Breeds"}}, "response": {}}]}"#,
        #"1:37: stubs[0].request.graphql: unknown key "operationName". Did you mean "operation"? The keys of a GraphQL operation are: operation, persistedQueryHash, variables, exactVariables."#
      ),
      (
        #"{"stubs": [{"request": {"graphql": {"operation": "Breeds", "variables": [1]}}, "response": {}}]}"#,
        #"1:73: stubs[0].request.graphql.variables: expected the operation's variables (a JSON object such as {"page": 2}), found an array."#
      ),
      (
        #"{"stubs": [{"request": {"graphql": {"operation": ""}}, "response": {}}]}"#,
        #"1:50: stubs[0].request.graphql.operation: expected the operation's name, such as "Breeds", found an empty string."#
      ),
      (
        #"{"stubs": [{"request": {"graphql": {"operation": "A", "exactVariables": "yes"}}, "response": {}}]}"#,
        #"1:73: stubs[0].request.graphql.exactVariables: expected true or false, found the string "yes"."#
      ),
      (
        #"{"stubs": [{"request": {"graphql": "Breeds"}, "response": {}}]}"#,
        #"1:36: stubs[0].request.graphql: expected a GraphQL operation (a JSON object), found the string "Breeds"."#
      ),
    ]))
  func badGraphQLInTheManifestIsAnError(example: Example<String, String>) {
    let (json, message) = (example.input, example.expected)
    #expect(manifestError(json) == "\(manifestURL.relativePath):\(message)")
  }

  @Test func graphQLMatchersTravelToAStubServer() throws {
    let matcher =
      Matcher.post("/graphql")
      && .graphQL(operation: "Breeds", variables: ["page": 2], exactVariables: true)
    #expect(
      try matcher.manifestRequest()
        == [
          "method": "POST", "url": "/graphql",
          "graphql": ["operation": "Breeds", "variables": ["page": 2], "exactVariables": true],
        ])
    #expect(
      try Matcher.graphQL(persistedQueryHash: "abc").manifestRequest() == ["graphql": ["persistedQueryHash": "abc"]])
    let stub: JSONValue = ["request": try matcher.manifestRequest(), "response": ["status": 204]]
    let definition = try StubDefinition(
      parsing: try JSONEncoder().encode(stub), source: "request body", directory: URL(fileURLWithPath: "/tmp"))
    let sent = Backend(issueReporter: .ignore).register(definition).matcher
    let requests = [
      try post(["operationName": "Breeds", "query": "{ b }", "variables": ["page": 2]]),
      try post(["operationName": "Breeds", "query": "{ b }", "variables": ["page": 2, "size": 1]]),
      try post(["query": "query Breeds { b }", "variables": ["page": 2]]),
      try post(["operationName": "Owners", "query": "{ o }", "variables": ["page": 2]]),
    ]
    for request in requests {
      #expect(sent.matches(request) == matcher.matches(request), "\(request)")
    }
    #expect(requests.map(matcher.matches) == [true, false, true, false])
    #expect(
      throws: DoppelError(
        "The matcher GraphQL A, GraphQL B cannot be sent to a stub server: it has two \"graphql\" conditions (GraphQL B and another), which a manifest request cannot hold. Keep one."
      )
    ) { try (Matcher.graphQL(operation: "A") && .graphQL(operation: "B")).manifestRequest() }
  }

  /// A `GET`'s query items are form-encoded, as the GraphQL-over-HTTP spec, browsers and Python
  /// clients send them: `+` is a space (so the variables parse), and `%2B` is a plus sign.
  @Test func aGetsQueryItemsAreFormEncoded() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.graphQL(operation: "Breeds"), .text("any page"))
    backend.stub(.graphQL(operation: "Breeds", variables: ["page": 2]), .text("page 2"))
    backend.stub(.graphQL(operation: "Search", variables: ["q": "a+b c"], exactVariables: true), .text("a+b c"))
    let query = "query+Breeds(%24page%3A+Int)+%7B+breeds(page%3A+%24page)+%7B+name+%7D+%7D"
    let sent = [
      "\(endpoint)?query=\(query)&variables=%7B%22page%22%3A+2%7D",
      "\(endpoint)?query=%7B+breeds+%7D&operationName=Breeds&variables=%7B+%22page%22%3A+2+%7D",
      "\(endpoint)?query=query+Search+%7B+s+%7D&variables=%7B%22q%22%3A+%22a%2Bb+c%22%7D",
      "\(endpoint)?query=\(query)&variables=%7B%22page%22%3A+3%7D",
    ]
    var answers: [String] = []
    for url in sent {
      let (data, _) = try await backend.session.data(from: try #require(URL(string: url)))
      answers.append(String(decoding: data, as: UTF8.self))
    }
    #expect(answers == ["page 2", "page 2", "a+b c", "any page"])
    #expect(backend.unmatchedRequests.isEmpty)
  }
}
