#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport
  import Testing

  /// A served schema stands in front of clients nobody vetted (`doppel serve schema.graphql` on a
  /// laptop): no query may crash it or cost it time or memory out of proportion to the query.
  @Suite struct LimitsTests {
    static let tooDeep =
      "The query nests braces, parentheses or brackets more than 128 deep, more than Doppel reads. Select less deeply."

    @Test func aQueryNestedTooDeepIsRefusedBeforeItIsParsed() async throws {
      let served = try Schemas.served()
      // 100,000 levels would overflow the stack of a recursive parser.
      for depth in [129, 100_000] {
        let query = "query Deep " + String(repeating: "{ viewer ", count: depth) + String(repeating: "}", count: depth)
        let answer = try await served.backend.send(query, operationName: "Deep")
        #expect(answer.status == 200)
        #expect(answer.body == #"{"errors":[{"message":""# + Self.tooDeep + #""}]}"#)
      }
      #expect(
        served.messages == Array(repeating: "GraphQL: Deep (operation line 1, column 1): \(Self.tooDeep)", count: 2))
    }

    @Test func bracesInsideStringsAndCommentsAreNotNesting() async throws {
      let served = try Schemas.served()
      let braces = String(repeating: "{[(", count: 200)
      let query = """
        # \(braces)
        query Search { search(text: "\(braces)") { __typename } }
        query Block { search(text: \"\"\"\(braces) \\\"\"\" \(braces)\"\"\") { __typename } }
        """
      for name in ["Search", "Block"] {
        let answer = try await served.backend.send(query, operationName: name)
        #expect(answer.body.hasPrefix(#"{"data":{"search":[{"__typename":"#))
      }
      #expect(served.messages == [])
    }

    /// Forty fragments that each select the next one twice: a field reached along every path is
    /// one field, so the answer is one chain, not 2⁴⁰ of them.
    @Test func fragmentsSpreadTwiceAtEveryLevelStayLinear() async throws {
      let served = try Schemas.served(GraphQLMocks(listLength: 1))
      var query = "query Chain { viewer { ...F0 } }\n"
      for level in 0..<40 {
        let next = level < 39 ? "...F\(level + 1)" : "id"
        query += "fragment F\(level) on User { friends { edges { node { \(next) } } } "
        query += "friends { edges { node { \(next) } } } }\n"
      }
      let answer = try await served.backend.send(query, operationName: "Chain")
      #expect(answer.status == 200)
      #expect(answer.body.components(separatedBy: #""friends""#).count - 1 == 40)
      #expect(served.messages == [])
    }

    @Test func aMockAnswerStopsAtItsLimitOfValues() async throws {
      let served = try Schemas.served(GraphQLMocks(listLength: 50_000))
      let answer = try await served.backend.send(
        "query Feed { feed { edges { cursor node { __typename id } } } }", operationName: "Feed")
      #expect(answer.status == 200)
      #expect(
        answer.body
          == #"{"data":null,"errors":[{"message":"The mock answer would hold more than 100000 values, more than Doppel makes for one request: select fewer nested lists, or make lists shorter (GraphQLMocks(listLength:))."}]}"#
      )
    }
  }
#endif
