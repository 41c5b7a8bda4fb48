#if OpenAPI
  import CatFancyKit
  import Doppel
  import DoppelOpenAPI
  import DoppelTesting
  import Foundation
  import Testing
  @_spi(DoppelInternals) import DoppelToolkit

  @Suite struct ServeTests {
    func get(_ backend: Backend, _ path: String, prefer: String? = nil) async throws -> (String, HTTPURLResponse) {
      var request = URLRequest(url: .cattery(path))
      if let prefer { request.setValue(prefer, forHTTPHeaderField: "Prefer") }
      let (data, response) = try await backend.respond(to: request)
      return (String(decoding: data, as: UTF8.self), response)
    }

    /// A document whose schema for `/a` is `schema` (YAML flow style), with a schema `Node` that
    /// requires itself.
    static func document(answering schema: String) -> String {
      Documents.answering(
        schema,
        rest: """
          components:
            schemas:
              Node:
                type: object
                required: [next, children]
                properties:
                  next: {$ref: '#/components/schemas/Node'}
                  children: {type: array, minItems: 3, items: {$ref: '#/components/schemas/Node'}}
          """)
    }

    @Test func aSchemaThatRequiresItselfGivesAnExampleCutShort() async throws {
      // No finite value conforms; the example stops at a fixed depth and count instead of
      // overflowing the stack.
      let url = try Documents.temporary("node.yaml", Self.document(answering: "{$ref: '#/components/schemas/Node'}"))
      let backend = Backend()
      try backend.addStubs(fromOpenAPI: url)
      let (data, response) = try await backend.respond(to: URLRequest(url: URL(string: "https://x.test/a")!))
      #expect(response.statusCode == 200)
      let value = try JSONValue(parsing: data)
      #expect(Self.depth(of: value) <= 34)
      #expect(data.count < 8 << 20)
    }

    @Test(arguments: [
      "{type: string, minLength: 9000000000000000000}",
      "{type: array, minItems: 1000000000000, items: {type: integer}}",
      "{type: array, minItems: 1000000, items: {type: string, minLength: 1000000000}}",
    ])
    func minimumsNoAnswerCouldHoldAreCapped(_ schema: String) async throws {
      let url = try Documents.temporary("huge.yaml", Self.document(answering: schema))
      let backend = Backend()
      try backend.addStubs(fromOpenAPI: url)
      let (data, response) = try await backend.respond(to: URLRequest(url: URL(string: "https://x.test/a")!))
      #expect(response.statusCode == 200)
      #expect(data.count > 1_000)
      #expect(data.count < 8 << 20)
    }

    static func depth(of value: JSONValue) -> Int {
      switch value {
      case .array(let items): 1 + (items.map(depth(of:)).max() ?? 0)
      case .object(let members): 1 + (members.values.map(depth(of:)).max() ?? 0)
      default: 0
      }
    }

    @Test func answersWithTheFirstExampleOfTheLowest2xx() async throws {
      let backend = Backend()
      try backend.addStubs(fromOpenAPI: Documents.cattery, scenario: .base)
      let (body, response) = try await get(backend, "/breeds")
      #expect(response.statusCode == 200)
      #expect(response.value(forHTTPHeaderField: "X-Rate-Limit") == "100")
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
      #expect(body.hasPrefix(#"{"breeds":[{"id":1,"lifespan":14,"name":"Abyssinian""#))
      let (text, plain) = try await get(backend, "/health")
      #expect(text == "ok")
      #expect(plain.value(forHTTPHeaderField: "Content-Type") == "text/plain")
    }

    @Test func preferPicksStatusAndExample() async throws {
      let backend = Backend()
      try backend.addStubs(fromOpenAPI: Documents.cattery, scenario: .base)
      let (missing, notFound) = try await get(backend, "/breeds/7", prefer: "code=404")
      #expect(notFound.statusCode == 404)
      #expect(notFound.value(forHTTPHeaderField: "Content-Type") == "application/problem+json")
      #expect(missing == #"{"status":404,"title":"Not found"}"#)
      let (empty, _) = try await get(backend, "/breeds", prefer: "example=empty")
      #expect(empty == #"{"breeds":[]}"#)
      let (_, undocumented) = try await get(backend, "/breeds/7", prefer: "code=418")
      #expect(undocumented.statusCode == 500)
    }

    @Test func aNamedExampleIsAScenario() async throws {
      let backend = Backend()
      try backend.addStubs(
        fromOpenAPI: Documents.cattery, scenario: .automatic(environment: ["DOPPEL_SCENARIO": "empty"], arguments: []))
      #expect(try await get(backend, "/breeds").0 == #"{"breeds":[]}"#)
      let other = Backend()
      try other.addStubs(fromOpenAPI: Documents.cattery, scenario: "missing")
      #expect(try await get(other, "/breeds/3").1.statusCode == 404)
      #expect(try await get(other, "/breeds").1.statusCode == 200)
      #expect(
        throws: DoppelError(
          "The scenario \"emtpy\" (chosen in code) is not the name of any example in cattery.yaml; its examples are \"standard\", \"empty\", \"missing\". Use one of those."
        )
      ) { try Backend().addStubs(fromOpenAPI: Documents.cattery, scenario: "emtpy") }
    }

    @Test(arguments: ["cattery.yaml", "cattery-3.0.json"])
    func generatedBodiesConformAndRepeat(_ name: String) async throws {
      let document = try OpenAPIDocument(contentsOf: Documents.url(name))
      let first = Backend()
      try first.addStubs(from: document, scenario: .base, seed: 42)
      let second = Backend()
      try second.addStubs(from: document, scenario: .base, seed: 42)
      for path in [
        "/breeds/1", "/breeds/1/photos", "/pets?species=cat", "/pets/0b7c4f4e-8f4e-4b57-9a3e-0d2a7f3b9c11", "/owners/5",
      ] {
        var request = URLRequest(url: .cattery(path))
        request.httpMethod = "GET"
        let (data, response) = try await first.respond(to: request)
        let (again, _) = try await second.respond(to: request)
        #expect(data == again, "\(path) is generated the same way twice")
        let headers = HTTPHeaders(response.allHeaderFields.map { ("\($0.key)", "\($0.value)") })
        let found = document.violations(in: Request(request), status: response.statusCode, headers: headers, body: data)
        #expect(found.isEmpty, "\(path): \(found)")
      }
    }

    @Test func stubsInCodeWinWhenAddedBeforeOrAfter() async throws {
      let backend = Backend()
      backend.stub(.get("https://api.cattery.test/v1/breeds/1"), .status(404))
      try backend.addStubs(fromOpenAPI: Documents.cattery, scenario: .base)
      backend.stub(.get("https://api.cattery.test/v1/breeds/2"), .status(410))
      #expect(try await get(backend, "/breeds/1").1.statusCode == 404)
      #expect(try await get(backend, "/breeds/2").1.statusCode == 410)
      #expect(try await get(backend, "/breeds/3").1.statusCode == 200)
    }

    @Test func catFancyFromASpec() async throws {
      let backend = Backend()
      try backend.addStubs(fromOpenAPI: Documents.catFancy, scenario: .base)
      try backend.validate(against: Documents.catFancy)
      let state = await BreedListState.load(with: BreedRequester(session: backend.session, url: BreedsURL.standard.url))
      guard case .breeds(let breeds) = state else {
        Issue.record("expected breeds, got \(state)")
        return
      }
      #expect(breeds.map(\.name) == ["Abyssinian"])
      let empty = Backend()
      try empty.addStubs(fromOpenAPI: Documents.catFancy, scenario: "empty")
      #expect(
        await BreedListState.load(with: BreedRequester(session: empty.session, url: BreedsURL.standard.url)) == .noData)
    }

    @Test(
      .doppel { $0.stub(.get("https://api.cattery.test/v1/breeds/1"), .json(["id": 1, "name": "A"])) },
      .doppel(openAPI: "Resources/cattery.yaml"))
    func traitChecksTheTestsBackend() async throws {
      // The violation would fail this test; collect it instead to see that it is found.
      let seen = Locked([String]())
      Backend.current.issueReporter = IssueReporter { issue in seen.withLock { $0.append(issue.message) } }
      _ = try await Backend.current.session.data(from: .cattery("/breeds/1"))
      #expect(
        seen.withLock { $0 } == [
          #"OpenAPI: getBreed (GET /breeds/{breedId}): response 200 body $: the required property "lifespan" is missing (cattery.yaml:282 components.schemas.Breed.required)"#
        ])
    }
  }

  @Suite(.doppel(openAPI: "Resources/cattery.yaml"))
  struct SuiteTraitTests {
    @Test(.doppel { $0.stub(.get("https://api.cattery.test/v1/health"), .text("ok")) })
    func conformingTrafficPasses() async throws {
      let (data, _) = try await Backend.current.session.data(from: .cattery("/health"))
      #expect(String(decoding: data, as: UTF8.self) == "ok")
    }
  }
#endif
