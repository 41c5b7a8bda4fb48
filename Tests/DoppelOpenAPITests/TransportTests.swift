#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import TestSupport
  import HTTPTypes
  import OpenAPIRuntime
  import Testing

  #if Server
    import DoppelServer
  #endif

  #if canImport(FoundationNetworking)
    import FoundationNetworking
    @_spi(DoppelInternals) import DoppelToolkit
  #endif

  /// A hand-written implementation of the API generated from cattery.yaml (Generated/): the fake a
  /// test registers on a backend.
  struct FakeCattery: APIProtocol {
    let breeds = Locked([Int64: Components.Schemas.Breed]())

    init() {
      breeds.withLock {
        $0[1] = .init(id: 1, name: "Abyssinian", origin: .Ethiopia, temperament: ["active"], lifespan: 14)
        $0[2] = .init(id: 2, name: "Bengal", lifespan: 13)
      }
    }

    static let missing = Components.Schemas.Problem(title: "Not found", status: 404)

    func listBreeds(_ input: Operations.listBreeds.Input) async throws -> Operations.listBreeds.Output {
      var all = breeds.withLock { $0.values.sorted { $0.id < $1.id } }
      if let origin = input.query.origin { all = all.filter { $0.origin?.rawValue == origin.rawValue } }
      if let limit = input.query.limit { all = Array(all.prefix(Int(limit))) }
      return .ok(.init(headers: .init(X_hyphen_Rate_hyphen_Limit: 100), body: .json(.init(breeds: all))))
    }

    func createBreed(_ input: Operations.createBreed.Input) async throws -> Operations.createBreed.Output {
      guard case .json(var breed) = input.body else { return .undocumented(statusCode: 415, .init()) }
      breed.id = breeds.withLock { breeds in
        let id = (breeds.keys.max() ?? 0) + 1
        breed.id = id
        breeds[id] = breed
        return id
      }
      return .created(.init(body: .json(breed)))
    }

    func getBreed(_ input: Operations.getBreed.Input) async throws -> Operations.getBreed.Output {
      guard let breed = breeds.withLock({ $0[input.path.breedId] }) else {
        return .notFound(.init(body: .application_problem_plus_json(Self.missing)))
      }
      return .ok(.init(body: .json(breed)))
    }

    func replaceBreed(_ input: Operations.replaceBreed.Input) async throws -> Operations.replaceBreed.Output {
      .undocumented(statusCode: 501, .init())
    }

    func deleteBreed(_ input: Operations.deleteBreed.Input) async throws -> Operations.deleteBreed.Output {
      guard breeds.withLock({ $0.removeValue(forKey: input.path.breedId) }) != nil else {
        return .notFound(.init(body: .application_problem_plus_json(Self.missing)))
      }
      return .noContent(.init())
    }

    /// Simulates the network failing: the caller gets this `URLError`.
    func listPhotos(_ input: Operations.listPhotos.Input) async throws -> Operations.listPhotos.Output {
      throw URLError(.notConnectedToInternet)
    }

    func listPets(_ input: Operations.listPets.Input) async throws -> Operations.listPets.Output {
      .undocumented(statusCode: 501, .init())
    }

    func createPet(_ input: Operations.createPet.Input) async throws -> Operations.createPet.Output {
      .undocumented(statusCode: 501, .init())
    }

    /// Echoes the path parameter, to show how it arrives.
    func getPet(_ input: Operations.getPet.Input) async throws -> Operations.getPet.Output {
      .ok(.init(body: .json(.cat(.init(value1: .init(petType: "cat", name: input.path.petId), value2: .init())))))
    }

    func getOwner(_ input: Operations.getOwner.Input) async throws -> Operations.getOwner.Output {
      .undocumented(statusCode: 501, .init())
    }

    func updateOwner(_ input: Operations.updateOwner.Input) async throws -> Operations.updateOwner.Output {
      .default(statusCode: 501, .init(body: .application_problem_plus_json(.init(title: "Not here", status: 501))))
    }

    func health(_ input: Operations.health.Input) async throws -> Operations.health.Output {
      .ok(.init(body: .plainText("ok")))
    }
  }

  /// A backend answered by the fake, its paths under /v1 as the document's server has them.
  private func fakeBackend() throws -> Collected {
    let collected = Collected()
    try FakeCattery().registerHandlers(on: collected.backend, serverURL: URL(string: "/v1")!)
    return collected
  }

  private func get(_ path: String) -> URLRequest { URLRequest(url: .cattery(path)) }

  private func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(T.self, from: data)
  }

  @Suite("swift-openapi-generator: a fake APIProtocol as the backend, a generated Client on it")
  struct TransportTests {
    @Test("Each operation of a generated server is a stub answered through backend.session")
    func sessionReachesTheFake() async throws {
      let collected = try fakeBackend()
      let backend = collected.backend
      #expect(backend.stubs.count == 12)
      #expect(backend.stubs.map { $0.name ?? "" }.contains("GET /v1/breeds/{breedId}"))

      let (data, response) = try await backend.session.data(for: get("/breeds/1"))
      let http = try #require(response as? HTTPURLResponse)
      #expect(http.statusCode == 200)
      #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
      #expect(try decode(Components.Schemas.Breed.self, data).name == "Abyssinian")

      let (missing, notFound) = try await backend.session.data(for: get("/breeds/9"))
      #expect((notFound as? HTTPURLResponse)?.statusCode == 404)
      #expect(
        (notFound as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
          == "application/problem+json; charset=utf-8")
      #expect(try decode(Components.Schemas.Problem.self, missing) == FakeCattery.missing)
      #expect(collected.messages.isEmpty)
    }

    @Test("The in-memory door reaches the fake: query parameters, headers, a JSON body and a 204")
    func inMemoryDoorReachesTheFake() async throws {
      let collected = try fakeBackend()
      let backend = collected.backend

      let (data, response) = try await backend.respond(to: get("/breeds?limit=1"))
      #expect(response.statusCode == 200)
      #expect(response.value(forHTTPHeaderField: "X-Rate-Limit") == "100")
      #expect(try decode(Components.Schemas.BreedList.self, data).breeds.map(\.name) == ["Abyssinian"])

      var post = URLRequest(url: .cattery("/breeds"))
      post.httpMethod = "POST"
      post.setValue("application/json", forHTTPHeaderField: "Content-Type")
      post.httpBody = Data(#"{"id":0,"name":"Sphynx","lifespan":15}"#.utf8)
      let (created, status) = try await backend.handler(post)
      #expect(status.statusCode == 201)
      #expect(try decode(Components.Schemas.Breed.self, created).id == 3)

      var delete = URLRequest(url: .cattery("/breeds/3"))
      delete.httpMethod = "DELETE"
      let (empty, deleted) = try await backend.respond(to: delete)
      #expect(deleted.statusCode == 204)
      #expect(empty.isEmpty)

      let (text, health) = try await backend.respond(to: get("/health"))
      #expect(health.value(forHTTPHeaderField: "Content-Type") == "text/plain")
      #expect(String(decoding: text, as: UTF8.self) == "ok")
      #expect(collected.messages.isEmpty)
    }

    @Test("A path parameter reaches the fake decoded once, whatever it holds")
    func pathParametersAreDecodedOnce() async throws {
      let backend = try fakeBackend().backend
      let (data, _) = try await backend.respond(to: get("/pets/a%20b%2Bc%25d"))
      let pet = try decode(Components.Schemas.Pet.self, data)
      guard case .cat(let cat) = pet else {
        Issue.record("Expected a cat, got \(pet)")
        return
      }
      #expect(cat.value1.name == "a b+c%d")
    }

    @Test("A request the generated server cannot decode fails with its ServerError; a URLError reaches the caller")
    func errorsOfTheFake() async throws {
      let backend = try fakeBackend().backend
      let error = await #expect(throws: ServerError.self) { try await backend.respond(to: get("/breeds/abc")) }
      #expect(error?.operationID == "getBreed")
      #expect(error?.underlyingError is DecodingError)

      let fault = await #expect(throws: URLError.self) { try await backend.respond(to: get("/breeds/1/photos")) }
      #expect(fault?.code == .notConnectedToInternet)
    }

    @Test("Stubs added by hand win over the fake's, before or after it; the fake wins over the document's")
    func precedence() async throws {
      let collected = Collected()
      let backend = collected.backend
      backend.stub(.get("https://api.cattery.test/v1/breeds/2"), .status(503))
      try backend.addStubs(fromOpenAPI: Documents.cattery)
      try FakeCattery().registerHandlers(on: backend, serverURL: URL(string: "/v1")!)
      backend.stub(.get("https://api.cattery.test/v1/health"), .text("stubbed"))

      #expect(try await backend.respond(to: get("/breeds/2")).1.statusCode == 503)
      #expect(String(decoding: try await backend.respond(to: get("/health")).0, as: UTF8.self) == "stubbed")
      // The document's first example is "standard" (two breeds named by the document); the fake has its own.
      let (data, _) = try await backend.respond(to: get("/breeds/1"))
      #expect(try decode(Components.Schemas.Breed.self, data).origin == .Ethiopia)
      #expect(backend.journal.map { $0.stub?.name } == [nil, nil, "GET /v1/breeds/{breedId}"])
      #expect(collected.messages.isEmpty)
    }

    @Test("A generated Client talks to the backend in memory: typed answers from the fake and from stubs")
    func clientOverTheTransport() async throws {
      let collected = try fakeBackend()
      let backend = collected.backend
      backend.stub(
        .get("https://api.cattery.test/v1/breeds/7"),
        .json(Components.Schemas.Breed(id: 7, name: "Korat", lifespan: 15)))
      let client = Client(serverURL: URL(string: "https://api.cattery.test/v1")!, transport: backend.openAPITransport)

      #expect(try await client.getBreed(path: .init(breedId: 1)).ok.body.json.name == "Abyssinian")
      #expect(try await client.getBreed(path: .init(breedId: 7)).ok.body.json.name == "Korat")
      let missing = try await client.getBreed(path: .init(breedId: 9)).notFound.body.application_problem_plus_json
      #expect(missing == FakeCattery.missing)

      let list = try await client.listBreeds(query: .init(limit: 5, origin: .Ethiopia)).ok
      #expect(list.headers.X_hyphen_Rate_hyphen_Limit == 100)
      #expect(try list.body.json.breeds.map(\.name) == ["Abyssinian"])

      let created = try await client.createBreed(body: .json(.init(id: 0, name: "Sphynx", lifespan: 15))).created
      #expect(try created.body.json.id == 3)
      _ = try await client.deleteBreed(path: .init(breedId: 3)).noContent

      let health = try await client.health().ok.body.plainText
      #expect(try await String(collecting: health, upTo: 100) == "ok")
      #expect(collected.messages.isEmpty)
    }

    @Test("The journal holds each request the client sent, with its headers, body and the stub that answered")
    func journalOfTheClient() async throws {
      let collected = try fakeBackend()
      let backend = collected.backend
      let client = Client(serverURL: URL(string: "https://api.cattery.test/v1")!, transport: backend.openAPITransport)
      _ = try await client.listBreeds(query: .init(limit: 1), headers: .init(X_hyphen_Request_hyphen_ID: "r-1"))
      _ = try await client.createBreed(body: .json(.init(id: 0, name: "Sphynx", lifespan: 15)))

      let journal = backend.journal
      #expect(
        journal.map(\.request.description) == [
          "GET https://api.cattery.test/v1/breeds?limit=1", "POST https://api.cattery.test/v1/breeds",
        ])
      #expect(journal.map { $0.stub?.name } == ["GET /v1/breeds", "POST /v1/breeds"])
      #expect(journal[0].request.headers["X-Request-ID"] == "r-1")
      #expect(journal[0].request.headers["Accept"] == "application/json, application/problem+json")
      #expect(journal[1].request.headers["Content-Type"] == "application/json; charset=utf-8")
      let sent = try decode(Components.Schemas.Breed.self, try #require(journal[1].request.body))
      #expect(sent.name == "Sphynx")
      #expect(backend.requests(matching: .post("https://api.cattery.test/v1/breeds")).count == 1)
    }

    @Test("An unmatched request from the client fails with the near-miss report the other doors give")
    func unmatchedRequestFromTheClient() async throws {
      let collected = Collected()
      let backend = collected.backend
      let line = #line + 1
      backend.stub(.get("https://api.cattery.test/v1/breeds"), .json(["breeds": [String]()]), name: "breeds")
      let client = Client(serverURL: URL(string: "https://api.cattery.test/v1")!, transport: backend.openAPITransport)

      let error = await #expect(throws: ClientError.self) { try await client.getBreed(path: .init(breedId: 1)) }
      let underlying = try #require(error?.underlyingError as? URLError)
      #expect(underlying.code == .resourceUnavailable)
      let report = underlying.localizedDescription
      #expect(
        report == """
          No stub matched GET https://api.cattery.test/v1/breeds/1
          Closest stubs:
            1. TransportTests.swift:\(line)  "breeds" GET https://api.cattery.test/v1/breeds
                 ✓ method GET
                 ✓ scheme https
                 ✓ host   api.cattery.test
                 ✗ path   expected "/v1/breeds", got "/v1/breeds/1"
          Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
            backend.stub(.get("https://api.cattery.test/v1/breeds/1"), .status(200))
            {"request":"GET https://api.cattery.test/v1/breeds/1","response":{"status":200}}
          """)
      #expect(collected.messages == [report])

      let door = await #expect(throws: URLError.self) { try await backend.respond(to: get("/breeds/1")) }
      #expect(door?.localizedDescription == report)
      #expect(
        backend.unmatchedRequests.map(\.description)
          == Array(repeating: "GET https://api.cattery.test/v1/breeds/1", count: 2))
    }

    @Test("A fake's stubs appear in the near-miss report by method and path template")
    func fakeStubsInTheReport() async throws {
      let collected = try fakeBackend()
      var request = get("/health")
      request.httpMethod = "DELETE"
      let error = await #expect(throws: URLError.self) { try await collected.backend.respond(to: request) }
      #expect(
        error?.localizedDescription == """
          No stub matched DELETE https://api.cattery.test/v1/health
          Closest stubs:
            1. registerHandlers(on:):1  "DELETE /v1/breeds/{breedId}" DELETE /v1/breeds/{breedId}
                 ✓ method DELETE
                 ✗ path   expected "/v1/breeds/{breedId}", got "/v1/health"
            2. registerHandlers(on:):1  "GET /v1/health" GET /v1/health
                 ✗ method expected GET, got DELETE
                 ✓ path   "/v1/health"
            3. registerHandlers(on:):1  "GET /v1/breeds" GET /v1/breeds
                 ✗ method expected GET, got DELETE
                 ✗ path   expected "/v1/breeds", got "/v1/health"
            (9 more stubs not shown)
          Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
            backend.stub(.delete("https://api.cattery.test/v1/health"), .status(200))
            {"request":"DELETE https://api.cattery.test/v1/health","response":{"status":200}}
          """)
      #expect(collected.messages == [error?.localizedDescription])
    }

    #if Server
      @Test("The stub server answers from the fake")
      func stubServerReachesTheFake() async throws {
        let collected = try fakeBackend()
        let server = try await StubServer.start(serving: collected.backend)
        let session = URLSession(configuration: .ephemeral)
        do {
          let url = server.baseURL.appendingPathComponent("v1/breeds/2")
          let (data, response) = try await session.data(from: url)
          #expect((response as? HTTPURLResponse)?.statusCode == 200)
          #expect(try decode(Components.Schemas.Breed.self, data).name == "Bengal")
          let (_, missing) = try await session.data(from: server.baseURL.appendingPathComponent("v1/breeds/9"))
          #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        } catch {
          session.finishTasksAndInvalidate()
          await server.shutdown()
          throw error
        }
        session.finishTasksAndInvalidate()
        await server.shutdown()
        #expect(
          collected.backend.journal.map { $0.stub?.name } == ["GET /v1/breeds/{breedId}", "GET /v1/breeds/{breedId}"])
      }
    #endif
  }
#endif
