#if Server
  import Doppel
  import Foundation

  #if GraphQL
    import DoppelGraphQL
  #endif

  extension ServeInputs {
    /// What serves the parts of a manifest other modules serve: its `graphql`, with the GraphQL
    /// trait.
    static var manifestExtensions: [ManifestExtension] {
      #if GraphQL
        [.graphQL]
      #else
        []
      #endif
    }

    /// Why `manifest`'s `graphql` (the base's and each scenario's) cannot be served: without the
    /// GraphQL trait, that this doppel cannot serve it, with how to build one that can; with it
    /// and `check`, what is wrong with a schema or an override's name. Empty when all can be.
    static func graphQLRefusals(_ manifest: Manifest, check: Bool = true) -> [String] {
      #if GraphQL
        guard check else { return [] }
        return manifest.graphQLEntries.flatMap { entry -> [String] in
          do throws(DoppelError) {
            _ = try ManifestExtension.graphQL.serveGraphQL(Backend(issueReporter: .ignore), entry)
            return []
          } catch {
            return error.message.split(separator: "\n").map(String.init)
          }
        }
      #else
        return manifest.graphQLEntries.map {
          "\($0.place): serving a GraphQL schema needs the GraphQL trait, which this doppel was built without. Build it with the trait on: swift build --traits Server,GraphQL --product doppel-cli."
        }
      #endif
    }

    /// Whether `url` names a GraphQL schema rather than a manifest: a `.graphql` or `.graphqls`
    /// file, or a `.json` file holding an introspection result (a top-level `__schema`, or one
    /// under `data`). A manifest or a cassette has neither.
    static func isGraphQLSchema(_ url: URL) -> Bool {
      isDocument(url, extensions: ["graphql", "graphqls"]) { object in
        object["__schema"] != nil || (object["data"] as? [String: Any])?["__schema"] != nil
      }
    }

    /// The GraphQL schemas among the inputs, each served at the path ``path`` of any host.
    struct GraphQLInputs {
      /// Where a served schema answers: `POST /graphql` and `GET /graphql?query=…`.
      static let path = "/graphql"

      #if GraphQL
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
      #endif

      /// Notes the schema a manifest's `graphql` serves (read already by the manifest's loading),
      /// so that the request log checks against it too.
      mutating func note(_ entry: ManifestGraphQL) {
        #if GraphQL
          if let schema = try? GraphQLSchemaDocument.shared(entry.schema) {
            manifestSchemas.append((schema, entry.endpoint))
          }
        #endif
      }

      /// Reads the schema at `path`; with `strict`, a deviation it would be served despite (a
      /// field defined twice) is an error, else a line of ``warnings``.
      ///
      /// - Throws: ``DoppelError`` naming the file as typed, the line, the column and the fix;
      ///   without the GraphQL trait, one that says how to build the tool with it.
      mutating func load(_ path: String, strict: Bool = false) throws {
        #if GraphQL
          do {
            let schema = try GraphQLSchemaDocument(contentsOf: URL(fileURLWithPath: path), strict: strict)
            schemas.append((path, schema))
            warnings += schema.warnings.map { "\(path):\($0.line):\($0.column): warning: \($0.message)" }
          } catch {
            throw DoppelError("\(path):\(error.line):\(error.column): \(error.message)")
          }
        #else
          throw DoppelError(
            "\(path) is a GraphQL schema, and serving one needs the GraphQL trait, which this doppel was built without. Build it with the trait on: swift build --traits Server,GraphQL --product doppel-cli (or swift run --traits Server,GraphQL doppel-cli serve \(path))."
          )
        #endif
      }

      /// Serves each schema at ``path``, answering only requests no other stub takes, with values
      /// made from `seed`.
      func addStubs(to backend: Backend, seed: UInt64) {
        #if GraphQL
          for (_, schema) in schemas {
            backend.addStub(from: schema, at: .path(Self.path), mocks: GraphQLMocks(seed: seed))
          }
        #endif
      }

      /// `schema.graphql (GraphQL at /graphql)` for each schema.
      var summaries: [String] {
        #if GraphQL
          schemas.map { "\($0.path) (GraphQL at \(Self.path))" }
        #else
          []
        #endif
      }
    }
  }

  #if GraphQL
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
    }
  #endif
#endif
