#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import Testing
  import TestSupport

  /// Documents as they are published: the deviations common in real documents are read, each with
  /// one warning at its first line.
  @Suite struct PublishedDocumentTests {
    /// A split description (operations and properties in files of their own), a 3.0-style
    /// exclusive bound in 3.1, an integer bound a JSON writer rounded, and an example that is a
    /// `$ref`.
    func splitDocument() throws -> URL {
      let folder = try temporaryFile("README", "", prefix: "doppel-published").deletingLastPathComponent()
      let files = [
        "api.yaml": """
        openapi: 3.1.0
        info: {title: x, version: '1'}
        paths:
          /items:
            get: {$ref: 'paths/list.yaml'}
        components:
          schemas:
            Item:
              type: object
              required: [id, count]
              properties: {$ref: 'item-properties.yaml'}
          examples:
            items:
              value: [{id: 3, count: 2}]
        """,
        "paths/list.yaml": """
        operationId: listItems
        responses:
          '200':
            description: ok
            content:
              application/json:
                schema:
                  type: array
                  items: {$ref: '../api.yaml#/components/schemas/Item'}
                example: {$ref: '../api.yaml#/components/examples/items'}
        """,
        "item-properties.yaml": """
        id:
          type: integer
          minimum: 0
          exclusiveMinimum: true
          maximum: 9223372036854776000
        count: {type: integer}
        """,
      ]
      for (name, text) in files {
        let url = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
      }
      return folder.appendingPathComponent("api.yaml")
    }

    @Test func aSplitDescriptionWithCommonDeviationsLoadsWithOneWarningEach() async throws {
      let document = try OpenAPIDocument(contentsOf: try splitDocument())
      #expect(document.operationIDs == ["listItems"])
      #expect(
        document.warnings.map(\.description) == [
          "api.yaml:5: warning: an operation (`get:`) is a $ref (\"paths/list.yaml\"), which OpenAPI does not allow there: the standard wants the object itself, and other tools will not follow it. Doppel reads the file it names; bundle the description (for example with `redocly bundle`) or write the object in place.",
          "api.yaml:11: warning: `properties` is a $ref (\"item-properties.yaml\"), which OpenAPI does not allow there: the standard wants the object itself, and other tools will not follow it. Doppel reads the file it names; bundle the description (for example with `redocly bundle`) or write the object in place.",
          "item-properties.yaml:4: warning: exclusiveMinimum: true is OpenAPI 3.0's form; in OpenAPI 3.1 (JSON Schema 2020-12) exclusiveMinimum is the bound itself. Write `exclusiveMinimum: <the bound>` instead of `minimum: <the bound>` with `exclusiveMinimum: true` (and drop `exclusiveMinimum: false`).",
          "item-properties.yaml:5: warning: maximum: 9223372036854776000 is beyond the 64-bit integers (it is likely 9223372036854775807 rounded by the program that wrote the document); Doppel reads it as 9223372036854775807. Write the exact bound, 9223372036854775807.",
          "paths/list.yaml:10: warning: the example is {$ref: \"../api.yaml#/components/examples/items\"}; an example is a literal value in OpenAPI, so other tools serve it as written. Doppel serves what it names; write the value in place, or use a named example under `examples` (whose entries may be $refs).",
        ])
      let backend = Backend(issueReporter: .ignore)
      try backend.addStubs(from: document)
      let (data, response) = try await backend.respond(to: URLRequest(url: URL(string: "https://x.test/items")!))
      #expect(response.statusCode == 200)
      #expect(String(decoding: data, as: UTF8.self) == #"[{"count":2,"id":3}]"#)
    }

    /// Keys the standard does not define, beside vendor extensions: published documents carry
    /// them (a generator's leftovers, a misplaced `summary`), and other tools ignore them.
    /// OpenAPIKit's search for extensions refused them, and made reading a document take time
    /// that grew with its size times its depth; that search is off.
    @Test func keysTheStandardDoesNotDefineAreReadAsPublished() async throws {
      let url = try temporaryFile(
        "api.yaml",
        """
        openapi: 3.1.0
        info: {title: x, version: '1', x-logo: {url: 'https://example.com/logo.png'}}
        paths:
          /items:
            x-internal: true
            get:
              operationId: listItems
              generatedBy: some-generator 1.2
              responses:
                '200':
                  description: ok
                  displayName: Items
                  content:
                    application/json:
                      schema: {type: array, items: {type: integer}, x-order: 3}
                      example: [1, 2]
        """, prefix: "doppel-unknown-keys")
      let document = try OpenAPIDocument(contentsOf: url)
      #expect(document.operationIDs == ["listItems"])
      #expect(document.warnings.isEmpty)
      let backend = Backend(issueReporter: .ignore)
      try backend.addStubs(from: document)
      let (data, response) = try await backend.respond(to: URLRequest(url: URL(string: "https://x.test/items")!))
      #expect(response.statusCode == 200)
      #expect(String(decoding: data, as: UTF8.self) == "[1,2]")
    }

    @Test func aStructureErrorInAReferencedFileNamesThatFileAndCarriesNoMarkdown() throws {
      let folder = try temporaryFile("README", "", prefix: "doppel-published").deletingLastPathComponent()
      try Data(
        """
        openapi: 3.0.3
        info: {title: x, version: '1'}
        paths:
          /items:
            get: {$ref: 'paths/list.yaml'}
        """.utf8
      ).write(to: folder.appendingPathComponent("api.yaml"))
      try FileManager.default.createDirectory(
        at: folder.appendingPathComponent("paths"), withIntermediateDirectories: true)
      try Data("operationId: listItems\n".utf8).write(to: folder.appendingPathComponent("paths/list.yaml"))
      #expect {
        try OpenAPIDocument(contentsOf: folder.appendingPathComponent("api.yaml"))
      } throws: { error in
        let message = "\(error)"
        return !message.contains("**") && !message.contains("..") && message.contains("responses")
      }
    }
  }
#endif
