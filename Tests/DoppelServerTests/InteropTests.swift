#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// The same stubs over real HTTP, from URLSession's own HTTP stack and from AsyncHTTPClient.
  @Suite(.timeLimit(.minutes(1))) struct InteropTests {
    struct Breed: Codable, Equatable {
      let name: String
    }

    @Test func urlSessionGetsAStubbedResponse() async throws {
      let backend = quietBackend()
      backend.stub(
        .get("/breeds.json"), .json([Breed(name: "Abyssinian")], headers: ["X-Total": "1", "Set-Cookie": "a=1"]))
      try await withStubServer(backend) { server in
        let (body, response) = try await fetch(server.url("/breeds.json"))
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(response.value(forHTTPHeaderField: "X-Total") == "1")
        #expect(try JSONDecoder().decode([Breed].self, from: Data(body.utf8)) == [Breed(name: "Abyssinian")])
      }
      #expect(backend.requests.count == 1)
      #expect(backend.stubs[0].callCount == 1)
    }

    @Test func stubsForTheRealHostAnswerThroughTheServer() async throws {
      let backend = quietBackend()
      backend.stub(.get("https://api.example.com/v1/breeds?page=2"), .text("page two"))
      try await withStubServer(backend) { server in
        let (body, response) = try await fetch(server.url("/v1/breeds?page=2"))
        #expect(response.statusCode == 200)
        #expect(body == "page two")
      }
      #expect(backend.lastRequest?.url.absoluteString == "https://api.example.com/v1/breeds?page=2")
    }

    @Test func theHostHeaderChoosesAmongSeveralOrigins() async throws {
      let backend = quietBackend()
      backend.stub(.get("https://api.example.com/who"), .text("api"))
      backend.stub(.get("http://cdn.example.com:8080/who"), .text("cdn"))
      try await withStubServer(backend) { server in
        let (api, _) = try await fetch(server.url("/who"), headers: ["Host": "api.example.com"])
        #expect(api == "api")
        let (cdn, _) = try await fetch(server.url("/who"), headers: ["Host": "cdn.example.com"])
        #expect(cdn == "cdn")
      }
    }

    @Test func aFixedOriginMatchesEveryRequestAsThatOrigin() async throws {
      let backend = quietBackend()
      backend.stub(.get("https://api.example.com/who"), .text("api"))
      backend.stub(.get("https://other.example.com/who"), .text("other"))
      var configuration = StubServer.Configuration()
      configuration.origin = .fixed(URL(string: "https://other.example.com/ignored/path")!)
      try await withStubServer(backend, configuration: configuration) { server in
        let body = try await fetch(server.url("/who")).body
        #expect(body == "other")
      }
    }

    @Test func downloadsWriteTheBodyToAFile() async throws {
      let backend = quietBackend()
      let payload = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
      backend.stub(.get("/files/report.bin"), .data(payload))
      try await withStubServer(backend) { server in
        let url = server.url("/files/report.bin")
        let saved: Data = try await withCheckedThrowingContinuation { continuation in
          realSession.downloadTask(with: url) { location, _, error in
            if let error {
              continuation.resume(throwing: error)
            } else if let location {
              continuation.resume(with: Result { try Data(contentsOf: location) })
            } else {
              continuation.resume(throwing: URLError(.cannotCreateFile))
            }
          }.resume()
        }
        #expect(saved == payload)
      }
    }

    @Test func anUnmatchedRequestGetsTheNearMissReport() async throws {
      let backend = quietBackend()
      backend.stub(.get("/breeds.json"), .text("ok"), name: "breeds")
      try await withStubServer(backend) { server in
        let (body, response) = try await fetch(server.url("/breed.json"))
        #expect(response.statusCode == 404)
        #expect(response.value(forHTTPHeaderField: "X-Doppel-Unmatched") == "1")
        #expect(body.contains("No stub matched GET"))
        #expect(body.contains("/breed.json"))
        #expect(body.contains("\"breeds\""))
        #expect(body.contains("✗ path"))
      }
      #expect(backend.unmatchedRequests.count == 1)
      #expect(backend.verify().count == 1)
    }

    @Test func theUnmatchedStatusCanBeChanged() async throws {
      var configuration = StubServer.Configuration()
      configuration.unmatchedStatus = 501
      try await withStubServer(quietBackend(), configuration: configuration) { server in
        let (body, response) = try await fetch(server.url("/anything"))
        #expect(response.statusCode == 501)
        #expect(body.contains("The backend has no stubs."))
      }
    }

    @Test func theUnmatchedPolicyStillDecides() async throws {
      let backend = Backend(unmatched: .respond(.text("fallback", status: 418)), issueReporter: .ignore)
      try await withStubServer(backend) { server in
        let (body, response) = try await fetch(server.url("/anything"))
        #expect(response.statusCode == 418)
        #expect(body == "fallback")
      }
    }

    @Test func closureStubsSeePathParameters() async throws {
      let backend = quietBackend()
      backend.stub(.get("/users/{id}")) { request in .json(["id": request.pathParameters["id"] ?? ""]) }
      try await withStubServer(backend) { server in
        let body = try await fetch(server.url("/users/42")).body
        #expect(body == #"{"id":"42"}"#)
      }
    }

    @Test func aStubProblemIsA500ThatSaysWhatIsWrong() async throws {
      let backend = quietBackend()
      backend.stub(.get("/missing"), .file(URL(fileURLWithPath: "/nonexistent/fixture.json")))
      try await withStubServer(backend) { server in
        let (body, response) = try await fetch(server.url("/missing"))
        #expect(response.statusCode == 500)
        #expect(body.contains("/nonexistent/fixture.json"))
      }
    }

    @Test func anInterimStatusIsA500() async throws {
      let backend = quietBackend()
      backend.stub(.get("/early"), .status(103))
      try await withStubServer(backend) { server in
        let (body, response) = try await fetch(server.url("/early"))
        #expect(response.statusCode == 500)
        #expect(body.contains("status 103"))
      }
    }

  }
#endif
