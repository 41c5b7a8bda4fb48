#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport
  import Testing

  @Suite struct AnswerValidationTests {
    /// A backend that checks GraphQL traffic against the schema and answers `operation` with
    /// `answer`, written by hand.
    func messages(for query: String, operation: String, variables: JSONValue? = nil, answer: JSONValue) async throws
      -> [String]
    {
      let collected = Collected()
      try collected.backend.validate(againstGraphQLSchema: Schemas.social, at: .url(Schemas.endpoint.absoluteString))
      collected.backend.stub(.graphQL(operation: operation), .json(answer))
      _ = try await collected.backend.send(query, operationName: operation, variables: variables)
      return collected.messages
    }

    @Test func aConformingAnswerHasNoProblem() async throws {
      let answer: JSONValue = [
        "data": [
          "user": [
            "__typename": "User", "id": "1", "displayName": "Ada", "age": nil,
            "pets": [["__typename": "Pet", "name": "Tom"]],
          ]
        ]
      ]
      #expect(
        try await messages(for: Operations.user, operation: "UserProfile", variables: ["id": "1"], answer: answer) == []
      )
      #expect(
        try await messages(
          for: Operations.user, operation: "UserProfile", variables: ["id": "1"], answer: ["data": ["user": nil]]) == []
      )
    }

    @Test func missingWrongTypeExtraAndNull() async throws {
      let answer: JSONValue = [
        "data": [
          "user": [
            "__typename": "User", "id": "1", "age": "36", "nickname": "ada",
            "pets": [["__typename": "Pet", "name": "Tom"], ["__typename": "Pet", "name": nil]],
          ]
        ]
      ]
      let found = try await messages(
        for: Operations.user, operation: "UserProfile", variables: ["id": "1"], answer: answer)
      #expect(
        found == [
          #"GraphQL: UserProfile (answer) $.data.user.nickname: the operation does not select "nickname" on User; remove it from the answer"#,
          #"GraphQL: UserProfile (answer) $.data.user.displayName: the selected field "displayName" is missing (social.graphql:38 User.displayName)"#,
          #"GraphQL: UserProfile (answer) $.data.user.age: expected an Int (a whole number of 32 bits), found the string "36" (social.graphql:42 User.age)"#,
          #"GraphQL: UserProfile (answer) $.data.user.pets[1].name: null for the non-null type String!; a server would have made the parent null (social.graphql:57 Pet.name)"#,
        ])
    }

    @Test func enumValuesAndTypenamesOfAbstractTypes() async throws {
      let answer: JSONValue = [
        "data": [
          "search": [
            ["__typename": "Pet", "id": "p1", "name": "Tom", "species": "HAMSTER"],
            ["__typename": "Organisation", "id": "o1"],
            [
              "__typename": "Post", "id": "x",
              "author": ["__typename": "User", "displayName": 5],
              "attachments": [["__typename": "Photo", "url": "https://a.test/p.png", "width": 1.5]],
            ],
          ]
        ]
      ]
      let found = try await messages(
        for: Operations.search, operation: "Search", variables: ["text": "t"], answer: answer)
      #expect(
        found == [
          #"GraphQL: Search (answer) $.data.search[0].species: expected one of Species's values (CAT, DOG, RABBIT), found the string "HAMSTER" (social.graphql:58 Pet.species)"#,
          #"GraphQL: Search (answer) $.data.search[1].__typename: "Organisation" is not a type of SearchResult (its types are Pet, Post, User) (social.graphql:85 SearchResult)"#,
          #"GraphQL: Search (answer) $.data.search[2].author.displayName: expected a String, found the number 5 (social.graphql:38 User.displayName)"#,
          #"GraphQL: Search (answer) $.data.search[2].attachments[0].width: expected an Int (a whole number of 32 bits), found the number 1.5 (social.graphql:74 Photo.width)"#,
        ])
    }

    @Test func theSchemaStubsOwnAnswersAreNotReportedAndAnswersOfErrorsAreSkipped() async throws {
      let collected = Collected()
      try collected.backend.addStub(fromGraphQLSchema: Schemas.social, at: .url(Schemas.endpoint.absoluteString))
      collected.backend.stub(.graphQL(operation: "Down"), .json(["errors": [["message": "down"]]], status: 503))
      _ = try await collected.backend.send(Operations.search, operationName: "Search", variables: ["text": "t"])
      _ = try await collected.backend.send("query Down { viewer { id } }", operationName: "Down")
      #expect(collected.messages == [])
    }
  }
#endif
