#if GraphQL
  import Doppel
  import Foundation
  import GraphQL

  extension ManifestExtension {
    /// Serves a manifest's `"graphql"`: its schema, answering every operation sent to its
    /// `endpoint` (by default `/graphql` on any host) with made-up data, as
    /// `addStub(fromGraphQLSchema:at:mocks:)` does, with the manifest's `seed`, `listLength`,
    /// `types`, `fields` and `scalars` as the mocks' overrides.
    ///
    /// ```json
    /// {
    ///   "graphql": {
    ///     "schema": "schema.graphql",
    ///     "types": { "User": { "name": "Ada Lovelace" } },
    ///     "fields": { "Query.viewer": { "json": { "id": "user-1" } } },
    ///     "scalars": { "DateTime": "2024-05-01T12:00:00Z" }
    ///   }
    /// }
    /// ```
    ///
    /// ```swift
    /// let backend = try Backend(manifest: manifest, extensions: [.graphQL])
    /// ```
    ///
    /// The schema and the names are checked when the manifest is loaded: a schema that cannot be
    /// used, an override of a type, field or scalar the schema does not have, each an error naming
    /// the manifest's line and key.
    public static let graphQL = ManifestExtension(key: "graphql") { (backend, entry) throws(DoppelError) in
      let document: GraphQLSchemaDocument
      do throws(GraphQLSchemaError) {
        document = try GraphQLSchemaDocument.shared(entry.schema)
      } catch {
        throw DoppelError.manifest("\(entry.schemaPlace): \(error.description)")
      }
      let mocks = try GraphQLMocks(entry, schema: document)
      let location = entry.location
      return backend.addStub(
        from: document, at: entry.endpoint, mocks: mocks, fileID: location.fileID, filePath: location.filePath,
        line: location.line, column: location.column)
    }
  }

  extension GraphQLMocks {
    /// The mocks a manifest's `"graphql"` describes, each override's name checked against `schema`.
    init(_ entry: ManifestGraphQL, schema document: GraphQLSchemaDocument) throws(DoppelError) {
      self.init(seed: entry.seed ?? 0, listLength: entry.listLength ?? 2)
      let schema = document.schema
      let objectTypes = schema.typeMap.values.compactMap { $0 as? GraphQLObjectType }
        .filter { !$0.name.hasPrefix("__") }.map(\.name).sorted()
      let scalarTypes = schema.typeMap.values.compactMap { $0 as? GraphQLScalarType }.map(\.name).sorted()
      var problems: [String] = []
      for override in entry.types {
        guard schema.getType(name: override.name) is GraphQLObjectType else {
          problems.append(
            "\(override.place): \(document.name) has no object type \(override.name).\(Suggestion.didYouMean(override.name, in: objectTypes)) Name an object type (an interface or union is answered with one of its object types)."
          )
          continue
        }
        let value = override.value
        type(override.name) { value }
      }
      for override in entry.fields {
        let parts = override.name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let type = schema.getType(name: parts[0]) as? GraphQLObjectType else {
          problems.append(
            "\(override.place): \(document.name) has no object type \(override.name.split(separator: ".").first.map(String.init) ?? override.name).\(Suggestion.didYouMean(parts[0], in: objectTypes)) Name a field as Type.field, such as Query.viewer."
          )
          continue
        }
        let fieldNames = ((try? type.fields()) ?? [:]).keys.sorted()
        guard fieldNames.contains(parts[1]) else {
          problems.append(
            "\(override.place): \(document.name) has no field \(parts[1]) on \(parts[0]).\(Suggestion.didYouMean(parts[1], in: fieldNames)) The fields of \(parts[0]) are: \(fieldNames.joined(separator: ", "))."
          )
          continue
        }
        switch override.value {
        case .json(let value): field(override.name) { _ in value }
        case .error(let message, let extensions):
          field(override.name) { _ in throw GraphQLFieldError(message, extensions: extensions) }
        }
      }
      for override in entry.scalars {
        guard schema.getType(name: override.name) is GraphQLScalarType else {
          problems.append(
            "\(override.place): \(document.name) has no scalar \(override.name).\(Suggestion.didYouMean(override.name, in: scalarTypes)) The scalars are: \(scalarTypes.joined(separator: ", "))."
          )
          continue
        }
        let value = override.value
        scalar(override.name) { value }
      }
      if !problems.isEmpty { throw DoppelError.manifest(problems.joined(separator: "\n")) }
    }
  }
#endif
