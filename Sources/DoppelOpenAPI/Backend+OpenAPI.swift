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
    /// same for the same `seed`) that conforms to it: an example that breaks its own schema is
    /// not served (``OpenAPIDocument/warnings`` names it) unless `examples` is `.asIs`. A request
    /// picks another response with the `Prefer` header, as Prism does: `Prefer: code=404` for a
    /// status, `Prefer: example=empty` for a named example.
    ///
    /// A named example is a scenario: with `scenario` naming it (by default `DOPPEL_SCENARIO` or
    /// the launch argument `-DoppelScenario`), every operation that has an example of that name
    /// answers with it, and the others answer as usual.
    ///
    /// The stubs answer only requests that no other stub takes: stubs added in code, from a
    /// manifest or a cassette win whether they were added before or after these.
    ///
    /// Requests are routed as OpenAPI says: a concrete path (`/pets/mine`) before a template that
    /// also fits (`/pets/{id}`) whatever their order in the document, then templates with more
    /// literal segments. Each path is served under every server's path (`servers`, with their
    /// variables' defaults). A documented path asked with a method it does not document gets
    /// 405 with `Allow` and an `application/problem+json` body. Served by the stub server, a
    /// request under those paths that no stub matches gets the document's error shape (the
    /// schema of its operations' `404` answers, else `4XX`, else `default`) with the near-miss
    /// report as its message, or an `application/problem+json` whose `detail` is the report; in
    /// a test it fails and is reported as any unmatched request is.
    ///
    /// A request that breaks the document (a required parameter missing, a value its schema
    /// refuses, missing credentials its `security` requires, a body that does not conform or is
    /// not JSON, an undocumented content type) is refused as Prism refuses it: with the
    /// operation's own 400, 401 or 422 answer when it documents one, else an
    /// `application/problem+json` 400 (parameters), 401 (credentials) or 422 (body) naming each
    /// violation, the operation and the document's line; the issue is reported too (a test
    /// failure under DoppelTesting's `.doppel` trait). Pass `invalidRequests: .answered` to
    /// answer such requests as valid ones.
    ///
    /// - Parameters:
    ///   - url: the document, YAML or JSON, OpenAPI 3.0 or 3.1.
    ///   - scenario: the named example to prefer.
    ///   - seed: the seed of generated values.
    ///   - invalidRequests: whether a request that breaks the document is refused (the default)
    ///     or answered.
    ///   - examples: whether an example that breaks its own schema is replaced by a generated
    ///     answer (the default) or served as written.
    /// - Returns: the stubs added, one per operation, in document order.
    /// - Throws: ``OpenAPIError`` for a document that cannot be used, `DoppelError` for a scenario
    ///   no example has.
    @discardableResult
    public func addStubs(
      fromOpenAPI url: URL, scenario: ScenarioSelection = .automatic, seed: UInt64 = 0,
      invalidRequests: OpenAPIDocument.InvalidRequests = .refused, examples: OpenAPIDocument.Examples = .conforming
    ) throws -> [StubHandle] {
      try addStubs(
        from: OpenAPIDocument.shared(url), scenario: scenario, seed: seed, invalidRequests: invalidRequests,
        examples: examples)
    }

    /// ``addStubs(fromOpenAPI:scenario:seed:invalidRequests:examples:)`` for a document read already.
    @discardableResult
    public func addStubs(
      from document: OpenAPIDocument, scenario: ScenarioSelection = .automatic, seed: UInt64 = 0,
      invalidRequests: OpenAPIDocument.InvalidRequests = .refused, examples: OpenAPIDocument.Examples = .conforming
    ) throws -> [StubHandle] {
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
      var handles: [String: StubHandle] = [:]
      // A request under the document's servers that no stub takes gets, from the stub server,
      // the document's error shape (or an RFC 9457 problem) carrying the near-miss report.
      let shape = document.errorShape()
      shapeUnmatchedAnswers { request, report, status in
        document.unmatchedAnswer(for: request, report: report, status: status, shape: shape, seed: seed)
      }
      // One stub for the methods the document's paths do not document, first so that every
      // operation wins: 405 with `Allow` (204 for OPTIONS). A `HEAD` where `GET` is documented
      // is left to the engine, which answers it as `GET`.
      _ = fallbackStub(
        .custom("a method \(document.name) does not document for the path") { request in
          document.undocumentedMethod(request) != nil
        }, name: "\(document.name) (undocumented methods)", location: document.codeLocation(document.pathsLocation)
      ) { request in
        guard let (template, allow) = document.undocumentedMethod(request) else { return .status(500) }
        return document.methodNotAllowed(request, template: template, allow: allow)
      }
      // Later stubs win, so the least specific path goes first: a request reaches the operation
      // of the most specific documented path that fits it (concrete paths before templates), as
      // OpenAPI routes, whatever the document's order.
      for operation in document.routing.reversed() {
        let location = document.codeLocation(operation.location)
        let handle = fallbackStub(
          .method(operation.method) && document.pathMatcher(operation.template), name: operation.name,
          location: location
        ) { [weak self] request in
          // A more specific path without this method decides, not this template: 405.
          if operation.isTemplated, let (template, allow) = document.undocumentedMethod(request),
            template != operation.template
          {
            return document.methodNotAllowed(request, template: template, allow: allow)
          }
          if invalidRequests == .refused,
            let refusal = document.refusal(for: request, operation: operation, seed: seed)
          {
            let reason = refusal.headers["X-Doppel-Refused"] ?? ""
            self?.issueReporter.report(
              DoppelIssue(
                "OpenAPI: \(request.method.rawValue) \(request.url.absoluteString) was refused with \(refusal.status): \(reason)",
                location: location))
            return refusal
          }
          return document.response(
            for: request, operation: operation, scenario: chosen?.name, seed: seed, examples: examples)
        }
        handles[operation.key] = handle
      }
      return document.operations.compactMap { handles[$0.key] }
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
    /// Where a stub made from the document is declared: the file the operation is written in (the
    /// document, or a file a `$ref` names), at its line.
    func codeLocation(_ location: DocumentLocation) -> CodeLocation {
      let path =
        location.file == name
        ? url.path : url.deletingLastPathComponent().appendingPathComponent(location.file).path
      return CodeLocation(fileID: location.file, filePath: path, line: location.line, column: 1)
    }

    private static let cache = FileCache<OpenAPIDocument>()

    /// The document at `url`, read once per process while the file is unchanged.
    static func shared(_ url: URL) throws(OpenAPIError) -> OpenAPIDocument {
      try cache.value(for: url) { url throws(OpenAPIError) in try OpenAPIDocument(contentsOf: url) }
    }
  }
#endif
