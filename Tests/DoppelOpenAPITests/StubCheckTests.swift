#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import Testing

  /// `OpenAPIDocument.violations(of:)`: the static check of a stub's declaration.
  @Suite struct StubCheckTests {
    let document: OpenAPIDocument
    let backend = Backend(issueReporter: .ignore)

    init() throws { document = try OpenAPIDocument(contentsOf: Documents.cattery) }

    func messages(_ stub: StubHandle) -> [String] { document.violations(of: stub).map(\.description) }

    @Test func aConformingStubHasNoViolation() {
      #expect(
        messages(
          backend.stub(
            .get("https://api.cattery.test/v1/breeds/7"), .json(raw: #"{"id": 7, "name": "Bengal", "lifespan": 13}"#)))
          == [])
      // The required query parameter of listPets is not the stub's business: it matches any query.
      #expect(messages(backend.stub(.get("https://api.cattery.test/v1/pets"), .json(raw: "[]"))) == [])
      #expect(messages(backend.stub(.get("https://api.cattery.test/v1/breeds/{id}"), .status(404))) == [])
    }

    @Test func responsesAreCheckedWithTheRuntimeMessages() {
      let stub = backend.stub(
        .get("https://api.cattery.test/v1/breeds/7"), .json(raw: #"{"id": 7, "name": 5, "lifespan": 13}"#))
      #expect(
        messages(stub) == [
          "getBreed (GET /breeds/{breedId}): response 200 body $.name: expected a string, found the number 5 (cattery.yaml:289 components.schemas.Breed.properties.name.type)"
        ])
      let request = Request(method: .get, url: .cattery("/breeds/7"))
      let response = Response.json(raw: #"{"id": 7, "name": 5, "lifespan": 13}"#)
      #expect(document.violations(of: stub) == document.violations(in: request, response: response))
    }

    @Test func eachResponseOfASequenceIsChecked() {
      let stub = backend.stub(
        .get("https://api.cattery.test/v1/breeds/{breedId}"),
        .sequence([.status(418), .json(raw: #"{"id": 7, "name": "Bengal", "lifespan": 31}"#), .status(418)]))
      #expect(
        messages(stub) == [
          "getBreed (GET /breeds/{breedId}): response 418: the status 418 is not documented; the operation documents 200, 404 (cattery.yaml:86 paths./breeds/{breedId}.get.responses)",
          "getBreed (GET /breeds/{breedId}): response 200 body $.lifespan: 31 is greater than the maximum 30 (cattery.yaml:303 components.schemas.Breed.properties.lifespan.maximum)",
        ])
    }

    @Test func pathsMethodsAndPathParameters() {
      #expect(
        messages(backend.stub(.get("https://api.cattery.test/v1/cats"), .status(200))) == [
          "GET /v1/cats: request: no path in cattery.yaml matches /v1/cats (under the server path /v1) (cattery.yaml:8 paths)"
        ])
      #expect(
        messages(backend.stub(.delete("https://api.cattery.test/v1/pets/{id}"), .status(204))) == [
          "DELETE /v1/pets/{id}: request: /pets/{petId} has no DELETE operation; it documents GET (cattery.yaml:174 paths./pets/{petId})"
        ])
      #expect(
        messages(backend.stub(.get("https://api.cattery.test/v1/breeds/abc"), .status(404))) == [
          "getBreed (GET /breeds/{breedId}): request path parameter breedId: expected an integer, found the string \"abc\" (cattery.yaml:81 paths./breeds/{breedId}.parameters.0.schema.type)"
        ])
      // A template reaches only a parameter of the document's template, not a literal segment.
      #expect(
        messages(backend.stub(.get("https://api.cattery.test/v1/{collection}"), .status(200))) == [
          "GET /v1/{collection}: request: no path in cattery.yaml matches /v1/{collection} (under the server path /v1) (cattery.yaml:8 paths)"
        ])
    }

    @Test func whatTheMatcherDoesNotPinDownIsSkipped() {
      // A regular expression, a glob, a closure: no path to check.
      #expect(messages(backend.stub(.path(regex: "^/nowhere"), .status(599))) == [])
      #expect(messages(backend.stub(.path(glob: "/nowhere/*"), .status(599))) == [])
      #expect(messages(backend.stub(.custom("anything") { _ in true }, .status(599))) == [])
      // A closure's responses cannot be known; its path still is.
      #expect(messages(backend.stub(.get("https://api.cattery.test/v1/breeds/7")) { _ in .status(599) }) == [])
      #expect(
        messages(backend.stub(.get("https://api.cattery.test/v1/dogs")) { _ in .status(200) }) == [
          "GET /v1/dogs: request: no path in cattery.yaml matches /v1/dogs (under the server path /v1) (cattery.yaml:8 paths)"
        ])
      // Without a method, responses are checked only when one operation has the path.
      #expect(messages(backend.stub(.path("/v1/breeds"), .status(599))) == [])
      #expect(
        messages(backend.stub(.path("/v1/health"), .status(599))) == [
          "health (GET /health): response 599: the status 599 is not documented; the operation documents 200 (cattery.yaml:232 paths./health.get.responses)"
        ])
    }
  }
#endif
