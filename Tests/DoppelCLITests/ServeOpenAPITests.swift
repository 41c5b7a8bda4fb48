#if Server && OpenAPI
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// `doppel serve api.yaml` end to end: an OpenAPI document's operations over loopback HTTP,
  /// beside manifests, in a scenario, validated, reloaded.
  @Suite(.timeLimit(.minutes(1))) struct ServeOpenAPITests {
    /// A small lending library: several operations, a path parameter, named examples, two
    /// documented statuses for one operation and a body made from a schema.
    static let library = """
      openapi: 3.1.0
      info:
        title: Library
        version: 1.0.0
      servers:
        - url: https://api.library.test/v2
      paths:
        /books:
          get:
            operationId: listBooks
            parameters:
              - name: limit
                in: query
                schema: {type: integer, minimum: 1, maximum: 50}
            responses:
              '200':
                description: The books on the shelves.
                content:
                  application/json:
                    schema:
                      type: array
                      items: {$ref: '#/components/schemas/Book'}
                    examples:
                      shelf:
                        value:
                          - {id: 1, title: Dune, author: Frank Herbert}
                          - {id: 2, title: Emma, author: Jane Austen}
                      empty:
                        value: []
          post:
            operationId: addBook
            requestBody:
              required: true
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Book'}
            responses:
              '201':
                description: Added.
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Book'}
                    example: {id: 3, title: Kindred, author: Octavia E. Butler}
        /books/{bookId}:
          parameters:
            - name: bookId
              in: path
              required: true
              schema: {type: integer}
          get:
            operationId: getBook
            responses:
              '200':
                description: One book.
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Book'}
                    example: {id: 1, title: Dune, author: Frank Herbert}
              '404':
                description: No book has that id.
                content:
                  application/json:
                    schema: {$ref: '#/components/schemas/Problem'}
                    examples:
                      empty:
                        value: {message: The shelves are empty.}
                      missing:
                        value: {message: No book has that id.}
          delete:
            operationId: removeBook
            responses:
              '204':
                description: Removed.
        /loans:
          get:
            operationId: listLoans
            responses:
              '200':
                description: The books lent out, made from the schema.
                content:
                  application/json:
                    schema:
                      type: array
                      minItems: 1
                      items: {$ref: '#/components/schemas/Loan'}
      components:
        schemas:
          Book:
            type: object
            required: [id, title, author]
            properties:
              id: {type: integer}
              title: {type: string, minLength: 1}
              author: {type: string}
          Loan:
            type: object
            required: [bookId, due]
            properties:
              bookId: {type: integer}
              due: {type: string, format: date}
          Problem:
            type: object
            required: [message]
            properties:
              message: {type: string}

      """

    /// The server's URL with `path` (and the query it may hold) appended.
    func url(_ base: URL, _ path: String) throws -> URL {
      try #require(URL(string: base.absoluteString + path))
    }

    @Test func servesEveryOperationOfADocument() async throws {
      let document = try temporaryDirectory(holding: ["library.yaml": Self.library]).appendingPathComponent(
        "library.yaml")
      let doppel = try DoppelProcess(["serve", document.path, "--port", "0", "--no-watch"])
      let base = try await doppel.serverURL()
      // The five operations, and the answer to methods the paths do not document.
      #expect(
        try await doppel.line(containing: "Serving").contains("library.yaml (OpenAPI 3.1.0, under /v2): 6 stubs at"))
      // Each has an id of its own in the admin API, from 0, and can be read by it.
      let listed = try JSONValue(parsing: Data(try await fetch(url(base, "/__doppel/stubs")).body.utf8))
      guard case .object(let members) = listed, case .array(let stubs)? = members["stubs"] else {
        Issue.record("GET /__doppel/stubs holds no list of stubs: \(listed)")
        return
      }
      let ids = stubs.compactMap { stub -> Double? in
        if case .object(let members) = stub, case .number(let id)? = members["id"] { return id }
        return nil
      }
      #expect(ids.sorted() == [0, 1, 2, 3, 4, 5])
      #expect(try await fetch(url(base, "/__doppel/stubs/0")).status == 200)

      #expect(
        try await fetch(url(base, "/v2/books"))
          == (
            200, #"[{"author":"Frank Herbert","id":1,"title":"Dune"},{"author":"Jane Austen","id":2,"title":"Emma"}]"#
          ))
      #expect(
        try await doppel.line(containing: "GET /v2/books →") == #"GET /v2/books → 200 (library.yaml:9 "listBooks")"#)
      #expect(
        try await fetch(url(base, "/v2/books/1")) == (200, #"{"author":"Frank Herbert","id":1,"title":"Dune"}"#))
      #expect(
        try await fetch(
          url(base, "/v2/books"), method: "POST", headers: ["Content-Type": "application/json"],
          body: #"{"id": 3, "title": "Kindred", "author": "Octavia E. Butler"}"#)
          == (201, #"{"author":"Octavia E. Butler","id":3,"title":"Kindred"}"#))
      // A request the document refuses, as Prism refuses it.
      #expect(
        try await fetch(url(base, "/v2/books"), method: "POST", headers: ["Content-Type": "application/json"]).status
          == 422)
      #expect(try await fetch(url(base, "/v2/books/1"), method: "PATCH").status == 405)
      #expect(try await fetch(url(base, "/v2/books/1"), method: "DELETE").status == 204)

      // The answer the request prefers: another documented status, another named example.
      #expect(
        try await fetch(url(base, "/v2/books/9"), headers: ["Prefer": "code=404"])
          == (404, #"{"message":"The shelves are empty."}"#))
      #expect(try await fetch(url(base, "/v2/books"), headers: ["Prefer": "example=empty"]) == (200, "[]"))
      let undocumented = try await fetch(url(base, "/v2/books/9"), headers: ["Prefer": "code=418"])
      #expect(undocumented.status == 500)
      #expect(undocumented.body.contains("documents no response 418 for getBook; it documents 200, 404."))

      // No example: a body made from the schema.
      let (status, loans) = try await fetch(url(base, "/v2/loans"))
      #expect(status == 200)
      let made = try #require(try JSONSerialization.jsonObject(with: Data(loans.utf8)) as? [[String: Any]])
      #expect(!made.isEmpty)
      #expect(made.allSatisfy { $0["bookId"] is NSNumber && $0["due"] is String })

      // A path the document does not have is unmatched: the document's error shape (its 404's
      // Problem) carrying the near-miss report.
      let unmatched = try await fetch(url(base, "/v2/authors"))
      #expect(unmatched.status == 404)
      #expect(unmatched.body.hasPrefix(#"{"message":"No stub matched GET http://"#))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    /// A kennel: a path parameter answered from the schema, an error shape of its own, an event
    /// stream written as its wire text, under a relative server path.
    static let kennel = #"""
      openapi: 3.0.3
      info: {title: Kennel, version: '1'}
      servers: [{url: /api}]
      paths:
        /dogs/{dogId}:
          get:
            operationId: getDog
            parameters: [{name: dogId, in: path, required: true, schema: {type: integer, minimum: 1}}]
            responses:
              '200':
                description: A dog.
                content: {application/json: {schema: {$ref: '#/components/schemas/Dog'}}}
              '404':
                description: No such dog.
                content: {application/json: {schema: {$ref: '#/components/schemas/Error'}}}
        /barks:
          get:
            operationId: listenToBarks
            responses:
              '200':
                description: The barks, as they come.
                content:
                  text/event-stream:
                    schema: {type: string}
                    example: "id: 1\ndata: {\"loud\": true}\n\nid: 2\ndata: {\"loud\": false}\n\n"
      components:
        schemas:
          Dog:
            type: object
            required: [id, name]
            properties:
              id: {type: integer, minimum: 1}
              name: {type: string}
          Error:
            type: object
            required: [code, message]
            properties:
              code: {type: integer}
              message: {type: string}

      """#

    /// Status, `Content-Type` and body of a GET with `headers`.
    func get(_ url: URL, headers: [String: String] = [:]) async throws -> (
      status: Int, type: String?, body: String
    ) {
      var request = URLRequest(url: url)
      for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
      let (data, response) = try await realSession.data(for: request)
      let http = response as? HTTPURLResponse
      return (
        http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Content-Type"), String(decoding: data, as: UTF8.self)
      )
    }

    @Test func pathParametersSeedTheAnswerAndAnUndocumentedPathGetsTheDocumentsErrorShape() async throws {
      let directory = try temporaryDirectory(holding: ["kennel.yaml": Self.kennel])
      let doppel = try DoppelProcess(["serve", "kennel.yaml", "--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      // The dog's id is the one asked for, and the same path gets the same dog.
      let first = try await get(url(base, "/api/dogs/42"))
      #expect(first.status == 200)
      let dog = try #require(try JSONSerialization.jsonObject(with: Data(first.body.utf8)) as? [String: Any])
      #expect(dog["id"] as? Int == 42)
      #expect(try await get(url(base, "/api/dogs/42")).body == first.body)
      let other = try await get(url(base, "/api/dogs/43"))
      #expect(other.body.contains(#""id":43"#))

      // A path under /api that the document does not have: its error shape, with the report.
      let missing = try await get(url(base, "/api/cats/1"))
      #expect(missing.status == 404)
      #expect(missing.type == "application/json")
      let error = try #require(try JSONSerialization.jsonObject(with: Data(missing.body.utf8)) as? [String: Any])
      #expect(error["code"] is Int)
      let message = try #require(error["message"] as? String)
      #expect(message.hasPrefix("No stub matched GET http://"))
      #expect(message.contains("/api/cats/1"))
      // Outside the document's servers: the plain report.
      let outside = try await get(url(base, "/cats/1"))
      #expect(outside.status == 404)
      #expect(outside.type?.hasPrefix("text/plain") == true)

      // The event stream's example, event by event.
      let barks = try await get(url(base, "/api/barks"), headers: ["Accept": "text/event-stream"])
      #expect(barks.type == "text/event-stream")
      #expect(barks.body == "id: 1\ndata: {\"loud\": true}\n\nid: 2\ndata: {\"loud\": false}\n\n")
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)

      // Another seed, another dog; the same seed, the same dog in every run.
      let seeded = try DoppelProcess(
        ["serve", "kennel.yaml", "--port", "0", "--no-watch", "--seed", "7"], directory: directory)
      let seededBase = try await seeded.serverURL()
      let seventh = try await get(url(seededBase, "/api/dogs/42")).body
      #expect(seventh != first.body)
      #expect(seventh.contains(#""id":42"#))
      seeded.interrupt()
      #expect(await seeded.waitForExit() == 0)
    }

    @Test func anUndocumentedPathOfADocumentWithoutAnErrorShapeGetsAProblem() async throws {
      let directory = try temporaryDirectory(holding: [
        "library.yaml": Self.library.replacingOccurrences(
          of: "schema: {$ref: '#/components/schemas/Problem'}", with: "schema: {type: string}")
      ])
      let doppel = try DoppelProcess(["serve", "library.yaml", "--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      let missing = try await get(url(base, "/v2/authors"))
      #expect(missing.status == 404)
      #expect(missing.type == "application/problem+json")
      let problem = try #require(try JSONSerialization.jsonObject(with: Data(missing.body.utf8)) as? [String: Any])
      #expect(problem["title"] as? String == "Not Found")
      #expect(problem["status"] as? Int == 404)
      #expect((problem["detail"] as? String)?.hasPrefix("No stub matched GET http://") == true)
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func servesThePetstoreShapedDocumentAndItsJSONForm() async throws {
      let resources = packageRoot.appendingPathComponent("Tests/DoppelOpenAPITests/Resources")
      let directory = try temporaryDirectory()
      for name in ["cattery.yaml", "common.yaml", "cattery-3.0.json"] {
        try FileManager.default.copyItem(
          at: resources.appendingPathComponent(name), to: directory.appendingPathComponent(name))
      }
      let pet = "/v1/pets/5b1f2e56-8a47-4f6b-9c1e-2d3f4a5b6c7d"
      for (name, version) in [("cattery.yaml", "3.1.0"), ("cattery-3.0.json", "3.0.3")] {
        let doppel = try DoppelProcess(["serve", name, "--port", "0", "--no-watch"], directory: directory)
        let base = try await doppel.serverURL()
        #expect(try await doppel.line(containing: "Serving").contains("\(name) (OpenAPI \(version), under /v1):"))
        #expect(try await fetch(url(base, pet)) == (200, #"{"indoor":true,"name":"Tom","petType":"cat"}"#))
        // The 404 is a response from common.yaml, which the document's `$ref` names.
        #expect(
          try await fetch(url(base, pet), headers: ["Prefer": "code=404"]) == (
            404, #"{"status":404,"title":"Not found"}"#
          ))
        let (status, breeds) = try await fetch(url(base, "/v1/breeds"))
        #expect(status == 200)
        #expect(breeds.hasPrefix(#"{"breeds":[{"id":1,"lifespan":14,"name":"Abyssinian""#))
        doppel.interrupt()
        #expect(await doppel.waitForExit() == 0)
      }
    }

    @Test(arguments: [true, false])
    func aManifestBesideTheDocumentTakesPrecedenceInEitherOrder(manifestFirst: Bool) async throws {
      let directory = try temporaryDirectory(holding: [
        "library.yaml": Self.library,
        "doppel.json": #"""
        {"stubs": [
          {"name": "checked out", "request": "GET https://api.library.test/v2/books/1",
           "response": {"status": 410, "json": {"message": "Lent out."}}}
        ]}
        """#,
      ])
      let inputs = manifestFirst ? ["doppel.json", "library.yaml"] : ["library.yaml", "doppel.json"]
      let doppel = try DoppelProcess(["serve"] + inputs + ["--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      let serving = try await doppel.line(containing: "Serving")
      #expect(serving.contains("doppel.json, library.yaml (OpenAPI 3.1.0, under /v2): 7 stubs at"))
      #expect(try await fetch(url(base, "/v2/books/1")) == (410, #"{"message":"Lent out."}"#))
      #expect(
        try await doppel.line(containing: "GET /v2/books/1 →")
          == #"GET /v2/books/1 → 410 (doppel.json:2 "checked out")"#)
      // The other operations, and other ids, still answer from the document.
      #expect(
        try await fetch(url(base, "/v2/books/2")) == (200, #"{"author":"Frank Herbert","id":1,"title":"Dune"}"#))
      #expect(try await fetch(url(base, "/v2/books"), headers: ["Prefer": "example=empty"]) == (200, "[]"))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    /// A cassette and a manifest beside the document: theirs answer first, and `--validate`
    /// checks their answers against the document too.
    @Test func aCassetteAndAManifestBesideTheDocumentAnswerFirstAndTheirAnswersAreValidated() async throws {
      let directory = try temporaryDirectory(holding: [
        "library.yaml": Self.library,
        "doppel.json": #"""
        {"stubs": [
          {"request": "GET https://api.library.test/v2/books/2",
           "response": {"json": {"id": "two", "title": "Emma", "author": "Jane Austen"}}}
        ]}
        """#,
      ])
      let recorded = try HAREntry(
        request: Request(url: try #require(URL(string: "https://api.library.test/v2/books/1"))),
        response: .json(["id": 1, "title": "Dune (recorded)", "author": "Frank Herbert"]))
      try Cassette(entries: [recorded]).save(to: directory.appendingPathComponent("recorded.har"))
      let doppel = try DoppelProcess(
        ["serve", "library.yaml", "recorded.har", "doppel.json", "--validate", "report", "--port", "0", "--no-watch"],
        directory: directory)
      let base = try await doppel.serverURL()
      let recordedAnswer = try await fetch(url(base, "/v2/books/1"))
      #expect(recordedAnswer.status == 200)
      #expect(
        try JSONValue(parsing: Data(recordedAnswer.body.utf8))
          == ["author": "Frank Herbert", "id": 1, "title": "Dune (recorded)"])
      // Answered by the cassette's entry, named where it is in the file.
      let line = try await doppel.line(containing: "GET /v2/books/1 →")
      #expect(line.hasPrefix("GET /v2/books/1 → 200 (recorded.har:"))
      #expect(line.hasSuffix(#" "recorded.har entries[0]")"#))
      let stubAnswer = try await fetch(url(base, "/v2/books/2"))
      #expect(stubAnswer.status == 200)
      #expect(stubAnswer.body == #"{"id":"two","title":"Emma","author":"Jane Austen"}"#)
      #expect(
        try await doppel.line(containing: "OpenAPI:")
          == "OpenAPI: getBook (GET /books/{bookId}): response 200 body $.id: expected an integer, found the string \"two\" (library.yaml:92 components.schemas.Book.properties.id.type)"
      )
      // The document still answers what the others do not.
      let documentAnswer = try await fetch(url(base, "/v2/books/3"))
      #expect(documentAnswer.status == 200)
      #expect(documentAnswer.body == #"{"author":"Frank Herbert","id":1,"title":"Dune"}"#)
      #expect(doppel.outputLines.filter { $0.hasPrefix("OpenAPI:") }.count == 1)
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func aNamedExampleIsAScenario() async throws {
      let directory = try temporaryDirectory(holding: ["library.yaml": Self.library])
      for (arguments, environment) in [
        (["--scenario", "empty"], [:]), ([], ["DOPPEL_SCENARIO": "empty"]),
      ] {
        let doppel = try DoppelProcess(
          ["serve", "library.yaml", "--port", "0", "--no-watch"] + arguments, directory: directory,
          environment: environment)
        let base = try await doppel.serverURL()
        #expect(
          try await doppel.line(containing: "Serving").contains(
            #"library.yaml (OpenAPI 3.1.0, under /v2, scenario "empty")"#))
        #expect(try await fetch(url(base, "/v2/books")) == (200, "[]"))
        // Every operation with an example of that name answers with it, whatever its status; the
        // others answer as usual.
        #expect(try await fetch(url(base, "/v2/books/1")) == (404, #"{"message":"The shelves are empty."}"#))
        #expect(
          try await fetch(
            url(base, "/v2/books"), method: "POST", headers: ["Content-Type": "application/json"],
            body: #"{"id": 3, "title": "Kindred", "author": "Octavia E. Butler"}"#)
            == (201, #"{"author":"Octavia E. Butler","id":3,"title":"Kindred"}"#))
        // The admin API lists the examples as scenarios, and switches among them.
        #expect(
          try await fetch(url(base, "/__doppel/scenario")).body.contains(#""scenarios":["shelf","empty","missing"]"#))
        doppel.interrupt()
        #expect(await doppel.waitForExit() == 0)
      }

      let unknown = try await DoppelProcess.run(
        ["serve", "library.yaml", "--scenario", "full", "--port", "0"], directory: directory)
      #expect(unknown.status != 0)
      #expect(
        unknown.error.contains(
          #"There is no scenario "full" (from --scenario) in the inputs: the manifests' scenarios are none, and the OpenAPI documents' named examples are "shelf", "empty", "missing". Use one of those, or add an example named "full" under a response's `examples`."#
        ))
    }

    @Test func validatePrintsEveryViolationAndChangesNoAnswer() async throws {
      let directory = try temporaryDirectory(holding: ["library.yaml": Self.library])
      let doppel = try DoppelProcess(
        ["serve", "library.yaml", "--validate", "report", "--port", "0", "--no-watch"], directory: directory)
      let base = try await doppel.serverURL()
      let (status, body) = try await fetch(url(base, "/v2/books/dune?limit=0"))
      #expect(status == 200)
      #expect(body == #"{"author":"Frank Herbert","id":1,"title":"Dune"}"#)
      let violation = try await doppel.line(containing: "OpenAPI:")
      #expect(
        violation
          == "OpenAPI: getBook (GET /books/{bookId}): request path parameter bookId: expected an integer, found the string \"dune\" (library.yaml:49 paths./books/{bookId}.parameters.0.schema.type)"
      )
      #expect(
        try await doppel.line(containing: "GET /v2/books/dune")
          == "GET /v2/books/dune?limit=0 → 200 (library.yaml:50 \"getBook\")")

      _ = try await fetch(
        url(base, "/v2/books"), method: "POST", headers: ["Content-Type": "application/json"])
      let missingBody = try await doppel.line(containing: "OpenAPI: addBook")
      #expect(
        missingBody
          == "OpenAPI: addBook (POST /books): request body: the required request body is missing (library.yaml:32 paths./books.post.requestBody.required)"
      )
      // A conforming exchange prints nothing but its request line.
      _ = try await fetch(url(base, "/v2/books?limit=5"))
      _ = try await doppel.line(containing: "GET /v2/books?limit=5")
      #expect(doppel.outputLines.filter { $0.hasPrefix("OpenAPI:") }.count == 2)
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)

      let without = try await DoppelProcess.run(
        ["serve", "doppel.json", "--validate", "report", "--port", "0"],
        directory: try temporaryDirectory(holding: ["doppel.json": #"{"stubs": []}"#])
      )
      #expect(without.status != 0)
      #expect(
        without.error.contains(
          "--validate checks against the OpenAPI documents among the inputs, and there are none. Pass the document (such as api.yaml) beside the other inputs, or drop --validate."
        ))
    }

    @Test func anEditedDocumentIsReloaded() async throws {
      let directory = try temporaryDirectory(holding: ["library.yaml": Self.library])
      let document = directory.appendingPathComponent("library.yaml")
      let doppel = try DoppelProcess(["serve", "library.yaml", "--port", "0"], directory: directory)
      let base = try await doppel.serverURL()
      #expect(try await fetch(url(base, "/v2/books/1")).body.contains("Dune"))

      try Data(
        Self.library.replacingOccurrences(of: "example: {id: 1, title: Dune", with: "example: {id: 1, title: Beloved")
          .utf8
      )
      .write(to: document)
      _ = try await doppel.line(containing: "Reloaded")
      #expect(
        try await fetch(url(base, "/v2/books/1")) == (200, #"{"author":"Frank Herbert","id":1,"title":"Beloved"}"#))

      // A broken edit keeps the previous version serving, and says what is wrong.
      try Data(Self.library.replacingOccurrences(of: "  /loans:", with: "  /loans: [").utf8).write(to: document)
      let error = try await doppel.errors.first { $0.contains("Not reloaded") }
      #expect(error.hasPrefix("Not reloaded, still serving the previous version: library.yaml:"))
      #expect(try await fetch(url(base, "/v2/books/1")).body.contains("Beloved"))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func anEditedFileThatTheDocumentRefersToIsReloaded() async throws {
      let resources = packageRoot.appendingPathComponent("Tests/DoppelOpenAPITests/Resources")
      let directory = try temporaryDirectory()
      for name in ["cattery.yaml", "common.yaml"] {
        try FileManager.default.copyItem(
          at: resources.appendingPathComponent(name), to: directory.appendingPathComponent(name))
      }
      let doppel = try DoppelProcess(["serve", "cattery.yaml", "--port", "0"], directory: directory)
      let base = try await doppel.serverURL()
      // The 400 has no example: its body is made from common.yaml's Problem.
      let before = try await fetch(url(base, "/v1/breeds"), headers: ["Prefer": "code=400"])
      #expect(before.status == 400)
      #expect(!before.body.contains("Edited"))
      let common = directory.appendingPathComponent("common.yaml")
      let text = try String(contentsOf: common, encoding: .utf8)
      try Data(text.replacingOccurrences(of: "minLength: 1", with: "enum: [Edited]").utf8).write(to: common)
      _ = try await doppel.line(containing: "Reloaded")
      let after = try await fetch(url(base, "/v1/breeds"), headers: ["Prefer": "code=400"])
      #expect(after.status == 400)
      #expect(after.body.contains(#""title":"Edited""#))
      doppel.interrupt()
      #expect(await doppel.waitForExit() == 0)
    }

    @Test func aMalformedDocumentIsAClearError() async throws {
      let directory = try temporaryDirectory(holding: [
        "broken.yaml": "openapi: 3.1.0\ninfo:\n  title: Broken\n   version: 1.0.0\npaths: {}\n",
        "swagger.json": #"{"swagger": "2.0", "info": {"title": "Old", "version": "1"}, "paths": {}}"#,
      ])
      let broken = try await DoppelProcess.run(["serve", "broken.yaml", "--port", "0"], directory: directory)
      #expect(broken.status != 0)
      #expect(
        broken.error
          == "Error: broken.yaml:4:11: the YAML is malformed: mapping values are not allowed in this context. Fix the indentation or quoting there."
      )
      // doppel lint checks a document for what doppel serve refuses.
      let lint = try await DoppelProcess.run(["lint", "broken.yaml"], directory: directory)
      #expect(lint.status == 1)
      #expect(
        lint.output
          == "broken.yaml:4:11: the YAML is malformed: mapping values are not allowed in this context. Fix the indentation or quoting there."
      )
      try Data(Self.library.utf8).write(to: directory.appendingPathComponent("library.yaml"))
      let clean = try await DoppelProcess.run(["lint", "library.yaml"], directory: directory)
      #expect(clean.status == 0)
      #expect(clean.output == "No problems in 1 file.")
      let swagger = try await DoppelProcess.run(["serve", "swagger.json", "--port", "0"], directory: directory)
      #expect(swagger.status != 0)
      #expect(
        swagger.error.contains(
          "swagger.json:1: Swagger 2.0 documents are not supported. Convert it to OpenAPI 3 (for example with swagger2openapi)."
        ))
    }
  }
#endif
