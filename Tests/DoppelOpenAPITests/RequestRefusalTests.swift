#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import Testing
  import TestSupport

  /// A request that breaks the document is refused, as Prism refuses it.
  @Suite struct RequestRefusalTests {
    static let pets = """
      openapi: 3.1.0
      info: {title: Pets, version: '1'}
      paths:
        /pets:
          get:
            operationId: listPets
            parameters:
              - {name: limit, in: query, schema: {type: integer, maximum: 100}}
            responses:
              '200': {description: ok, content: {application/json: {example: []}}}
          post:
            operationId: createPet
            requestBody:
              required: true
              content:
                application/json:
                  schema: {type: object, required: [name], properties: {name: {type: string}}}
            responses:
              '201': {description: created, content: {application/json: {example: {name: Tom}}}}
              '422':
                description: invalid
                content:
                  application/json:
                    schema: {type: object, required: [error], properties: {error: {type: string}}}
                    example: {error: invalid pet}
        /pets/{id}:
          get:
            operationId: getPet
            parameters:
              - {name: id, in: path, required: true, schema: {type: integer, format: int64}}
            responses:
              '200': {description: ok, content: {application/json: {example: {name: Tom}}}}
      """

    func send(
      _ backend: Backend, _ method: String, _ path: String, body: String? = nil,
      contentType: String = "application/json"
    ) async throws -> (String, HTTPURLResponse) {
      var request = URLRequest(url: URL(string: "https://pets.test\(path)")!)
      request.httpMethod = method
      if let body {
        request.httpBody = Data(body.utf8)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
      }
      let (data, response) = try await backend.respond(to: request)
      return (String(decoding: data, as: UTF8.self), response)
    }

    func problem(_ body: String) throws -> [String: JSONValue] {
      guard case .object(let members) = try JSONValue(parsing: Data(body.utf8)) else { return [:] }
      return members
    }

    @Test func aParameterOfTheWrongTypeGets400NamingTheViolationAndTheOperation() async throws {
      let collected = Collected()
      try collected.backend.addStubs(fromOpenAPI: try Documents.temporary("pets.yaml", Self.pets))
      let (body, response) = try await send(collected.backend, "GET", "/pets?limit=abc")
      #expect(response.statusCode == 400)
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/problem+json")
      let problem = try problem(body)
      #expect(problem["title"] == "Bad Request")
      #expect(problem["status"] == 400)
      guard case .string(let detail)? = problem["detail"] else {
        Issue.record("no detail in \(body)")
        return
      }
      #expect(
        detail.hasPrefix(
          "The request breaks listPets (GET /pets, pets.yaml:5):\n- listPets (GET /pets): request query parameter limit: "
        ))
      #expect(collected.messages.count == 1)
      #expect(
        collected.messages.first?.hasPrefix(
          "OpenAPI: GET https://pets.test/pets?limit=abc was refused with 400: listPets (GET /pets): request query parameter limit: "
        ) == true)
      let (_, tooMany) = try await send(collected.backend, "GET", "/pets?limit=101")
      #expect(tooMany.statusCode == 400)
      let (_, path) = try await send(collected.backend, "GET", "/pets/abc")
      #expect(path.statusCode == 400)
      let (_, fine) = try await send(collected.backend, "GET", "/pets?limit=7")
      #expect(fine.statusCode == 200)
    }

    @Test func aBodyThatBreaksTheSchemaGetsTheDocumentsOwn422() async throws {
      let backend = Backend(issueReporter: .ignore)
      try backend.addStubs(fromOpenAPI: try Documents.temporary("pets.yaml", Self.pets))
      for body in ["{}", #"{"name": 5}"#, "not json"] {
        let (answer, response) = try await send(backend, "POST", "/pets", body: body)
        #expect(response.statusCode == 422, "\(body)")
        #expect(answer == #"{"error":"invalid pet"}"#)
        #expect(
          response.value(forHTTPHeaderField: "X-Doppel-Refused")?.hasPrefix("createPet (POST /pets): request body")
            == true)
      }
      let (_, missing) = try await send(backend, "POST", "/pets")
      #expect(missing.statusCode == 422)
      let (_, created) = try await send(backend, "POST", "/pets", body: #"{"name": "Tom"}"#)
      #expect(created.statusCode == 201)
    }

    static let secured = """
      openapi: 3.0.3
      info: {title: Secured, version: '1'}
      security:
        - bot: []
      components:
        securitySchemes:
          bot: {type: apiKey, in: header, name: Authorization}
      paths:
        /me:
          get:
            operationId: me
            responses:
              '200': {description: ok, content: {application/json: {example: {name: Ada}}}}
        /status:
          get:
            operationId: status
            security: []
            responses:
              '200': {description: ok, content: {application/json: {example: up}}}
        /avatar:
          post:
            operationId: upload
            security: []
            requestBody:
              required: true
              content:
                multipart/form-data:
                  schema:
                    type: object
                    required: [name]
                    properties: {name: {type: string}, size: {type: integer}}
            responses:
              '204': {description: stored}
      """

    @Test func aRequestWithoutTheCredentialsTheOperationRequiresGets401() async throws {
      let backend = Backend(issueReporter: .ignore)
      try backend.addStubs(fromOpenAPI: try Documents.temporary("secured.yaml", Self.secured))
      let (body, refused) = try await send(backend, "GET", "/me")
      #expect(refused.statusCode == 401)
      #expect(
        try problem(body)["detail"]
          == .string(
            "The request breaks me (GET /me, secured.yaml:10):\n- me (GET /me): request security: the request carries no credentials the operation requires; send the header \"Authorization\" (bot) (secured.yaml:10 paths./me.get)"
          ))
      var request = URLRequest(url: URL(string: "https://pets.test/me")!)
      request.setValue("Bot abc", forHTTPHeaderField: "Authorization")
      let (_, answered) = try await backend.respond(to: request)
      #expect(answered.statusCode == 200)
      // `security: []` on the operation: no credentials needed.
      let (_, open) = try await send(backend, "GET", "/status")
      #expect(open.statusCode == 200)
    }

    @Test func aRepeatedScalarParameterAndAMultipartBodyAreChecked() async throws {
      let backend = Backend(issueReporter: .ignore)
      try backend.addStubs(fromOpenAPI: try Documents.temporary("pets.yaml", Self.pets))
      let (_, repeated) = try await send(backend, "GET", "/pets?limit=1&limit=2")
      #expect(repeated.statusCode == 400)
      #expect(
        repeated.value(forHTTPHeaderField: "X-Doppel-Refused")
          == "listPets (GET /pets): request query parameter limit: the query parameter \"limit\" is given 2 times; the document describes one value (pets.yaml:8 paths./pets.get.parameters.0)"
      )
      let secured = Backend(issueReporter: .ignore)
      try secured.addStubs(fromOpenAPI: try Documents.temporary("secured.yaml", Self.secured))
      func form(_ parts: [(String, String)]) -> String {
        parts.map { "--b\r\nContent-Disposition: form-data; name=\"\($0.0)\"\r\n\r\n\($0.1)\r\n" }.joined()
          + "--b--\r\n"
      }
      let type = "multipart/form-data; boundary=b"
      let (_, missing) = try await send(secured, "POST", "/avatar", body: form([("size", "3")]), contentType: type)
      #expect(missing.statusCode == 422)
      let (_, wrongType) = try await send(
        secured, "POST", "/avatar", body: form([("name", "a"), ("size", "big")]), contentType: type)
      #expect(wrongType.statusCode == 422)
      let (_, stored) = try await send(
        secured, "POST", "/avatar", body: form([("name", "a"), ("size", "3")]), contentType: type)
      #expect(stored.statusCode == 204)
    }

    @Test func answeredInvalidRequestsAreAnsweredAsValidOnes() async throws {
      let collected = Collected()
      try collected.backend.addStubs(
        fromOpenAPI: try Documents.temporary("pets.yaml", Self.pets), invalidRequests: .answered)
      let (_, response) = try await send(collected.backend, "GET", "/pets?limit=abc")
      #expect(response.statusCode == 200)
      let (_, created) = try await send(collected.backend, "POST", "/pets", body: "{}")
      #expect(created.statusCode == 201)
      #expect(collected.messages.isEmpty)
    }
  }
#endif
