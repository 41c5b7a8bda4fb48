#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport
  import Testing

  @Suite struct SchemaTests {
    @Test func anIntrospectionResultServesLikeSDL() async throws {
      let schema = try GraphQLSchemaDocument(contentsOf: Schemas.url("starships.json"))
      #expect(schema.isIntrospection)
      #expect(schema.sdl.contains("interface Character {\n  name: String!\n}"))
      let collected = Collected()
      collected.backend.addStub(from: schema, at: .url(Schemas.endpoint.absoluteString))
      let query =
        "query Hero { hero(episode: JEDI) { __typename name ... on Droid { primaryFunction } } starships { name launched } }"
      let (body, status) = try await collected.backend.send(query, operationName: "Hero")
      #expect(status == 200)
      #expect(body.hasPrefix(#"{"data":{"hero":{"__typename":"#))
      #expect(body.contains(#""launched":"Date "#))
      #expect(collected.messages == [])
    }

    @Test func malformedSDLNamesFileLineAndColumn() throws {
      let url = try Schemas.temporary(
        "broken.graphql", "type Query {\n  viewer: User\n}\n\ntype User {\n  name String\n}\n")
      #expect(throws: GraphQLSchemaError.self) { try GraphQLSchemaDocument(contentsOf: url) }
      do {
        _ = try GraphQLSchemaDocument(contentsOf: url)
      } catch {
        #expect(
          error.description
            == #"broken.graphql:6:8: the GraphQL schema is invalid: syntax error: Expected :, found Name "String". Fix the SDL there."#
        )
        #expect((error as any Error).localizedDescription == error.description)
        // It unwraps as a DoppelError of kind graphQL, located as the other documents' errors are.
        let unwrapped = try #require(DoppelError(unwrapping: error))
        #expect(unwrapped.kind == .graphQL)
        #expect(unwrapped.message == error.description)
        #expect(unwrapped.location?.filePath == "broken.graphql")
        #expect(unwrapped.location?.line == 6)
        #expect(unwrapped.location?.column == 8)
        #expect(unwrapped.location == error.location)
      }
    }

    @Test func anUndefinedTypeIsAnError() throws {
      do {
        _ = try GraphQLSchemaDocument(sdl: "type Query {\n  viewer: Usr\n}\n", name: "api.graphql")
        Issue.record("no error")
      } catch {
        #expect(error.description.hasPrefix("api.graphql:"))
        #expect(error.message.contains("Usr"))
      }
    }

    @Test func aBadIntrospectionResultNamesLineColumnAndKey() throws {
      let url = try Schemas.temporary(
        "schema.json",
        "{\n  \"data\": {\n    \"__schema\": {\n      \"types\": [\n        {\"kind\": \"OBJECT\", \"name\": 5}\n      ]\n    }\n  }\n}\n"
      )
      do {
        _ = try GraphQLSchemaDocument(contentsOf: url)
        Issue.record("no error")
      } catch {
        #expect(error.description == #"schema.json:5:36: the key "name" holds the number 5; expected a string."#)
      }
      let malformed = try Schemas.temporary("schema.json", "{\"data\": {\"__schema\": }}")
      #expect(throws: GraphQLSchemaError.self) { try GraphQLSchemaDocument(contentsOf: malformed) }
    }

    @Test func aMissingFileSaysSo() {
      do {
        _ = try GraphQLSchemaDocument(contentsOf: URL(fileURLWithPath: "/nonexistent/schema.graphql"))
        Issue.record("no error")
      } catch {
        #expect(
          error.description
            == "schema.graphql:1:1: the GraphQL schema could not be read: there is no such file. Check the path.")
      }
    }

    /// Public schemas have such slips: a field, an argument, an enum value or a type defined
    /// twice. The schema is served (the later definition left out) with a warning at its line,
    /// unless read with `strict`.
    @Test func aDefinitionGivenTwiceIsAWarningAtItsLineUnlessStrict() async throws {
      let sdl = """
        type Query {
          viewer: User
          search(text: String, text: String): [User!]!
        }

        type User {
          "The name."
          name: String!
          age: Int
          name: Int
        }

        enum Role { ADMIN MEMBER ADMIN }

        type User {
          nickname: String
        }
        """
      let schema = try GraphQLSchemaDocument(sdl: sdl, name: "slips.graphql")
      #expect(
        schema.warnings.map(\.description) == [
          "slips.graphql:3:24: the GraphQL schema defines the argument Query.search(text:) twice (first at line 3); this definition is left out. GraphQL allows one definition of each: remove one, or rename it.",
          "slips.graphql:10:3: the GraphQL schema defines the field User.name twice (first at line 8); this definition is left out. GraphQL allows one definition of each: remove one, or rename it.",
          "slips.graphql:13:26: the GraphQL schema defines the enum value Role.ADMIN twice (first at line 13); this definition is left out. GraphQL allows one definition of each: remove one, or rename it.",
          "slips.graphql:15:6: the GraphQL schema defines the type User twice (first at line 6); this definition is left out. GraphQL allows one definition of each: remove one, or rename it.",
        ])
      let collected = Collected()
      collected.backend.addStub(from: schema, at: .url(Schemas.endpoint.absoluteString))
      let (body, _) = try await collected.backend.send(
        "query Me { viewer { name age } search(text: \"a\") { name } }", operationName: "Me")
      #expect(body.hasPrefix(#"{"data":{"viewer":{"name":"name "#))
      #expect(collected.messages == [])
      do {
        _ = try GraphQLSchemaDocument(sdl: sdl, name: "slips.graphql", strict: true)
        Issue.record("no error")
      } catch {
        #expect(
          error.description
            == "slips.graphql:3:24: the GraphQL schema defines the argument Query.search(text:) twice (first at line 3). GraphQL allows one definition of each: remove one, or rename it. Fix the SDL there."
        )
      }
    }

    /// GraphQL's checks of a schema's definitions come without a position: the definition named
    /// in the message gives it, else the first use of the name it quotes.
    @Test func errorsWithoutAPositionAreAtTheDefinitionTheyName() throws {
      let cases: [(sdl: String, error: String)] = [
        (
          "type Query {\n  a: String\n}\n\nextend type Missing {\n  b: Int\n}\n",
          #"api.graphql:5:13: the GraphQL schema is invalid: Cannot extend type "Missing" because it is not defined. Fix the SDL there."#
        ),
        (
          "schema {\n  query: Nope\n}\n\ntype Query {\n  a: String\n}\n",
          #"api.graphql:2:10: the GraphQL schema is invalid: Unknown type: "Nope". Fix the SDL there."#
        ),
        (
          "type Query {\n  a: I\n}\n\ninput I {\n  x: Int\n}\n",
          "api.graphql:2:3: the GraphQL schema is invalid: The type of Query.a must be Output Type but got: I. Fix the SDL there."
        ),
        (
          "type Query {\n  a: String @nope\n}\n",
          #"api.graphql:2:13: the GraphQL schema is invalid: Unknown directive "@nope". Fix the SDL there."#
        ),
      ]
      for (sdl, expected) in cases {
        do {
          _ = try GraphQLSchemaDocument(sdl: sdl, name: "api.graphql")
          Issue.record("no error for \(sdl)")
        } catch {
          #expect(error.description == expected)
        }
      }
    }
  }
#endif
