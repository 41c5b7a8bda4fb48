#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport
  import Testing

  @Suite struct OperationValidationTests {
    @Test func anUnknownFieldIsAnErrorAnswerAndAnIssue() async throws {
      let served = try Schemas.served()
      let query = """
        query Viewer {
          viewer {
            __typename
            nickname
          }
        }
        """
      let (body, status) = try await served.backend.send(query, operationName: "Viewer")
      #expect(status == 200)
      #expect(
        body
          == #"{"errors":[{"message":"Cannot query field \"nickname\" on type \"User\".","locations":[{"line":4,"column":5}]}]}"#
      )
      #expect(
        served.messages == [
          #"GraphQL: Viewer (operation line 4, column 5): Cannot query field "nickname" on type "User". (social.graphql:36 User)"#
        ])
    }

    @Test func anUnknownArgumentNamesTheSchemaField() async throws {
      let served = try Schemas.served()
      let query = "query Friends {\n  viewer {\n    friends(frist: 2) { totalCount }\n  }\n}"
      _ = try await served.backend.send(query, operationName: "Friends")
      #expect(
        served.messages == [
          #"GraphQL: Friends (operation line 3, column 13): Field "friends" on type "User" does not have argument "frist". Did you mean "first"? (social.graphql:44 User.friends)"#
        ])
    }

    @Test func anUnknownTypeAndAWrongVariableType() async throws {
      let served = try Schemas.served()
      let query = """
        query Friends($first: String, $filter: PetFiltre) {
          viewer { friends(first: $first) { totalCount } }
        }
        """
      _ = try await served.backend.send(query, operationName: "Friends", variables: ["first": "2"])
      #expect(
        served.messages == [
          #"GraphQL: Friends (operation line 1, column 40): Unknown type "PetFiltre". Did you mean "PetFilter"? (social.graphql:120 PetFilter)"#,
          #"GraphQL: Friends (operation line 1, column 31): Variable "$filter" is never used in operation "Friends"."#,
          #"GraphQL: Friends (operation line 1, column 15): Variable "$first" of type "String" used in position expecting type "Int". (social.graphql:44 User.friends)"#,
        ])
    }

    @Test func aClientThatAcceptsGraphQLResponsesGets400() async throws {
      let served = try Schemas.served()
      let (body, status) = try await served.backend.send(
        "query Broken { viewer { nickname } }", operationName: "Broken", accept: "application/graphql-response+json")
      #expect(status == 400)
      #expect(body.hasPrefix(#"{"errors":[{"message":"Cannot query field \"nickname\""#))
      #expect(served.messages.count == 1)
    }

    @Test func anOperationAnsweredByAHandWrittenStubIsCheckedToo() async throws {
      let served = try Schemas.served()
      served.backend.stub(.graphQL(operation: "Pets"), .json(["data": ["pets": []]]))
      _ = try await served.backend.send("query Pets { pets { __typename nom } }", operationName: "Pets")
      #expect(
        served.messages == [
          #"GraphQL: Pets (operation line 1, column 32): Cannot query field "nom" on type "Pet". Did you mean "name"? (social.graphql:55 Pet)"#
        ])
    }

    @Test func aSyntaxErrorIsReported() async throws {
      let served = try Schemas.served()
      let (body, _) = try await served.backend.send("query Viewer { viewer { id }", operationName: "Viewer")
      #expect(body.contains("Syntax Error"))
      #expect(served.messages.count == 1)
      #expect(served.messages.first?.hasPrefix("GraphQL: Viewer (operation line 1, column 29): Syntax Error") == true)
    }
  }
#endif
