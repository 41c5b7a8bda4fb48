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
        query += "fragment F\(level) on User { friends(first: 1) { edges { node { \(next) } } } "
        query += "friends(first: 1) { edges { node { \(next) } } } }\n"
      }
      let answer = try await served.backend.send(query, operationName: "Chain")
      #expect(answer.status == 200)
      #expect(answer.body.components(separatedBy: #""friends""#).count - 1 == 40)
      #expect(served.messages == [])
    }

    @Test func aMockAnswerStopsAtItsLimitOfValues() async throws {
      let served = try Schemas.served(GraphQLMocks(listLength: 50_000))
      let answer = try await served.backend.send(
        "query Pets { pets { __typename name } }", operationName: "Pets")
      #expect(answer.status == 200)
      #expect(
        answer.body
          == #"{"data":null,"errors":[{"message":"The mock answer would hold more than 100000 values, more than Doppel makes for one request: select fewer nested lists, or make lists shorter (GraphQLMocks(listLength:))."}]}"#
      )
    }

    /// The errors of an answer, as `message (line:column …)` strings.
    func errors(_ body: String) throws -> [String] {
      guard case .object(let top) = try JSONValue(parsing: Data(body.utf8)), case .array(let errors)? = top["errors"]
      else { return [] }
      return errors.map { error in
        guard case .object(let members) = error, case .string(let message)? = members["message"] else { return "?" }
        guard case .array(let locations)? = members["locations"] else { return message }
        let places = locations.map { location -> String in
          guard case .object(let place) = location, case .number(let line)? = place["line"],
            case .number(let column)? = place["column"]
          else { return "?" }
          return "\(Int(line)):\(Int(column))"
        }
        return message + " (" + places.joined(separator: " ") + ")"
      }
    }

    /// A directive that is not repeatable, 5,000 times on one field (an 85 KB body): the first
    /// repeat is the answer, found before GraphQL's validation rules run (they would list 4,999
    /// errors, each located from the start of the text: minutes).
    @Test func aDirectiveRepeatedThousandsOfTimesIsRefusedAtItsFirstRepeat() async throws {
      let served = try Schemas.served()
      let query = "query Skip { viewer { id " + String(repeating: "@skip(if: false) ", count: 5_000) + "} }"
      let answer = try await served.backend.send(query, operationName: "Skip")
      #expect(answer.status == 200)
      #expect(
        try errors(answer.body) == [#"The directive "@skip" can only be used once at this location. (1:26 1:43)"#])
      #expect(
        served.messages == [
          #"GraphQL: Skip (operation line 1, column 26): The directive "@skip" can only be used once at this location."#
        ])
    }

    @Test func anArgumentRepeatedThousandsOfTimesIsRefusedAtItsFirstRepeat() async throws {
      let served = try Schemas.served()
      let repeated = Array(repeating: "first: 1", count: 5_000).joined(separator: ", ")
      let query = "query Friends { viewer { friends(\(repeated)) { totalCount } } }"
      let answer = try await served.backend.send(query, operationName: "Friends")
      #expect(try errors(answer.body) == [#"There can be only one argument named "first". (1:34 1:44)"#])
      let input = try await served.backend.send(
        "query Pets { pets(filter: {species: CAT, species: DOG}) { name } }", operationName: "Pets")
      #expect(
        try errors(input.body) == [#"There can be only one input field named "species". (1:28 1:42)"#], "\(input.body)")
    }

    @Test func aliasesSelectionsAndDefinitionsHaveBounds() async throws {
      let served = try Schemas.served()
      let aliases = "query Many { viewer { " + (0..<5_000).map { "a\($0): id " }.joined() + "} }"
      let column = aliases.utf8.count - aliases.components(separatedBy: "a1000: ")[1].utf8.count - 6
      #expect(
        try errors(try await served.backend.send(aliases, operationName: "Many").body) == [
          "The document gives more than 1000 aliases, more than Doppel answers in one request. Use fewer aliases. (1:\(column))"
        ])
      let fields = "query Wide { viewer { " + String(repeating: "id ", count: 10_001) + "} }"
      #expect(
        try errors(try await served.backend.send(fields, operationName: "Wide").body) == [
          "The document selects more than 10000 fields and fragments, more than Doppel answers in one request. Select fewer fields. (1:\(23 + 3 * 9_999))"
        ])
      var fragments = "query Frags { viewer { ...F0 } }\n"
      for index in 0..<5_000 { fragments += "fragment F\(index) on User { id }\n" }
      #expect(
        try errors(try await served.backend.send(fragments, operationName: "Frags").body) == [
          "The document defines more than 1000 operations and fragments, more than Doppel reads in one request. Send only the operation and the fragments it uses. (1001:1)"
        ])
    }

    /// Thousands of errors of another kind: the first 20 are listed, without positions (finding
    /// each one's line from the start of the text is what costs), and one says validation stopped.
    @Test func thousandsOfValidationErrorsAreCutShort() async throws {
      let served = try Schemas.served()
      let query = "query Nope { viewer { " + String(repeating: "nope ", count: 5_000) + "} }"
      let found = try errors(try await served.backend.send(query, operationName: "Nope").body)
      #expect(found.count == 21)
      #expect(found.first == #"Cannot query field "nope" on type "User". Did you mean "role"?"#)
      #expect(found.last == "Too many validation errors, error limit reached. Validation aborted.")
      #expect(served.messages.count == 21)
      // A few errors keep their positions.
      let few = try errors(try await served.backend.send("query Nope { viewer { nope } }", operationName: "Nope").body)
      #expect(few == [#"Cannot query field "nope" on type "User". Did you mean "role"? (1:23)"#])
    }
  }
#endif
