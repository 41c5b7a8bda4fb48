#if Server && OpenAPI
  import Doppel
  import Foundation
  import Testing

  /// `doppel lint --openapi`: stubs and cassette entries that the document contradicts, with the
  /// runtime check's messages, at the stub's declaration or the entry's position.
  @Suite(.timeLimit(.minutes(1))) struct LintOpenAPITests {
    /// A folder holding the realistic test document (`cattery.yaml` and the `common.yaml` it
    /// refers to) and `files`.
    func folder(_ files: [String: String]) throws -> URL {
      let directory = try temporaryDirectory()
      let resources = packageRoot.appendingPathComponent("Tests/DoppelOpenAPITests/Resources")
      for name in ["cattery.yaml", "common.yaml"] {
        try FileManager.default.copyItem(
          at: resources.appendingPathComponent(name), to: directory.appendingPathComponent(name))
      }
      for (name, text) in files {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
      }
      return directory
    }

    static let manifest = #"""
      {
        "stubs": [
          { "request": "GET https://api.cattery.test/v1/breeds/7",
            "response": { "json": { "id": 7, "name": "Abyssinian", "lifespan": 14 } } },
          { "request": "GET https://api.cattery.test/v1/breeds/8",
            "response": { "json": { "id": 8, "name": 5, "lifespan": 14 } } },
          { "request": "GET https://api.cattery.test/v1/breeds/abc", "response": { "status": 404 } },
          { "request": "DELETE https://api.cattery.test/v1/pets/{petId}", "response": { "status": 204 } },
          { "request": "GET https://api.cattery.test/v1/cats", "response": { "status": 200 } },
          { "request": "GET https://api.cattery.test/v1/owners/{ownerId}", "response": { "status": 418 } },
          { "request": { "method": "GET", "pathRegex": "^/v1/anything" }, "response": { "status": 599 } }
        ],
        "scenarios": {
          "empty": {
            "stubs": [
              { "request": "GET https://api.cattery.test/v1/breeds", "response": { "json": { "breeds": [] } } }
            ]
          }
        }
      }
      """#

    /// One entry per line, so that each starts on a known line.
    static let cassette = #"""
      {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
        {"request": {"method": "GET", "url": "https://api.cattery.test/v1/health", "headers": []}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/plain"}], "content": {"mimeType": "text/plain", "text": "ok"}}},
        {"request": {"method": "GET", "url": "https://api.cattery.test/v1/breeds?limit=500", "headers": []}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "X-Rate-Limit", "value": "100"}], "content": {"mimeType": "application/json", "text": "{\"breeds\": []}"}}},
        {"request": {"method": "GET", "url": "https://api.cattery.test/v1/pets", "headers": []}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "[]"}}},
        {"request": {"method": "POST", "url": "https://api.cattery.test/v1/breeds", "headers": [{"name": "Content-Type", "value": "application/json"}], "postData": {"mimeType": "application/json", "text": "{\"name\": \"Bengal\", \"lifespan\": 13}"}}, "response": {"status": 201, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{\"id\": 3, \"name\": \"Bengal\", \"lifespan\": \"13\"}"}}}
      ]}}
      """#

    @Test func everyContradictionIsReportedAtItsStubOrEntry() async throws {
      let directory = try folder(["doppel.json": Self.manifest, "cassettes/recorded.har": Self.cassette])
      let result = try await DoppelProcess.run(
        ["lint", "--openapi", "cattery.yaml", "doppel.json", "cassettes/recorded.har"], directory: directory)
      #expect(result.status == 1)
      #expect(
        result.output.split(separator: "\n").map(String.init) == [
          "doppel.json:5:5: getBreed (GET /breeds/{breedId}): response 200 body $.name: expected a string, found the number 5 (cattery.yaml:289 components.schemas.Breed.properties.name.type)",
          "doppel.json:7:5: getBreed (GET /breeds/{breedId}): request path parameter breedId: expected an integer, found the string \"abc\" (cattery.yaml:81 paths./breeds/{breedId}.parameters.0.schema.type)",
          "doppel.json:8:5: DELETE /v1/pets/{petId}: request: /pets/{petId} has no DELETE operation; it documents GET (cattery.yaml:174 paths./pets/{petId})",
          "doppel.json:9:5: GET /v1/cats: request: no path in cattery.yaml matches /v1/cats (under the server path /v1) (cattery.yaml:8 paths)",
          "doppel.json:10:5: getOwner (GET /owners/{ownerId}): response 418: the status 418 is not documented; the operation documents 200 (cattery.yaml:206 paths./owners/{ownerId}.get.responses)",
          "doppel.json:16:9: listBreeds (GET /breeds): response 200 header X-Rate-Limit: the required header \"X-Rate-Limit\" is missing (cattery.yaml:27 paths./breeds.get.responses.200.headers.X-Rate-Limit)",
          "cassettes/recorded.har:3:3: listBreeds (GET /breeds): request query parameter limit: 500 is greater than the maximum 100 (cattery.yaml:249 components.parameters.Limit.schema.maximum)",
          "cassettes/recorded.har:4:3: listPets (GET /pets): request query parameter species: the required query parameter \"species\" is missing (cattery.yaml:142 paths./pets.get.parameters.0)",
          "cassettes/recorded.har:5:3: createBreed (POST /breeds): response 201 body $.lifespan: expected an integer, found the string \"13\" (cattery.yaml:301 components.schemas.Breed.properties.lifespan.type)",
        ])
      #expect(result.error == "doppel lint: 9 problems in 2 of 2 files.")
    }

    @Test func conformingFilesPass() async throws {
      let directory = try folder([
        "doppel.json": #"""
        {"stubs": [{"request": "GET https://api.cattery.test/v1/health", "response": {"text": "ok"}}]}
        """#
      ])
      let result = try await DoppelProcess.run(
        ["lint", "--openapi", "cattery.yaml", "doppel.json"], directory: directory)
      #expect(result.status == 0)
      #expect(result.output == "No problems in 1 file.")
    }

    @Test func aBadDocumentGetsItsOwnPositionedErrorAndTheFilesAreStillChecked() async throws {
      let directory = try folder([
        "doppel.json": #"{"stubs": []}"#,
        "bad/doppel.json": #"{"stubs": [{"request": "/a", "response": {"status": 999}}]}"#,
        "specs/old.yaml": "swagger: '2.0'\ninfo: {title: Old, version: 1.0.0}\npaths: {}\n",
      ])
      let result = try await DoppelProcess.run(
        ["lint", "--openapi", "specs/old.yaml", "doppel.json", "bad/doppel.json"], directory: directory)
      #expect(result.status == 1)
      #expect(
        result.output.split(separator: "\n") == [
          "specs/old.yaml:1: Swagger 2.0 documents are not supported. Convert it to OpenAPI 3 (for example with swagger2openapi).",
          "bad/doppel.json:1:53: stubs[0].response.status: expected an HTTP status from 100 to 599, found the number 999, which is too large.",
        ])
      #expect(
        result.error.split(separator: "\n") == [
          "doppel lint: the OpenAPI document specs/old.yaml cannot be used; the files are checked without it.",
          "doppel lint: 1 problem in 1 of 2 files.",
        ])
    }

    @Test func aRefusedDocumentGetsTheSameFirstErrorInEveryRun() async throws {
      // Twenty paths, two of them refused: OpenAPIKit decodes paths in an order that changes
      // from run to run; the error reported is the first in the document's order, every time.
      var paths = ""
      for index in 0..<20 {
        let parameter = index == 2 ? "\n        parameters: [{name: x, in: nowhere}]" : ""
        let responses = index == 17 ? "" : "\n        responses: {'200': {description: OK}}"
        paths += "  /items\(index):\n    get:\(parameter)\(responses)\n"
      }
      let document = "openapi: 3.0.3\ninfo: {title: Items, version: '1'}\npaths:\n" + paths
      let directory = try temporaryDirectory(holding: ["items.yaml": document])
      let line =
        try #require(
          document.split(separator: "\n", omittingEmptySubsequences: false).firstIndex {
            $0.contains("nowhere")
          }) + 1
      for _ in 0..<3 {
        let result = try await DoppelProcess.run(["lint", "items.yaml"], directory: directory)
        #expect(result.status == 1)
        #expect(
          result.output.hasPrefix(
            "items.yaml:\(line): the document is not valid OpenAPI 3.0.3 at paths./items2.get.parameters.0:"))
      }
    }
  }
#endif
