#if OpenAPI
  import Doppel
  import Foundation

  extension Backend {
    /// Answers every operation of an OpenAPI document: a backend before the endpoint exists.
    ///
    /// ```swift
    /// let backend = Backend()
    /// try backend.addStubs(fromOpenAPI: Bundle.module.url(forResource: "api", withExtension: "yaml")!)
    /// let (data, _) = try await backend.session.data(from: URL(string: "https://api.example.com/v1/breeds")!)
    /// ```
    ///
    /// Each operation answers with its lowest documented 2xx response. The body is the response's
    /// `example`, else its first entry of `examples`, else a value generated from its schema (the
    /// same for the same `seed`). A request picks another response with the `Prefer` header, as
    /// Prism does: `Prefer: code=404` for a status, `Prefer: example=empty` for a named example.
    ///
    /// A named example is a scenario: with `scenario` naming it (by default `DOPPEL_SCENARIO` or
    /// the launch argument `-DoppelScenario`), every operation that has an example of that name
    /// answers with it, and the others answer as usual.
    ///
    /// The stubs answer only requests that no other stub takes: stubs added in code, from a
    /// manifest or a cassette win whether they were added before or after these.
    ///
    /// - Parameters:
    ///   - url: the document, YAML or JSON, OpenAPI 3.0 or 3.1.
    ///   - scenario: the named example to prefer.
    ///   - seed: the seed of generated values.
    /// - Returns: the stubs added, one per operation, in document order.
    /// - Throws: ``OpenAPIError`` for a document that cannot be used, `DoppelError` for a scenario
    ///   no example has.
    @discardableResult
    public func addStubs(fromOpenAPI url: URL, scenario: ScenarioSelection = .automatic, seed: UInt64 = 0) throws
      -> [StubHandle]
    {
      try addStubs(from: OpenAPIDocument.shared(url), scenario: scenario, seed: seed)
    }

    /// ``addStubs(fromOpenAPI:scenario:seed:)`` for a document read already.
    @discardableResult
    public func addStubs(from document: OpenAPIDocument, scenario: ScenarioSelection = .automatic, seed: UInt64 = 0)
      throws -> [StubHandle]
    {
      let chosen = try scenario.resolve()
      if let chosen, !document.exampleNames.contains(chosen.name) {
        let names = document.exampleNames
        throw DoppelError.openAPI(
          "The scenario \"\(chosen.name)\" (\(chosen.source)) is not the name of any example in \(document.name); "
            + (names.isEmpty
              ? "the document has no named examples. Add one under a response's `examples`, or choose no scenario."
              : "its examples are \(names.map { "\"\($0)\"" }.joined(separator: ", ")). Use one of those.")
        )
      }
      var handles: [StubHandle] = []
      for operation in document.operations {
        let template = document.basePath + operation.template
        let location = CodeLocation(
          fileID: document.name, filePath: document.url.path, line: operation.location.line, column: 1)
        let handle = fallbackStub(
          .method(operation.method) && .path(template), name: operation.name, location: location
        ) { request in
          document.response(for: request, operation: operation, scenario: chosen?.name, seed: seed)
        }
        handles.append(handle)
      }
      return handles
    }

    /// Checks, from now on, every request this backend sees and every response it gives against
    /// an OpenAPI document, and reports each violation as an issue (a test failure under
    /// DoppelTesting's `.doppel` trait), located at the stub that gave the response.
    ///
    /// Requests: a documented path and method, required parameters present and of their types,
    /// a documented content type, a body that conforms to its schema. Responses: a status the
    /// operation documents, required headers, a documented content type, a body that conforms.
    ///
    /// ```text
    /// OpenAPI: getBreed (GET /breeds/{breedId}): response 200 body $.name: the required property "name" is missing (api.yaml:142 components.schemas.Breed.required)
    /// ```
    ///
    /// - Throws: ``OpenAPIError`` for a document that cannot be used.
    public func validate(against url: URL) throws {
      validate(against: try OpenAPIDocument.shared(url))
    }

    /// ``validate(against:)-(URL)`` for a document read already.
    public func validate(against document: OpenAPIDocument) {
      addExchangeCheck("OpenAPI") { exchange in
        document.violations(
          in: exchange.request, status: exchange.status, headers: exchange.headers, body: exchange.body
        ).map(\.description)
      }
    }
  }

  extension OpenAPIDocument {
    private static let cache = FileCache<OpenAPIDocument>()

    /// The document at `url`, read once per process while the file is unchanged.
    static func shared(_ url: URL) throws(OpenAPIError) -> OpenAPIDocument {
      try cache.value(for: url) { url throws(OpenAPIError) in try OpenAPIDocument(contentsOf: url) }
    }
  }
#endif
