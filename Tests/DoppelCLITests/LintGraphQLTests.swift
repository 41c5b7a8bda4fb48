#if Server && GraphQL
  import Doppel
  import Foundation
  import Testing

  /// `doppel lint --graphql`: the GraphQL requests of a cassette and their recorded answers,
  /// checked against a schema, at the entry's position; and a schema given as a file to check.
  @Suite(.timeLimit(.minutes(1))) struct LintGraphQLTests {
    /// One cassette entry: a `POST /graphql` sending `body` as Apollo iOS does, answered with
    /// `answer`.
    static func entry(_ body: JSONValue, answer: String) -> String {
      func quoted(_ text: String) -> String { JSONValue.string(text).description }
      return
        #"{"request": {"method": "POST", "url": "https://api.social.test/graphql", "headers": [{"name": "Content-Type", "value": "application/json"}], "postData": {"mimeType": "application/json", "text": "#
        + quoted(body.description)
        + #"}}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "#
        + quoted(answer) + "}}}"
    }

    /// A cassette of `entries`, one per line from line 2.
    static func cassette(entries: [String]) -> String {
      #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": ["#
        + "\n" + entries.joined(separator: ",\n") + "\n]}}\n"
    }

    /// One entry per line (from line 2), each a `POST /graphql` as Apollo iOS sends it, but the
    /// first, which is not GraphQL at all.
    static func cassette(_ exchanges: [(query: String, operation: String, answer: String)]) -> String {
      let health =
        #"{"request": {"method": "GET", "url": "https://api.social.test/health", "headers": []}, "response": {"status": 200, "headers": [], "content": {"mimeType": "text/plain", "text": "ok"}}}"#
      let entries = exchanges.map { exchange in
        entry(
          ["operationName": .string(exchange.operation), "query": .string(exchange.query)], answer: exchange.answer)
      }
      return cassette(entries: [health] + entries)
    }

    @Test func everyContradictionIsReportedAtItsEntry() async throws {
      let cassette = Self.cassette([
        ("query Me { viewer { __typename id } }", "Me", #"{"data":{"viewer":{"__typename":"User","id":"u1"}}}"#),
        ("query Name { viewer { id displayName } }", "Name", #"{"data":{"viewer":{"id":"u1"}}}"#),
        ("query Bad { viewer { nickname } }", "Bad", #"{"data":{"viewer":{"nickname":"x"}}}"#),
      ])
      let directory = try socialSchemaFolder(["recorded.har": cassette])
      let (status, output, error) = try await DoppelProcess.run(
        ["lint", "--graphql", "social.graphql", "recorded.har"], directory: directory)
      #expect(status == 1)
      #expect(
        output.split(separator: "\n").map(String.init) == [
          #"recorded.har:4:1: GraphQL: Name (answer) $.data.viewer.displayName: the selected field "displayName" is missing (social.graphql:38 User.displayName)"#,
          #"recorded.har:5:1: GraphQL: Bad (operation line 1, column 22): Cannot query field "nickname" on type "User". (social.graphql:36 User)"#,
        ])
      #expect(error == "doppel lint: 2 problems in 1 of 1 file.")
    }

    /// Apollo's automatic persisted queries: an entry that sends a query by its hash alone is
    /// checked with the text an entry of the same cassette registered for that hash; one whose
    /// text the cassette does not hold cannot be checked, and is not reported.
    @Test func aPersistedQuerySentByItsHashIsCheckedWithTheTextTheCassetteRegistered() async throws {
      let hash = "b23447320dddd6ea521ea2d9e14d4f66c9b4a4e98441573fd3e9feaba7f0d602"
      func persisted(_ hash: String) -> JSONValue { ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]] }
      let cassette = Self.cassette(entries: [
        Self.entry(
          [
            "operationName": "Name", "query": "query Name { viewer { id displayName } }", "extensions": persisted(hash),
          ],
          answer: #"{"data":{"viewer":{"id":"u1","displayName":"Ada"}}}"#),
        Self.entry(
          ["operationName": "Name", "extensions": persisted(hash)], answer: #"{"data":{"viewer":{"id":"u1"}}}"#),
        Self.entry(
          ["operationName": "Other", "extensions": persisted(String(repeating: "0", count: 64))],
          answer: #"{"data":{"viewer":{"nickname":"x"}}}"#),
      ])
      let directory = try socialSchemaFolder(["recorded.har": cassette])
      let (status, output, _) = try await DoppelProcess.run(
        ["lint", "--graphql", "social.graphql", "recorded.har"], directory: directory)
      #expect(status == 1)
      #expect(
        output.split(separator: "\n").map(String.init) == [
          #"recorded.har:3:1: GraphQL: Name (answer) $.data.viewer.displayName: the selected field "displayName" is missing (social.graphql:38 User.displayName)"#
        ])
    }

    /// A manifest's GraphQL stub names its operation, not the operation's text: its answer is
    /// checked against the schema's types, at the stub's line.
    @Test func aManifestsGraphQLStubsAnswersAreCheckedAgainstTheTypes() async throws {
      let manifest = """
        {
          "stubs": [
            {"request": {"graphql": {"operation": "Me"}}, "response": {"json": {"data": {"viewer": {"__typename": "User", "displayName": "Ada", "role": "ADMIN"}}}}},
            {"request": {"graphql": {"operation": "Pets"}}, "response": {"json": {"data": {"pets": [{"name": 5, "species": "DRAGON", "colour": "red"}]}}}},
            {"request": {"graphql": {"operation": "Node"}}, "response": {"json": {"data": {"node": {"__typename": "Photo", "id": "p1"}}}}},
            {"request": {"graphql": {"operation": "Post"}}, "response": {"json": {"data": {"createPost": {"post": null}}}}},
            {"request": "GET /health", "response": {"json": {"data": {"nope": 1}}}}
          ]
        }
        """
      let directory = try socialSchemaFolder(["doppel.json": manifest])
      let (status, output, _) = try await DoppelProcess.run(
        ["lint", "--graphql", "social.graphql", "doppel.json"], directory: directory)
      #expect(status == 1)
      #expect(
        output.split(separator: "\n").map(String.init) == [
          #"doppel.json:4:5: GraphQL: Pets (answer) $.data.pets[0].colour: Pet has no field "colour". Answer only fields of the type (an alias cannot be told from the operation's name alone) (social.graphql:55 Pet)"#,
          #"doppel.json:4:5: GraphQL: Pets (answer) $.data.pets[0].name: expected a String, found the number 5 (social.graphql:57 Pet.name)"#,
          #"doppel.json:4:5: GraphQL: Pets (answer) $.data.pets[0].species: expected one of Species's values (CAT, DOG, RABBIT), found the string "DRAGON" (social.graphql:58 Pet.species)"#,
          #"doppel.json:5:5: GraphQL: Node (answer) $.data.node.__typename: "Photo" is not a type of Node (its types are Organisation, Pet, Post, User) (social.graphql:14 Node)"#,
        ])
    }

    @Test func aSchemaIsCheckedAsServeWouldReadIt() async throws {
      let directory = try socialSchemaFolder(["broken.graphql": "type Query {\n  viewer User\n}\n"])
      let good = try await DoppelProcess.run(["lint", "social.graphql"], directory: directory)
      #expect(good.status == 0)
      #expect(good.output == "No problems in 1 file.")
      let broken = try await DoppelProcess.run(["lint", "broken.graphql"], directory: directory)
      #expect(broken.status == 1)
      #expect(
        broken.output
          == "broken.graphql:2:10: the GraphQL schema is invalid: syntax error: Expected :, found Name \"User\". Fix the SDL there."
      )
    }
  }
#endif
