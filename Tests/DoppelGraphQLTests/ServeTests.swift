#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport
  import Testing

  @Suite struct ServeTests {
    func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    @Test func answersAnApolloShapedQueryWithMockData() async throws {
      let served = try Schemas.served()
      let (body, status) = try await served.backend.send(
        Operations.viewer, operationName: "Viewer", variables: ["first": 2])
      #expect(status == 200)
      guard case .object(let answer) = try json(body), case .object(let data)? = answer["data"],
        case .object(let viewer)? = data["viewer"], case .object(let friends)? = viewer["friends"],
        case .array(let edges)? = friends["edges"]
      else {
        Issue.record("unexpected answer \(body)")
        return
      }
      #expect(answer["errors"] == nil)
      #expect(viewer["__typename"] == "User")
      #expect(["MEMBER", "MODERATOR", "ADMIN"].map(JSONValue.string).contains(viewer["role"] ?? .null))
      #expect(edges.count == 2)
      if case .object(let edge) = edges[0], case .object(let node)? = edge["node"] {
        #expect(edge["__typename"] == "UserEdge")
        #expect(node["__typename"] == "User")
        if case .string(let avatar)? = node["avatar"] { #expect(avatar.hasPrefix("URL ")) }
      }
      // The fields come in the order the operation selects them.
      #expect(body.hasPrefix(#"{"data":{"viewer":{"__typename":"User","id":"#))
    }

    @Test func theSameRequestGetsTheSameBytesAndAnotherSeedOthers() async throws {
      let first = try await Schemas.served().backend.send(
        Operations.search, operationName: "Search", variables: ["text": "tom"])
      let second = try await Schemas.served().backend.send(
        Operations.search, operationName: "Search", variables: ["text": "tom"])
      let reseeded = try await Schemas.served(GraphQLMocks(seed: 99)).backend.send(
        Operations.search, operationName: "Search", variables: ["text": "tom"])
      #expect(first.body == second.body)
      #expect(first.body != reseeded.body)
    }

    @Test func unionsAndInterfacesGetAConcreteTypeAndItsFields() async throws {
      let (body, _) = try await Schemas.served().backend.send(
        Operations.search, operationName: "Search", variables: ["text": "tom"])
      guard case .object(let answer) = try json(body), case .object(let data)? = answer["data"],
        case .array(let results)? = data["search"]
      else {
        Issue.record("unexpected answer \(body)")
        return
      }
      // `first: 3` asks for three.
      #expect(results.count == 3)
      for case .object(let result) in results {
        switch result["__typename"] {
        case "User": #expect(Set(result.keys) == ["__typename", "id", "displayName"])
        case "Post": #expect(Set(result.keys) == ["__typename", "id", "author", "attachments"])
        case "Pet": #expect(Set(result.keys) == ["__typename", "id", "name", "species"])
        default: Issue.record("not a SearchResult: \(result)")
        }
      }
    }

    @Test func overridesByTypeFieldAndScalar() async throws {
      var mocks = GraphQLMocks(listLength: 1)
      mocks.type("User") { ["displayName": "Ada Lovelace", "age": 36] }
      mocks.field("Query.viewer") { _ in ["id": "user-1"] }
      mocks.field("User.friends") { arguments in
        guard case .object(let given) = arguments else { return nil }
        return ["totalCount": given["first"] ?? nil]
      }
      mocks.scalar("DateTime") { "2024-05-01T12:00:00Z" }
      mocks.scalar("URL") { "https://img.social.test/a.png" }
      let (body, _) = try await Schemas.served(mocks).backend.send(
        Operations.viewer, operationName: "Viewer", variables: ["first": 7])
      let answer = try json(body)
      let viewer: JSONValue = [
        "__typename": "User", "id": "user-1", "displayName": "Ada Lovelace", "avatar": "https://img.social.test/a.png",
        "joinedAt": "2024-05-01T12:00:00Z", "age": 36,
      ]
      #expect(answer.contains(["data": ["viewer": viewer]]))
      #expect(answer.contains(["data": ["viewer": ["friends": ["totalCount": 7]]]]))
      if case .object(let top) = answer, case .object(let data)? = top["data"],
        case .object(let user)? = data["viewer"],
        case .object(let friends)? = user["friends"], case .array(let edges)? = friends["edges"]
      {
        // `first: 7` asks for seven, of the seven in all the override says.
        #expect(edges.count == 7)
      }
    }

    @Test func aThrowingFieldGivesAnErrorAndNullsTheNearestNullableParent() async throws {
      var mocks = GraphQLMocks()
      mocks.field("User.age") { _ in throw GraphQLFieldError("age is private", extensions: ["code": "FORBIDDEN"]) }
      mocks.field("Pet.name") { _ in throw GraphQLFieldError("no names today") }
      let (body, status) = try await Schemas.served(mocks).backend.send(
        Operations.user, operationName: "UserProfile", variables: ["id": "u1"])
      #expect(status == 200)
      // `age` may be null: only it is. `Pet.name` may not, nor may `pets` or its items, so the
      // `null` reaches `user`, which may be null. Each error has its path and locations.
      #expect(
        body
          == #"{"data":{"user":null},"errors":[{"message":"age is private","locations":[{"line":6,"column":5}],"path":["user","age"],"extensions":{"code":"FORBIDDEN"}},{"message":"no names today","locations":[{"line":9,"column":7}],"path":["user","pets",0,"name"]}]}"#
      )
    }

    @Test func aNullInANonNullRootFieldNullsData() async throws {
      var mocks = GraphQLMocks()
      mocks.field("Query.viewer") { _ in throw GraphQLFieldError("signed out") }
      let (body, _) = try await Schemas.served(mocks).backend.send(
        Operations.viewer, operationName: "Viewer", variables: ["first": 1])
      #expect(
        body.hasPrefix(
          #"{"data":null,"errors":[{"message":"signed out","locations":[{"line":2,"column":3}],"path":["viewer"]}]"#))
    }

    @Test func aMutationWithAnInputObject() async throws {
      let (body, status) = try await Schemas.served().backend.send(
        Operations.createPost, operationName: "CreatePost", variables: ["input": ["body": "Hello"]])
      #expect(status == 200)
      #expect(
        body.hasPrefix(#"{"data":{"createPost":{"__typename":"CreatePostPayload","post":{"__typename":"Post","id":"#))
    }

    @Test func aGETWithQueryItems() async throws {
      let served = try Schemas.served()
      var components = URLComponents(url: Schemas.endpoint, resolvingAgainstBaseURL: false)!
      components.queryItems = [
        URLQueryItem(name: "query", value: "query Me { viewer { __typename id } }"),
        URLQueryItem(name: "operationName", value: "Me"),
      ]
      let (data, response) = try await served.backend.respond(to: URLRequest(url: components.url!))
      #expect(response.statusCode == 200)
      #expect(String(decoding: data, as: UTF8.self).hasPrefix(#"{"data":{"viewer":{"__typename":"User","id":"User-"#))
      #expect(served.messages == [])
    }

    @Test func aHandWrittenStubWinsOverTheSchema() async throws {
      let served = try Schemas.served()
      served.backend.stub(.graphQL(operation: "Me"), .json(["data": ["viewer": ["__typename": "User", "id": "7"]]]))
      let (body, _) = try await served.backend.send("query Me { viewer { __typename id } }", operationName: "Me")
      #expect(try json(body) == ["data": ["viewer": ["__typename": "User", "id": "7"]]])
      #expect(served.messages == [])
    }
  }
#endif
