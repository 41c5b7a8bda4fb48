#if Server && GraphQL
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
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
  }
#endif
