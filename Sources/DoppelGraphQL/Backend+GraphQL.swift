#if GraphQL
  import Doppel
  import Foundation

  extension Backend {
    /// Answers every GraphQL operation sent to `endpoint` from a schema, with made-up data: a
    /// backend before the server exists.
    ///
    /// ```swift
    /// let backend = Backend()
    /// try backend.addStub(fromGraphQLSchema: schemaURL, at: .url("https://api.example.com/graphql"))
    /// ```
    ///
    /// A `POST` with a JSON body (`{"query": …, "operationName": …, "variables": …}`) and a `GET`
    /// with query items are answered by running the operation against the schema with the data
    /// `mocks` makes up (see ``GraphQLMocks``): the same request gets the same answer for the same
    /// seed. Apollo's automatic persisted queries work as with Apollo Server: a hash the endpoint
    /// does not know answers `PersistedQueryNotFound`, and a request with the query and its hash
    /// registers it.
    ///
    /// Every operation sent to `endpoint` is checked against the schema, whichever stub answers
    /// it, and each problem is reported as an issue (a test failure under DoppelTesting's
    /// `.doppel` trait) naming the operation, the line and column in it, and the schema's line.
    /// An operation the schema contradicts is answered with its errors: status `400` with
    /// `application/graphql-response+json` when the request accepts that type, else `200` with
    /// `application/json` (the GraphQL-over-HTTP specification's rule). Answers that other stubs
    /// give to requests for `endpoint` are checked too, as ``validate(against:at:)`` does.
    ///
    /// The stub answers only requests that no other stub takes: a `.graphQL(operation:)` stub
    /// added before or after it wins.
    ///
    /// - Parameters:
    ///   - url: the schema: SDL (`.graphql`, `.graphqls`) or an introspection result (JSON).
    ///   - endpoint: the requests to answer, such as `.url("https://api.example.com/graphql")`.
    ///   - mocks: how to make up data.
    ///   - fileID: the file that added the stub, for diagnostics; leave the default.
    ///   - filePath: the full path of that file, for the test failure's location; leave the default.
    ///   - line: the line of the call; leave the default.
    ///   - column: the column of the call; leave the default.
    /// - Returns: the stub added.
    /// - Throws: ``GraphQLSchemaError`` for a schema that cannot be used.
    @discardableResult
    public func addStub(
      fromGraphQLSchema url: URL, at endpoint: Matcher, mocks: GraphQLMocks = GraphQLMocks(),
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws(GraphQLSchemaError) -> StubHandle {
      addStub(
        from: try GraphQLSchemaDocument.shared(url), at: endpoint, mocks: mocks, fileID: fileID, filePath: filePath,
        line: line, column: column)
    }

    /// ``addStub(fromGraphQLSchema:at:mocks:fileID:filePath:line:column:)`` for a schema read
    /// already.
    ///
    /// - Parameters:
    ///   - document: the schema.
    ///   - endpoint: the requests to answer, such as `.url("https://api.example.com/graphql")`.
    ///   - mocks: how to make up data.
    ///   - fileID: the file that added the stub, for diagnostics; leave the default.
    ///   - filePath: the full path of that file, for the test failure's location; leave the default.
    ///   - line: the line of the call; leave the default.
    ///   - column: the column of the call; leave the default.
    /// - Returns: the stub added.
    @discardableResult
    public func addStub(
      from document: GraphQLSchemaDocument, at endpoint: Matcher, mocks: GraphQLMocks = GraphQLMocks(),
      fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> StubHandle {
      let served = GraphQLEndpoint(document: document, mocks: mocks)
      let location = CodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
      let handle = fallbackStub(endpoint, name: "GraphQL \(document.name)", location: location) { request in
        served.response(for: request)
      }
      observe(served, at: endpoint, serving: handle)
      return handle
    }

    /// Checks, from now on, every GraphQL operation sent to `endpoint` and every answer it gets
    /// against a schema, and reports each problem as an issue (a test failure under
    /// DoppelTesting's `.doppel` trait), located at the stub that answered.
    ///
    /// Operations: every field, argument, type, fragment and variable as GraphQL's validation
    /// rules check them. Answers (JSON bodies of `2xx` responses): every selected field present,
    /// no field the operation did not select, `null` only where the type allows it, values of the
    /// field's type, enum values the enum has, and a `__typename` that is the object's type.
    ///
    /// ```text
    /// GraphQL: Viewer (answer) $.data.viewer.friends[1].name: expected a String, found the number 5 (schema.graphql:33 User.name)
    /// ```
    public func validate(against document: GraphQLSchemaDocument, at endpoint: Matcher) {
      observe(GraphQLEndpoint(document: document, mocks: GraphQLMocks()), at: endpoint, serving: nil)
    }

    /// ``validate(against:at:)`` for the schema at `url`.
    ///
    /// - Throws: ``GraphQLSchemaError`` for a schema that cannot be used.
    public func validate(againstGraphQLSchema url: URL, at endpoint: Matcher) throws(GraphQLSchemaError) {
      validate(against: try GraphQLSchemaDocument.shared(url), at: endpoint)
    }

    private func observe(_ served: GraphQLEndpoint, at endpoint: Matcher, serving handle: StubHandle?) {
      addExchangeCheck("GraphQL") { exchange in
        guard endpoint.matches(exchange.request) else { return [] }
        let ours = handle.map { exchange.stub === $0 } ?? false
        return served.violations(
          request: exchange.request, answeredBy: ours, status: exchange.status, body: exchange.body
        ).map(\.description)
      }
    }
  }

  extension GraphQLSchemaDocument {
    private static let cache = FileCache<GraphQLSchemaDocument>()

    /// The schema at `url`, read once per process while the file is unchanged.
    package static func shared(_ url: URL) throws(GraphQLSchemaError) -> GraphQLSchemaDocument {
      try cache.value(for: url) { url throws(GraphQLSchemaError) in try GraphQLSchemaDocument(contentsOf: url) }
    }
  }
#endif
