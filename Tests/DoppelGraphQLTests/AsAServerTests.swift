#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport
  import Testing

  /// A served schema answers as a GraphQL server does: introspection from the schema, variables
  /// coerced as the specification says, and the page a connection's `first` or `last` asks for.
  @Suite struct AsAServerTests {
    func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    /// The value at `path` (keys and list indexes) of `value`.
    func at(_ value: JSONValue, _ path: [Any]) -> JSONValue? {
      var current: JSONValue? = value
      for step in path {
        switch (current, step) {
        case (.object(let members)?, let key as String): current = members[key]
        case (.array(let items)?, let index as Int): current = index < items.count ? items[index] : nil
        default: return nil
        }
      }
      return current
    }

    @Test func introspectionIsAnsweredFromTheSchema() async throws {
      let served = try Schemas.served()
      let (body, status) = try await served.backend.send(
        "{ __schema { queryType { name } mutationType { name } types { name } } }", operationName: nil)
      #expect(status == 200)
      let answer = try json(body)
      #expect(at(answer, ["data", "__schema", "queryType", "name"]) == "Query")
      #expect(at(answer, ["data", "__schema", "mutationType", "name"]) == "Mutation")
      guard case .array(let types)? = at(answer, ["data", "__schema", "types"]) else {
        Issue.record("no types in \(body)")
        return
      }
      let names = Set(
        types.compactMap { type -> String? in
          guard case .string(let name)? = at(type, ["name"]) else { return nil }
          return name
        })
      #expect(names.isSuperset(of: ["Query", "User", "UserConnection", "PetFilter", "Species", "__Schema", "String"]))
      #expect(at(answer, ["errors"]) == nil)
      #expect(served.messages == [])
    }

    @Test func typeAndTypenameBesideMockData() async throws {
      let served = try Schemas.served()
      let (body, _) = try await served.backend.send(
        """
        query Look($name: String!) {
          kind: __type(name: $name) { name kind fields { name } }
          __typename
          viewer { __typename role }
        }
        """, operationName: "Look", variables: ["name": "PageInfo"])
      #expect(
        body.hasPrefix(
          #"{"data":{"kind":{"name":"PageInfo","kind":"OBJECT","fields":[{"name":"hasNextPage"},{"name":"hasPreviousPage"},{"name":"startCursor"},{"name":"endCursor"}]},"__typename":"Query","viewer":{"__typename":"User","role":""#
        ))
      #expect(served.messages == [])
    }

    /// GraphiQL's introspection query (GraphQL.js's, with every option on) gets every type.
    @Test func graphiQLsIntrospectionQuery() async throws {
      let served = try Schemas.served()
      let (body, status) = try await served.backend.send(Operations.introspection, operationName: "IntrospectionQuery")
      #expect(status == 200)
      let answer = try json(body)
      #expect(at(answer, ["errors"]) == nil)
      guard case .array(let types)? = at(answer, ["data", "__schema", "types"]) else {
        Issue.record("no types in \(body.prefix(500))")
        return
      }
      let user = types.first { at($0, ["name"]) == "User" }
      #expect(user.flatMap { at($0, ["kind"]) } == "OBJECT")
      #expect(user.flatMap { at($0, ["fields", 7, "name"]) } == "friends")
      #expect(user.flatMap { at($0, ["fields", 7, "args", 0, "defaultValue"]) } == "10")
      #expect(user.flatMap { at($0, ["interfaces", 0, "name"]) } == "Node")
      #expect(served.messages == [])
    }

    @Test func aMissingRequiredVariableIsAnErrorWithoutData() async throws {
      let served = try Schemas.served()
      let (body, status) = try await served.backend.send(Operations.user, operationName: "UserProfile")
      #expect(status == 200)
      #expect(
        body
          == #"{"errors":[{"message":"Variable \"$id\" of required type \"ID!\" was not provided.","locations":[{"line":1,"column":19}]}]}"#
      )
      #expect(
        served.messages == [
          #"GraphQL: UserProfile (operation line 1, column 19): Variable "$id" of required type "ID!" was not provided."#
        ])
      let modern = try await served.backend.send(
        Operations.user, operationName: "UserProfile", accept: "application/graphql-response+json")
      #expect(modern.status == 400)
    }

    @Test func variablesOfTheWrongTypeNullOrUnknownAreErrors() async throws {
      let served = try Schemas.served()
      let cases: [(query: String, variables: JSONValue, message: String)] = [
        (
          "query Q($n: Int) { viewer { friends(first: $n) { totalCount } } }", ["n": "five"],
          #"Variable \"$n\" got invalid value \"five\"; Int cannot represent non-integer value: \"five\""#
        ),
        (
          "query Q($id: ID!) { user(id: $id) { id } }", ["id": nil],
          #"Variable \"$id\" of non-null type \"ID!\" must not be null."#
        ),
        (
          "query Q($f: PetFilter) { pets(filter: $f) { name } }", ["f": ["species": "DRAGON", "legs": 4]],
          #"Variable \"$f\" got invalid value \"DRAGON\" at \"f.species\"; Value \"DRAGON\" does not exist in \"Species\" enum."#
        ),
        (
          "query Q { viewer { id } }", ["extra": 1],
          #"Variable \"$extra\" is not defined by operation \"Q\". Define it, or leave it out of \"variables\"."#
        ),
      ]
      for (query, variables, message) in cases {
        let (body, _) = try await served.backend.send(query, operationName: "Q", variables: variables)
        #expect(body.hasPrefix(#"{"errors":[{"message":""# + message + #"""#), "\(body)")
        #expect(!body.contains(#""data""#))
      }
    }

    @Test func coercedVariablesAndDefaultsReachTheAnswer() async throws {
      var mocks = GraphQLMocks()
      mocks.field("Query.pets") { arguments in
        guard case .object(let given) = arguments, case .object(let filter)? = given["filter"] else { return [] }
        return [["name": filter["species"] ?? nil]]
      }
      let served = try Schemas.served(mocks)
      let (body, _) = try await served.backend.send(
        #"query Q($f: PetFilter = {species: CAT}) { pets(filter: $f) { name } }"#, operationName: "Q")
      #expect(body == #"{"data":{"pets":[{"name":"CAT"}]}}"#)
    }

    @Test func firstAndLastGiveThatManyNodesWithAConsistentPage() async throws {
      let served = try Schemas.served()
      for (size, argument) in [(5, "first: 5"), (0, "first: 0"), (3, "last: 3")] {
        let (body, _) = try await served.backend.send(
          "query P { viewer { friends(\(argument)) { totalCount edges { cursor } pageInfo { hasNextPage hasPreviousPage } } } }",
          operationName: "P")
        let answer = try json(body)
        guard case .array(let edges)? = at(answer, ["data", "viewer", "friends", "edges"]),
          case .number(let total)? = at(answer, ["data", "viewer", "friends", "totalCount"])
        else {
          Issue.record("no page in \(body)")
          continue
        }
        #expect(edges.count == size)
        #expect(Int(total) >= 10)
        let more: JSONValue = .bool(Int(total) > size)
        let info = at(answer, ["data", "viewer", "friends", "pageInfo"])
        if argument.hasPrefix("first") {
          #expect(info == ["hasNextPage": more, "hasPreviousPage": false])
        } else {
          #expect(info == ["hasNextPage": false, "hasPreviousPage": more])
        }
      }
      // Beyond the total, every node, and no next page; beyond the cap of 100, 100 at most.
      let (all, _) = try await served.backend.send(
        "query P { viewer { friends(first: 1000) { totalCount edges { cursor } pageInfo { hasNextPage } } } }",
        operationName: "P")
      let answer = try json(all)
      if case .array(let edges)? = at(answer, ["data", "viewer", "friends", "edges"]),
        case .number(let total)? = at(answer, ["data", "viewer", "friends", "totalCount"])
      {
        #expect(edges.count == Int(total))
        #expect(edges.count <= 100)
        #expect(at(answer, ["data", "viewer", "friends", "pageInfo", "hasNextPage"]) == false)
      } else {
        Issue.record("no page in \(all)")
      }
      // A plain list with `first`: that many items; the schema's default when it is left out.
      let (search, _) = try await served.backend.send(
        #"query S { some: search(text: "a", first: 4) { __typename } most: search(text: "a") { __typename } }"#,
        operationName: "S")
      if case .array(let some)? = at(try json(search), ["data", "some"]),
        case .array(let most)? = at(try json(search), ["data", "most"])
      {
        #expect(some.count == 4)
        #expect(most.count == 5)
      } else {
        Issue.record("no lists in \(search)")
      }
      #expect(served.messages == [])
    }

    @Test func anEmptyScenarioHasEmptyPages() async throws {
      let served = try Schemas.served(GraphQLMocks(listLength: 0))
      let (body, _) = try await served.backend.send(
        "query P { viewer { friends(first: 5) { totalCount edges { cursor } pageInfo { hasNextPage } } } }",
        operationName: "P")
      #expect(
        body
          == #"{"data":{"viewer":{"friends":{"totalCount":0,"edges":[],"pageInfo":{"hasNextPage":false}}}}}"#)
    }

    /// `endCursor` fed back as `after` gives the next page, until there is none: every item once.
    @Test func cursorsPageThroughAConnection() async throws {
      let served = try Schemas.served()
      var after: JSONValue = nil
      var cursors: [String] = []
      var total = 0
      for _ in 0..<10 {
        let (body, _) = try await served.backend.send(
          "query P($after: String) { viewer { friends(first: 7, after: $after) { totalCount edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }",
          operationName: "P", variables: ["after": after])
        let page = try #require(at(try json(body), ["data", "viewer", "friends"]))
        guard case .array(let edges)? = at(page, ["edges"]), case .number(let count)? = at(page, ["totalCount"]) else {
          Issue.record("no page in \(body)")
          return
        }
        total = Int(count)
        let here = edges.compactMap { edge -> String? in
          guard case .string(let cursor)? = at(edge, ["cursor"]) else { return nil }
          return cursor
        }
        #expect(at(page, ["pageInfo", "hasPreviousPage"]) == .bool(!cursors.isEmpty))
        #expect(at(page, ["pageInfo", "startCursor"]) == here.first.map { .string($0) } ?? nil)
        #expect(at(page, ["pageInfo", "endCursor"]) == here.last.map { .string($0) } ?? nil)
        cursors += here
        guard at(page, ["pageInfo", "hasNextPage"]) == true else { break }
        after = at(page, ["pageInfo", "endCursor"]) ?? nil
      }
      #expect(cursors.count == total)
      #expect(Set(cursors).count == total)
      #expect(served.messages == [])
    }
  }
#endif
