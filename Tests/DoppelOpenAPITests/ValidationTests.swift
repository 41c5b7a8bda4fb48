#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import TestSupport
  import Testing
  @_spi(DoppelInternals) import DoppelToolkit

  @Suite struct ValidationTests {
    let document: OpenAPIDocument

    init() throws { document = try OpenAPIDocument(contentsOf: Documents.cattery) }

    func messages(_ request: Request, status: Int? = nil, contentType: String? = "application/json", body: String = "")
      -> [String]
    {
      var headers: HTTPHeaders = [:]
      if let contentType { headers.add("Content-Type", contentType) }
      if status == 200, request.path == "/v1/breeds" { headers.add("X-Rate-Limit", "10") }
      return document.violations(in: request, status: status, headers: headers, body: Data(body.utf8)).map(
        \.description)
    }

    @Test func conformingExchangeHasNoViolation() {
      #expect(messages(.make(.get, "/breeds?limit=10&origin=Egypt"), status: 200, body: #"{"breeds": []}"#) == [])
      #expect(
        messages(
          .make(.post, "/pets", json: #"{"petType": "dog", "name": "Rex", "goodBoy": true}"#), status: 201,
          body: #"{"petType": "cat", "name": "Tom"}"#) == [])
    }

    @Test func unknownPathAndMethod() {
      #expect(
        messages(.make(.get, "/cats")) == [
          "GET /v1/cats: request: no path in cattery.yaml matches /v1/cats (under the server path /v1) (cattery.yaml:8 paths)"
        ])
      #expect(
        messages(.make(.delete, "/pets")) == [
          "DELETE /v1/pets: request: /pets has no DELETE operation; it documents GET, POST (cattery.yaml:138 paths./pets)"
        ])
    }

    @Test func parameters() {
      #expect(
        messages(.make(.get, "/breeds?limit=0&origin=Mars", headers: ["X-Request-ID": "abc"])) == [
          "listBreeds (GET /breeds): request query parameter limit: 0 is less than the minimum 1 (cattery.yaml:248 components.parameters.Limit.schema.minimum)",
          #"listBreeds (GET /breeds): request query parameter origin: "Mars" is not one of the allowed values "Ethiopia", "Egypt", "Thailand", "United States" (cattery.yaml:271 components.schemas.Origin.enum)"#,
          #"listBreeds (GET /breeds): request header parameter X-Request-ID: the string "abc" is not a valid uuid (cattery.yaml:22 paths./breeds.get.parameters.2.schema.format)"#,
        ])
      #expect(
        messages(.make(.get, "/breeds/abc")) == [
          #"getBreed (GET /breeds/{breedId}): request path parameter breedId: expected an integer, found the string "abc" (cattery.yaml:81 paths./breeds/{breedId}.parameters.0.schema.type)"#
        ])
      #expect(
        messages(.make(.get, "/pets")) == [
          #"listPets (GET /pets): request query parameter species: the required query parameter "species" is missing (cattery.yaml:142 paths./pets.get.parameters.0)"#
        ])
    }

    @Test func requestBodies() {
      #expect(
        messages(.make(.post, "/breeds")) == [
          "createBreed (POST /breeds): request body: the required request body is missing (cattery.yaml:60 paths./breeds.post.requestBody.required)"
        ])
      #expect(
        messages(.make(.post, "/breeds", headers: ["Content-Type": "text/plain"], json: "hi")) == [
          "createBreed (POST /breeds): request body: the content type text/plain is not documented; the document allows application/json (cattery.yaml:60 paths./breeds.post.requestBody.content)"
        ])
      #expect(
        messages(.make(.post, "/breeds", json: "{oops")) == [
          "createBreed (POST /breeds): request body: the body is not valid JSON: expected a key in double quotes, found \"o\" at 1:2 (cattery.yaml:63 paths./breeds.post.requestBody.content.application/json)"
        ])
      #expect(
        messages(.make(.get, "/health", json: "{}")) == [
          "health (GET /health): request body: the operation takes no request body, but 2 bytes were sent (cattery.yaml:230 paths./health.get)"
        ])
      #expect(
        messages(
          .make(
            .post, "/breeds",
            json: #"{"id": 3, "name": "", "lifespan": 0, "origin": "Mars", "temperament": ["a", "a"]}"#))
          == [
            #"createBreed (POST /breeds): request body $.id: the property "id" is readOnly and must not be sent in a request (cattery.yaml:287 components.schemas.Breed.properties.id.readOnly)"#,
            #"createBreed (POST /breeds): request body $.name: the string "" is 0 characters long, shorter than minLength 1 (cattery.yaml:290 components.schemas.Breed.properties.name.minLength)"#,
            #"createBreed (POST /breeds): request body $.origin: "Mars" is not one of the allowed values "Ethiopia", "Egypt", "Thailand", "United States", null (cattery.yaml:294 components.schemas.Breed.properties.origin.enum)"#,
            "createBreed (POST /breeds): request body $.temperament: the array has duplicate items (cattery.yaml:297 components.schemas.Breed.properties.temperament.uniqueItems)",
            "createBreed (POST /breeds): request body $.lifespan: 0 is not greater than the exclusive minimum 0 (cattery.yaml:302 components.schemas.Breed.properties.lifespan.exclusiveMinimum)",
          ])
    }

    @Test func responses() {
      #expect(
        messages(.make(.get, "/breeds/1"), status: 418, body: "{}") == [
          "getBreed (GET /breeds/{breedId}): response 418: the status 418 is not documented; the operation documents 200, 404 (cattery.yaml:86 paths./breeds/{breedId}.get.responses)"
        ])
      #expect(
        messages(.make(.get, "/breeds/1"), status: 200, contentType: "text/html", body: "<p>") == [
          "getBreed (GET /breeds/{breedId}): response 200 body: the content type text/html is not documented; the document allows application/json (cattery.yaml:87 paths./breeds/{breedId}.get.responses.200.content)"
        ])
      #expect(
        messages(.make(.delete, "/breeds/1"), status: 204, body: "{}") == [
          "deleteBreed (DELETE /breeds/{breedId}): response 204 body: the response has a body of 2 bytes, but the document describes none for 204 (cattery.yaml:115 paths./breeds/{breedId}.delete.responses.204)"
        ])
      let noHeader = document.violations(
        in: .make(.get, "/breeds"), status: 200, headers: ["Content-Type": "application/json"],
        body: Data(#"{"breeds": []}"#.utf8))
      #expect(
        noHeader.map(\.description) == [
          #"listBreeds (GET /breeds): response 200 header X-Rate-Limit: the required header "X-Rate-Limit" is missing (cattery.yaml:27 paths./breeds.get.responses.200.headers.X-Rate-Limit)"#
        ])
      #expect(
        messages(
          .make(.get, "/breeds/1"), status: 200,
          body: #"{"id": 1.5, "name": 5, "lifespan": 40, "origin": null, "registered": "yesterday"}"#) == [
            "getBreed (GET /breeds/{breedId}): response 200 body $.id: expected an integer, found the number 1.5 (cattery.yaml:285 components.schemas.Breed.properties.id.type)",
            "getBreed (GET /breeds/{breedId}): response 200 body $.name: expected a string, found the number 5 (cattery.yaml:289 components.schemas.Breed.properties.name.type)",
            "getBreed (GET /breeds/{breedId}): response 200 body $.lifespan: 40 is greater than the maximum 30 (cattery.yaml:303 components.schemas.Breed.properties.lifespan.maximum)",
            #"getBreed (GET /breeds/{breedId}): response 200 body $.registered: the string "yesterday" is not a valid date-time (cattery.yaml:306 components.schemas.Breed.properties.registered.format)"#,
          ])
    }

    @Test func referencesAcrossFilesAndRanges() {
      #expect(
        messages(
          .make(.get, "/breeds/9"), status: 404, contentType: "application/problem+json", body: #"{"status": 4040}"#)
          == [
            #"getBreed (GET /breeds/{breedId}): response 404 body $: the required property "title" is missing (common.yaml:3 Problem.required)"#,
            "getBreed (GET /breeds/{breedId}): response 404 body $.status: 4040 is greater than the maximum 599 (common.yaml:15 Problem.properties.status.maximum)",
          ])
      // 4XX covers 404; default covers anything.
      #expect(
        messages(
          .make(.get, "/pets?species=cat"), status: 404, contentType: "application/problem+json",
          body: #"{"title": "x", "status": 404}"#)
          == [])
      #expect(
        messages(
          .make(.patch, "/owners/1", json: #"{"email": "a@b.co"}"#), status: 500,
          contentType: "application/problem+json", body: #"{"title": "x", "status": 500}"#)
          == [])
    }

    @Test func compositionAndDiscriminator() {
      #expect(
        messages(.make(.post, "/pets", json: #"{"petType": "bird", "name": "Tweety"}"#)) == [
          #"createPet (POST /pets): request body $.petType: the discriminator "petType" is "bird", which is not one of "cat", "dog" (cattery.yaml:345 components.schemas.Pet.discriminator)"#
        ])
      #expect(
        messages(.make(.post, "/pets", json: #"{"name": "Tweety"}"#)) == [
          #"createPet (POST /pets): request body $: the discriminator property "petType" is missing (cattery.yaml:345 components.schemas.Pet.discriminator)"#
        ])
      #expect(
        messages(.make(.post, "/pets", json: #"{"petType": "dog", "name": "Rex"}"#)) == [
          #"createPet (POST /pets): request body $: the required property "goodBoy" is missing (cattery.yaml:337 components.schemas.Dog.allOf.1.required)"#
        ])
    }

    @Test func additionalPropertiesPatternAndArrays() {
      #expect(
        messages(
          .make(.get, "/breeds/1/photos"), status: 200,
          body: #"[{"url": "not a uri", "caption": "lowercase", "size": 3}]"#) == [
            #"listPhotos (GET /breeds/{breedId}/photos): response 200 body $[0].url: the string "not a uri" is not a valid uri (cattery.yaml:314 components.schemas.Photo.properties.url.format)"#,
            #"listPhotos (GET /breeds/{breedId}/photos): response 200 body $[0].caption: the string "lowercase" does not match the pattern ^[A-Z] (cattery.yaml:317 components.schemas.Photo.properties.caption.pattern)"#,
            #"listPhotos (GET /breeds/{breedId}/photos): response 200 body $[0].size: the property "size" is not allowed (additionalProperties is false) (cattery.yaml:309 components.schemas.Photo.additionalProperties)"#,
          ])
    }

    @Test func nullableWriteOnlyAndEmail() {
      #expect(
        messages(
          .make(.get, "/owners/1"), status: 200,
          body: #"{"id": 1, "email": "nobody", "phone": null, "password": "secret", "since": "2024-13-01"}"#) == [
            #"getOwner (GET /owners/{ownerId}): response 200 body $.email: the string "nobody" is not a valid email (cattery.yaml:359 components.schemas.Owner.properties.email.format)"#,
            #"getOwner (GET /owners/{ownerId}): response 200 body $.password: the property "password" is writeOnly and must not appear in a response (cattery.yaml:364 components.schemas.Owner.properties.password.writeOnly)"#,
            #"getOwner (GET /owners/{ownerId}): response 200 body $.since: the string "2024-13-01" is not a valid date (cattery.yaml:367 components.schemas.Owner.properties.since.format)"#,
          ])
    }

    @Test func threeZeroNullableAndExclusiveMinimum() throws {
      let document = try OpenAPIDocument(contentsOf: Documents.cattery30)
      let found = document.violations(
        in: .make(.get, "/breeds/1"), status: 200, headers: ["Content-Type": "application/json"],
        body: Data(#"{"id": 1, "name": null, "lifespan": 0, "origin": null}"#.utf8))
      #expect(
        found.map(\.rule) == [
          "expected a string, found null; the schema is not nullable",
          "0 is not greater than the exclusive minimum 0",
        ])
      #expect(found.map(\.jsonPath) == ["$.name", "$.lifespan"])
      #expect(found.first?.location.file == "cattery-3.0.json")
      #expect(found.first?.location.path == "components.schemas.Breed.properties.name.type")
    }

    @Test func backendReportsViolationsAtTheStub() async throws {
      let collected = Collected()
      let backend = collected.backend
      try backend.validate(against: Documents.cattery)
      let stub = backend.stub(.get("https://api.cattery.test/v1/breeds/1"), .json(["id": 1, "name": "Abyssinian"]))
      _ = try await backend.session.data(from: .cattery("/breeds/1"))
      _ = try await backend.session.data(from: .cattery("/breeds/1"))  // a reused answer is checked too
      let expected =
        #"OpenAPI: getBreed (GET /breeds/{breedId}): response 200 body $: the required property "lifespan" is missing (cattery.yaml:282 components.schemas.Breed.required)"#
      #expect(collected.messages == [expected, expected])
      #expect(collected.issues.withLock { $0.map(\.location) } == [stub.location, stub.location])
    }
  }
#endif
