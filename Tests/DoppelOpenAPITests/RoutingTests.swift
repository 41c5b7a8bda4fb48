#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import Testing

  /// Requests reach the operation OpenAPI routes them to, whatever the document's order.
  @Suite struct RoutingTests {
    /// Swagger's Petstore writes its templates after the concrete paths they also fit.
    static let petstore = """
      openapi: 3.0.3
      info: {title: Petstore, version: '1'}
      servers:
        - url: /api/v3
      paths:
        /pet/findByStatus:
          get:
            operationId: findPetsByStatus
            parameters:
              - {name: status, in: query, schema: {type: string, enum: [available, pending, sold]}}
            responses:
              '200':
                description: ok
                content:
                  application/json:
                    example: [{name: found-by-status}]
        /pet/{petId}:
          get:
            operationId: getPetById
            parameters:
              - {name: petId, in: path, required: true, schema: {type: integer, format: int64}}
            responses:
              '200':
                description: ok
                content:
                  application/json:
                    example: {name: by-id}
          delete:
            operationId: deletePet
            parameters:
              - {name: petId, in: path, required: true, schema: {type: integer, format: int64}}
            responses:
              '204': {description: deleted}
        /user/login:
          get:
            operationId: loginUser
            responses:
              '200':
                description: ok
                content:
                  application/json:
                    example: logged in
        /user/{username}:
          get:
            operationId: getUserByName
            parameters:
              - {name: username, in: path, required: true, schema: {type: string}}
            responses:
              '200':
                description: ok
                content:
                  application/json:
                    example: {username: someone}
      """

    func send(_ backend: Backend, _ method: String, _ path: String) async throws -> (String, HTTPURLResponse) {
      var request = URLRequest(url: URL(string: "https://petstore.test\(path)")!)
      request.httpMethod = method
      let (data, response) = try await backend.respond(to: request)
      return (String(decoding: data, as: UTF8.self), response)
    }

    func petstore() throws -> Backend {
      let backend = Backend(issueReporter: .ignore)
      try backend.addStubs(fromOpenAPI: try Documents.temporary("petstore.yaml", Self.petstore))
      return backend
    }

    @Test func aConcretePathIsAnsweredByItsOwnOperationWhenATemplateFollowsIt() async throws {
      let backend = try petstore()
      let (byStatus, _) = try await send(backend, "GET", "/api/v3/pet/findByStatus?status=sold")
      #expect(byStatus == #"[{"name":"found-by-status"}]"#)
      let (login, _) = try await send(backend, "GET", "/api/v3/user/login")
      #expect(login == #""logged in""#)
      let (byID, _) = try await send(backend, "GET", "/api/v3/pet/7")
      #expect(byID == #"{"name":"by-id"}"#)
      let (user, _) = try await send(backend, "GET", "/api/v3/user/ada")
      #expect(user == #"{"username":"someone"}"#)
      #expect(
        backend.journal.map { $0.stub?.name } == ["findPetsByStatus", "loginUser", "getPetById", "getUserByName"])
    }

    @Test func theStubsAreReturnedInDocumentOrderWithIdsOfTheirOwn() throws {
      let backend = try petstore()
      let handles = try backend.addStubs(fromOpenAPI: try Documents.temporary("petstore.yaml", Self.petstore))
      #expect(handles.map(\.name) == ["findPetsByStatus", "getPetById", "deletePet", "loginUser", "getUserByName"])
    }

    @Test func aDocumentedPathAskedWithAnotherMethodGets405WithAllow() async throws {
      let backend = try petstore()
      let (body, response) = try await send(backend, "PUT", "/api/v3/pet/7")
      #expect(response.statusCode == 405)
      #expect(response.value(forHTTPHeaderField: "Allow") == "GET, DELETE")
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/problem+json")
      let problem = try JSONValue(parsing: Data(body.utf8))
      #expect(
        problem
          == .object([
            "type": "about:blank", "title": "Method Not Allowed", "status": 405,
            "detail":
              "petstore.yaml documents /pet/{petId} for GET, DELETE only, not PUT. Send one of those, or add the operation to the document.",
          ]))
      // The concrete path decides, not a template with the method: DELETE /pet/{petId} does not
      // answer DELETE /pet/findByStatus.
      let (_, concrete) = try await send(backend, "DELETE", "/api/v3/pet/findByStatus")
      #expect(concrete.statusCode == 405)
      #expect(concrete.value(forHTTPHeaderField: "Allow") == "GET")
    }

    @Test func headIsAnsweredAsGetAndOptionsListsTheMethods() async throws {
      let backend = try petstore()
      let (body, head) = try await send(backend, "HEAD", "/api/v3/pet/7")
      #expect(head.statusCode == 200)
      #expect(body.isEmpty)
      let (_, options) = try await send(backend, "OPTIONS", "/api/v3/pet/7")
      #expect(options.statusCode == 204)
      #expect(options.value(forHTTPHeaderField: "Allow") == "GET, DELETE")
    }

    @Test func everyServersPathIsServedWithItsVariablesDefaults() async throws {
      let url = try Documents.temporary(
        "servers.yaml",
        """
        openapi: 3.0.3
        info: {title: x, version: '1'}
        servers:
          - url: '{scheme}://api.example.com/ds-api'
            variables:
              scheme: {default: https, enum: [https, http]}
          - url: /v2
        paths:
          /items:
            get:
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      example: [1]
        """)
      let backend = Backend(issueReporter: .ignore)
      try backend.addStubs(fromOpenAPI: url)
      let document = try OpenAPIDocument(contentsOf: url)
      #expect(document.violations(in: Request(method: .get, url: URL(string: "https://x.test/v2/items")!)).isEmpty)
      for path in ["/ds-api/items", "/v2/items"] {
        let (body, response) = try await send(backend, "GET", path)
        #expect(response.statusCode == 200, "\(path)")
        #expect(body == "[1]")
      }
      // Outside every server's path: no stub of the document answers.
      await #expect(throws: (any Error).self) { try await send(backend, "GET", "/items") }
      #expect(
        document.violations(in: Request(method: .get, url: URL(string: "https://x.test/items")!)).map(\.rule)
          == ["no path in servers.yaml matches /items (under the server paths /ds-api, /v2)"])
    }

    @Test func moreLiteralSegmentsWinAmongTemplatesAndTheLeftmostLiteralBreaksTies() async throws {
      let url = try Documents.temporary(
        "templates.yaml",
        """
        openapi: 3.1.0
        info: {title: x, version: '1'}
        paths:
          /{a}/{b}/{c}:
            get: {operationId: none, responses: {'200': {description: ok}}}
          /{org}/members/{id}:
            get: {operationId: middle, responses: {'200': {description: ok}}}
          /users/{id}/{tab}:
            get: {operationId: left, responses: {'200': {description: ok}}}
          /users/{id}/posts:
            get: {operationId: two, responses: {'200': {description: ok}}}
        """)
      let backend = Backend(issueReporter: .ignore)
      try backend.addStubs(fromOpenAPI: url)
      for path in ["/users/members/posts", "/users/members/x", "/acme/members/x", "/a/b/c"] {
        _ = try await send(backend, "GET", path)
      }
      #expect(backend.journal.map { $0.stub?.name } == ["two", "left", "middle", "none"])
    }
  }
#endif
