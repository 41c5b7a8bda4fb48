#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport
  import Testing
  @_spi(DoppelInternals) import DoppelToolkit

  /// A manifest's `"graphql"`: the schema served with the manifest's overrides, through
  /// `extensions: [.graphQL]`, and each override's name checked against the schema.
  @Suite struct ManifestTests {
    /// A folder with the social schema and `manifest` as its `doppel.json`; the manifest's URL.
    func manifestFile(_ manifest: String, schema: String? = nil) throws -> URL {
      let file = try temporaryFile("doppel.json", manifest, prefix: "doppel-graphql-manifest")
      let text = try schema ?? String(contentsOf: Schemas.social, encoding: .utf8)
      try Data(text.utf8).write(to: file.deletingLastPathComponent().appendingPathComponent("social.graphql"))
      return file
    }

    static let manifest = """
      {
        "stubs": [{"request": "GET /health", "response": {"text": "ok"}}],
        "graphql": {
          "schema": "social.graphql",
          "endpoint": "https://api.social.test/graphql",
          "listLength": 1,
          "types": {"User": {"displayName": "Ada Lovelace"}},
          "fields": {
            "Query.viewer": {"json": {"id": "user-1"}},
            "User.age": {"error": "age is private", "extensions": {"code": "FORBIDDEN"}}
          },
          "scalars": {"DateTime": "2024-05-01T12:00:00Z", "URL": "https://img.social.test/a.png"}
        },
        "scenarios": {
          "lonely": {"graphql": {"schema": "social.graphql", "endpoint": "https://api.social.test/graphql", "listLength": 0}}
        }
      }
      """

    @Test func servesTheSchemaWithTheManifestsOverrides() async throws {
      let file = try manifestFile(Self.manifest)
      defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
      let issues = Locked([String]())
      let backend = try Backend(
        manifest: Manifest.load(contentsOf: file), scenario: .base,
        issueReporter: IssueReporter { issue in issues.withLock { $0.append(issue.message) } }, extensions: [.graphQL])
      let (body, status) = try await backend.send(Operations.viewer, operationName: "Viewer", variables: ["first": 3])
      #expect(status == 200)
      let answer = try JSONValue(parsing: Data(body.utf8))
      let viewer: JSONValue = [
        "__typename": "User", "id": "user-1", "displayName": "Ada Lovelace", "avatar": "https://img.social.test/a.png",
        "joinedAt": "2024-05-01T12:00:00Z", "age": nil,
      ]
      #expect(answer.contains(["data": ["viewer": viewer]]))
      #expect(
        answer.contains([
          "errors": [["message": "age is private", "path": ["viewer", "age"], "extensions": ["code": "FORBIDDEN"]]]
        ]))
      if case .object(let top) = answer, case .object(let data)? = top["data"],
        case .object(let user)? = data["viewer"],
        case .object(let friends)? = user["friends"], case .array(let edges)? = friends["edges"]
      {
        // `first: 3` asks for three.
        #expect(edges.count == 3)
      } else {
        Issue.record("no friends in \(body)")
      }
      // The manifest's other stubs answer beside it, and its stub is declared at "graphql".
      let (health, _) = try await backend.respond(to: URLRequest(url: URL(string: "https://api.social.test/health")!))
      #expect(String(decoding: health, as: UTF8.self) == "ok")
      let stub = try #require(backend.stubs.first { $0.name == "GraphQL social.graphql" })
      #expect(stub.location.line == 3)
      #expect(issues.withLock { $0 }.isEmpty)
    }

    @Test func aScenarioServesItsOwnGraphQL() async throws {
      let file = try manifestFile(Self.manifest)
      defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
      let backend = try Backend(
        manifest: Manifest.load(contentsOf: file), scenario: .named("lonely"), issueReporter: .ignore,
        extensions: [.graphQL])
      let (body, _) = try await backend.send(Operations.viewer, operationName: "Viewer", variables: ["first": 3])
      #expect(body.contains(#""edges":[]"#))
      #expect(!body.contains("Ada Lovelace"))
    }

    @Test func eachOverrideTheSchemaDoesNotHaveIsAnErrorWhereItIsWritten() throws {
      let file = try manifestFile(
        """
        {
          "graphql": {
            "schema": "social.graphql",
            "types": {"Usr": {}, "Node": {}},
            "fields": {"Query.viewr": {"json": 1}, "Nope.x": {"json": 1}, "viewer": {"json": 1}},
            "scalars": {"Date": "x"}
          }
        }
        """)
      defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
      let manifest = try Manifest.load(contentsOf: file)
      let backend = Backend(issueReporter: .ignore)
      let path = file.path
      #expect(
        throws: DoppelError(
          """
          \(path):4:15: graphql.types.Usr: social.graphql has no object type Usr. Did you mean "User"? Name an object type (an interface or union is answered with one of its object types).
          \(path):4:26: graphql.types.Node: social.graphql has no object type Node. Name an object type (an interface or union is answered with one of its object types).
          \(path):5:16: graphql.fields["Query.viewr"]: social.graphql has no field viewr on Query. Did you mean "viewer"? The fields of Query are: feed, node, pets, search, user, viewer.
          \(path):5:44: graphql.fields["Nope.x"]: social.graphql has no object type Nope. Name a field as Type.field, such as Query.viewer.
          \(path):5:67: graphql.fields.viewer: social.graphql has no object type viewer. Name a field as Type.field, such as Query.viewer.
          \(path):6:17: graphql.scalars.Date: social.graphql has no scalar Date. The scalars are: Boolean, DateTime, Float, ID, Int, String, URL.
          """)
      ) { try backend.addStubs(from: manifest, extensions: [.graphQL]) }
      #expect(backend.stubs.isEmpty)
    }

    @Test func aSchemaThatCannotBeUsedIsNamedWithTheManifestsLine() throws {
      let file = try manifestFile(
        #"{"graphql": {"schema": "social.graphql"}}"#, schema: "type Query {\n  hello: Strin\n}")
      defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
      let manifest = try Manifest.load(contentsOf: file)
      #expect(
        throws: DoppelError(
          "\(file.path):1:24: graphql.schema: social.graphql:2:10: the GraphQL schema is invalid: Unknown type \"Strin\". Fix the SDL there."
        )
      ) { try Backend(manifest: manifest, issueReporter: .ignore, extensions: [.graphQL]) }
    }
  }
#endif
