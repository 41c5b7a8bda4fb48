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
      switch url.pathExtension.lowercased() {
      case "graphql", "graphqls":
        return true
      case "json":
        guard let object = jsonObject(at: url) else { return false }
        return object["__schema"] != nil || (object["data"] as? [String: Any])?["__schema"] != nil
      default:
        return false
      }
    }

    /// The GraphQL schemas among the inputs, each served at the path ``path`` of any host.
    struct GraphQLInputs {
      /// Where a served schema answers: `POST /graphql` and `GET /graphql?query=…`.
      static let path = "/graphql"

      #if GraphQL
        /// Each schema with its path as typed.
        var schemas: [(path: String, schema: GraphQLSchemaDocument)] = []
      #endif

      /// Reads the schema at `path`.
      ///
      /// - Throws: ``DoppelError`` naming the file as typed, the line, the column and the fix;
      ///   without the GraphQL trait, one that says how to build the tool with it.
      mutating func load(_ path: String) throws {
        #if GraphQL
          do {
            schemas.append((path, try GraphQLSchemaDocument(contentsOf: URL(fileURLWithPath: path))))
          } catch {
            throw DoppelError("\(path):\(error.line):\(error.column): \(error.message)")
          }
        #else
          throw DoppelError(
            "\(path) is a GraphQL schema, and serving one needs the GraphQL trait, which this doppel was built without. Build it with the trait on: swift build --traits Server,GraphQL --product doppel-cli (or swift run --traits Server,GraphQL doppel-cli serve \(path))."
          )
        #endif
      }

      /// Serves each schema at ``path``, answering only requests no other stub takes.
      func addStubs(to backend: Backend) {
        #if GraphQL
          for (_, schema) in schemas { backend.addStub(from: schema, at: .path(Self.path)) }
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
#endif
