#if Server && GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  // The GraphQL schemas `doppel serve` and `doppel lint` read, with the GraphQL trait. Without it,
  // GraphQLInputs+WithoutTrait.swift declares the same names, each saying how to build a doppel
  // that can.

  extension ServeInputs {
    /// What serves the parts of a manifest other modules serve: its `graphql`.
    static var manifestExtensions: [ManifestExtension] { [.graphQL] }

    /// Why `manifest`'s `graphql` (the base's and each scenario's) cannot be served: with `check`,
    /// what is wrong with a schema or an override's name. Empty when all can be.
    static func graphQLRefusals(_ manifest: Manifest, check: Bool = true) -> [String] {
      guard check else { return [] }
      return manifest.graphQLEntries.flatMap { entry -> [String] in
        do throws(DoppelError) {
          _ = try ManifestExtension.graphQL.serveGraphQL(Backend(issueReporter: .ignore), entry)
          return []
        } catch {
          return error.message.split(separator: "\n").map(String.init)
        }
      }
    }

    /// The GraphQL schemas among the inputs, each served at the path ``path`` of any host.
    struct GraphQLInputs {
      /// Where a served schema answers: `POST /graphql` and `GET /graphql?query=…`.
      static let path = "/graphql"

      /// Each schema with its path as typed.
      var schemas: [(path: String, schema: GraphQLSchemaDocument)] = []
      /// `schema.graphql:12:3: warning: …` for each deviation a schema is served despite.
      var warnings: [String] = []
      /// The schemas of the manifests' `graphql` (each manifest's, for the scenario served),
      /// with their endpoints.
      var manifestSchemas: [(schema: GraphQLSchemaDocument, endpoint: Matcher)] = []

      /// Every schema served and where: what the request log's GraphQL lines check against.
      var checked: [(schema: GraphQLSchemaDocument, endpoint: Matcher)] {
        schemas.map { ($0.schema, Matcher.path(Self.path)) } + manifestSchemas
      }

      /// Notes the schema a manifest's `graphql` serves (read already by the manifest's loading),
      /// so that the request log checks against it too.
      mutating func note(_ entry: ManifestGraphQL) {
        if let schema = try? GraphQLSchemaDocument.shared(entry.schema) {
          manifestSchemas.append((schema, entry.endpoint))
        }
      }

      /// Reads the schema at `path`; with `strict`, a deviation it would be served despite (a
      /// field defined twice) is an error, else a line of ``warnings``.
      ///
      /// - Throws: ``DoppelError`` naming the file as typed, the line, the column and the fix.
      mutating func load(_ path: String, strict: Bool = false) throws {
        do {
          let schema = try GraphQLSchemaDocument(contentsOf: URL(fileURLWithPath: path), strict: strict)
          schemas.append((path, schema))
          warnings += schema.warnings.map { "\(path):\($0.line):\($0.column): warning: \($0.message)" }
        } catch {
          throw DoppelError("\(path):\(error.line):\(error.column): \(error.message)")
        }
      }

      /// Serves each schema at ``path``, answering only requests no other stub takes, with values
      /// made from `seed`.
      func addStubs(to backend: Backend, seed: UInt64) {
        for (_, schema) in schemas {
          backend.addStub(from: schema, at: .path(Self.path), mocks: GraphQLMocks(seed: seed))
        }
      }

      /// `schema.graphql (GraphQL at /graphql)` for each schema.
      var summaries: [String] {
        schemas.map { "\($0.path) (GraphQL at \(Self.path))" }
      }
    }
  }

  extension Serve {
    /// The schemas served as last loaded, with their endpoints: what the request log's GraphQL
    /// lines check against.
    static let checkedSchemas = Locked([(schema: GraphQLSchemaDocument, endpoint: Matcher)]())

    /// From now on, prints a line for everything a served schema contradicts in a GraphQL
    /// request `backend` answers at the schema's endpoint, or in a `2xx` answer of another stub
    /// there, as a test's issue would say it:
    ///
    /// ```text
    /// GraphQL: Friends (operation line 1, column 40): Unknown type "PetFiltre". Did you mean "PetFilter"? (social.graphql:120 PetFilter)
    /// ```
    ///
    /// The lines are printed only: the answers stay what the stubs say.
    static func printGraphQLViolations(of backend: Backend) {
      backend.addExchangeObserver { exchange in
        for served in checkedSchemas.withLock({ $0 }) where served.endpoint.matches(exchange.request) {
          for violation in served.schema.violations(
            in: exchange.request, status: exchange.status ?? 0, body: exchange.body)
          {
            Console.out(Redaction.default.redact(line: "GraphQL: \(violation)"))
          }
        }
      }
    }

    /// Keeps the schemas as loaded now: what the request log's GraphQL lines check against.
    static func rememberSchemas(_ loaded: ServeInputs.Loaded) {
      checkedSchemas.withLock { $0 = loaded.graphQL.checked }
    }
  }
#endif
