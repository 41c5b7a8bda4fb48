#if Server && GraphQL
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
    @_spi(DoppelInternals) import DoppelToolkit
  #endif

  /// `doppel serve schema.graphql` end to end: a GraphQL schema answered with mock data over
  /// loopback HTTP, beside a manifest whose stubs take precedence.
  @Suite(.timeLimit(.minutes(1))) struct ServeGraphQLTests {
    func query(_ base: URL, _ operation: String) throws -> URL {
      var components = try #require(
        URLComponents(url: base.appendingPathComponent("graphql"), resolvingAgainstBaseURL: false))
      components.queryItems = [URLQueryItem(name: "query", value: operation)]
      return try #require(components.url)
    }

    @Test func servesASchemaBesideAManifest() async throws {
      let manifest = """
        {"stubs": [{"request": {"graphql": {"operation": "Pets"}}, "response": {"json": {"data": {"pets": []}}}}]}
        """
      let directory = try socialSchemaFolder(["doppel.json": manifest])
      let doppel = try DoppelProcess(
        ["serve", "doppel.json", "social.graphql", "--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      #expect(
        try await doppel.line(containing: "Serving").contains(
          "doppel.json, social.graphql (GraphQL at /graphql): 2 stubs at"))
      let first = try await fetch(query(base, "query Me { viewer { __typename role } }"))
      #expect(first.status == 200)
      #expect(first.body.hasPrefix(#"{"data":{"viewer":{"__typename":"User","role":""#))
      #expect(try await fetch(query(base, "query Me { viewer { __typename role } }")) == first)
      // The manifest's stub answers its operation.
      #expect(try await fetch(query(base, "query Pets { pets { name } }")) == (200, #"{"data":{"pets":[]}}"#))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    /// What the schema contradicts is printed in the request log: an operation it rejects, and an
    /// answer of a manifest's stub that does not fit the operation.
    @Test func printsWhatTheSchemaContradicts() async throws {
      let manifest = """
        {"stubs": [{"request": {"graphql": {"operation": "Pets"}}, "response": {"json": {"data": {"pets": [{"name": 5}]}}}}]}
        """
      let directory = try socialSchemaFolder(["doppel.json": manifest])
      let doppel = try DoppelProcess(
        ["serve", "doppel.json", "social.graphql", "--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      _ = try await fetch(query(base, "query Pets { pets { name } }"))
      #expect(
        try await doppel.line(containing: "GraphQL: Pets")
          == "GraphQL: Pets (answer) $.data.pets[0].name: expected a String, found the number 5 (social.graphql:57 Pet.name)"
      )
      let rejected = try await fetch(query(base, "query Bad { viewer { nickname } }"))
      #expect(rejected.status == 200)
      #expect(
        try await doppel.line(containing: "GraphQL: Bad")
          == #"GraphQL: Bad (operation line 1, column 22): Cannot query field "nickname" on type "User". (social.graphql:36 User)"#
      )
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    /// A manifest's `"graphql"` serves its schema with the manifest's overrides, and a scenario's
    /// replaces it.
    @Test func servesAManifestsGraphQL() async throws {
      let manifest = """
        {
          "graphql": {"schema": "social.graphql", "types": {"User": {"displayName": "Ada Lovelace"}}},
          "scenarios": {"lonely": {"graphql": {"schema": "social.graphql", "endpoint": "/api/graphql"}}}
        }
        """
      let directory = try socialSchemaFolder(["doppel.json": manifest])
      let doppel = try DoppelProcess(["serve", "doppel.json", "--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      #expect(
        try await doppel.line(containing: "Serving").contains(
          "doppel.json (GraphQL social.graphql at /graphql): 1 stub at"))
      #expect(
        try await fetch(query(base, "query Me { viewer { displayName } }"))
          == (200, #"{"data":{"viewer":{"displayName":"Ada Lovelace"}}}"#))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)

      let lonely = try DoppelProcess(
        ["serve", "doppel.json", "--port", "0", "--no-watch", "--scenario", "lonely"], directory: directory)
      let lonelyBase = try await lonely.serverURL()
      #expect(
        try await lonely.line(containing: "Serving").contains(
          "doppel.json (scenario \"lonely\") (GraphQL social.graphql at /api/graphql): 1 stub at"))
      let moved = try await fetch(query(lonelyBase.appendingPathComponent("api"), "query Me { viewer { __typename } }"))
      #expect(moved == (200, #"{"data":{"viewer":{"__typename":"User"}}}"#))
      lonely.interrupt()
      #expect(await lonely.waitForExit() == 0)
    }

    @Test func aManifestsGraphQLOverrideOfAnUnknownTypeIsRefused() async throws {
      let manifest = #"{"graphql": {"schema": "social.graphql", "types": {"Usr": {}}}}"#
      let directory = try socialSchemaFolder(["doppel.json": manifest])
      let (status, _, error) = try await DoppelProcess.run(
        ["serve", "--port", "0", "--no-watch"], directory: directory)
      #expect(status != 0)
      #expect(
        error.contains(
          #"doppel.json:1:52: graphql.types.Usr: social.graphql has no object type Usr. Did you mean "User"? Name an object type (an interface or union is answered with one of its object types)."#
        ))
      let lint = try await DoppelProcess.run(["lint", "doppel.json"], directory: directory)
      #expect(lint.status == 1)
      #expect(lint.output.contains(#"doppel.json:1:52: graphql.types.Usr: social.graphql has no object type Usr."#))
    }

    @Test func aBrokenSchemaNamesFileLineAndColumn() async throws {
      let directory = try socialSchemaFolder(["broken.graphql": "type Query {\n  viewer User\n}\n"])
      let (status, _, error) = try await DoppelProcess.run(
        ["serve", "broken.graphql", "--port", "0", "--no-watch"], directory: directory)
      #expect(status != 0)
      #expect(
        error.contains(
          "broken.graphql:2:10: the GraphQL schema is invalid: syntax error: Expected :, found Name \"User\". Fix the SDL there."
        ))
    }

    /// A correct client is answered while two attackers send, again and again, the queries that
    /// cost GraphQL's validation minutes before (one directive 5,000 times, 5,000 unknown fields):
    /// each is refused in time linear in its length, and the endpoint keeps answering.
    @Test func aCorrectClientIsServedWhileCostlyQueriesRun() async throws {
      let directory = try socialSchemaFolder([:])
      let doppel = try DoppelProcess(["serve", "social.graphql", "--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      let endpoint = base.appendingPathComponent("graphql")
      func post(_ query: String) async throws -> String {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["query": query])
        request.timeoutInterval = 50
        let (data, _) = try await realSession.data(for: request)
        return String(decoding: data, as: UTF8.self)
      }
      let costly = [
        (
          "{ viewer { id " + String(repeating: "@skip(if: false) ", count: 5_000) + "} }",
          #"The directive \"@skip\" can only be used once at this location."#
        ),
        (
          "{ viewer { " + String(repeating: "nope ", count: 5_000) + "} }",
          "Too many validation errors, error limit reached. Validation aborted."
        ),
      ]
      let done = Locked(false)
      let (started, starting) = AsyncStream.makeStream(of: Void.self)
      try await withThrowingTaskGroup(of: [Bool].self) { group in
        for attacker in 0..<2 {
          group.addTask {
            var announced = false
            defer { if !announced { starting.yield() } }
            var answers: [Bool] = []
            for round in 0..<20 where round == 0 || !done.withLock({ $0 }) {
              let (query, says) = costly[(attacker + round) % 2]
              let sending = Task { try await post(query) }
              if !announced {
                announced = true
                starting.yield()
              }
              answers.append(try await sending.value.contains(says))
            }
            return answers
          }
        }
        var attackers = started.makeAsyncIterator()
        for _ in 0..<2 { _ = await attackers.next() }
        for _ in 0..<5 {
          #expect(try await post("{ viewer { __typename } }") == #"{"data":{"viewer":{"__typename":"User"}}}"#)
        }
        done.withLock { $0 = true }
        for try await answers in group {
          #expect(!answers.isEmpty)
          #expect(answers.allSatisfy { $0 })
        }
      }
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    /// A field defined twice (public schemas have such slips) is served with a warning at its
    /// line; `--strict` and `doppel lint` refuse it there.
    @Test func aFieldDefinedTwiceIsAWarningUnlessStrict() async throws {
      let directory = try socialSchemaFolder(["slip.graphql": "type Query {\n  name: String\n  name: Int\n}\n"])
      let warning =
        "slip.graphql:3:3: warning: the GraphQL schema defines the field Query.name twice (first at line 2); this definition is left out. GraphQL allows one definition of each: remove one, or rename it."
      let doppel = try DoppelProcess(["serve", "slip.graphql", "--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      #expect(try await doppel.errors.first { $0.contains("warning:") } == warning)
      #expect(try await fetch(query(base, "{ name }")).body.hasPrefix(#"{"data":{"name":"name "#))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
      let refusal =
        "slip.graphql:3:3: the GraphQL schema defines the field Query.name twice (first at line 2). GraphQL allows one definition of each: remove one, or rename it. Fix the SDL there."
      let strict = try await DoppelProcess.run(
        ["serve", "slip.graphql", "--port", "0", "--no-watch", "--strict"], directory: directory)
      #expect(strict.status != 0)
      #expect(strict.error.contains(refusal))
      let lint = try await DoppelProcess.run(["lint", "slip.graphql"], directory: directory)
      #expect(lint.status == 1)
      #expect(lint.output.contains(refusal))
    }
  }
#endif
