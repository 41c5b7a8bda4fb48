#if OpenAPI
  import Doppel
  @testable import DoppelOpenAPI
  import Foundation
  import Testing

  @Suite struct DocumentTests {
    @Test(arguments: ["cattery.yaml", "cattery-3.0.json"])
    func readsBothVersions(_ name: String) throws {
      let document = try OpenAPIDocument(contentsOf: Documents.url(name))
      #expect(
        document.operationIDs == [
          "listBreeds", "createBreed", "getBreed", "replaceBreed", "deleteBreed", "listPhotos", "listPets", "createPet",
          "getPet", "getOwner", "updateOwner", "health",
        ])
      #expect(document.exampleNames == ["standard", "empty", "missing"])
      #expect(document.version.hasPrefix(name.hasSuffix("json") ? "3.0" : "3.1"))
    }

    @Test func malformedYAMLNamesTheLine() throws {
      let url = try Documents.temporary("bad.yaml", "openapi: 3.1.0\ninfo:\n  title: [unclosed\n")
      #expect(throws: OpenAPIError.self) { try OpenAPIDocument(contentsOf: url) }
      do {
        _ = try OpenAPIDocument(contentsOf: url)
      } catch {
        #expect(error.file == "bad.yaml")
        #expect(error.line == 4)
        #expect(error.message.hasSuffix("Fix the indentation or quoting there."))
      }
    }

    @Test func malformedJSONNamesLineAndColumn() throws {
      let url = try Documents.temporary("bad.json", "{\n  \"openapi\": \"3.1.0\",\n  \"paths\": {,}\n}")
      #expect(throws: OpenAPIError.self) { try OpenAPIDocument(contentsOf: url) }
      do {
        _ = try OpenAPIDocument(contentsOf: url)
      } catch {
        #expect(error.description.hasPrefix("bad.json:3:13: "))
        #expect(error.message.hasSuffix("Fix the JSON syntax there."))
      }
    }

    @Test func unsupportedVersions() throws {
      let swagger = try Documents.temporary("old.yaml", "swagger: '2.0'\ninfo: {title: x, version: '1'}\n")
      #expect(
        throws: OpenAPIError(
          file: "old.yaml", line: 1,
          "Swagger 2.0 documents are not supported. Convert it to OpenAPI 3 (for example with swagger2openapi).")
      ) {
        try OpenAPIDocument(contentsOf: swagger)
      }
      let future = try Documents.temporary("future.yaml", "info: {title: x, version: '1'}\nopenapi: 4.0.0\n")
      #expect(
        throws: OpenAPIError(
          file: "future.yaml", line: 2,
          "OpenAPI 4.0.0 is not supported; Doppel reads 3.0.x and 3.1.x. Declare `openapi: 3.1.0` or `3.0.3` (in quotes in YAML)."
        )
      ) {
        try OpenAPIDocument(contentsOf: future)
      }
      let none = try Documents.temporary("none.yaml", "info: {title: x, version: '1'}\n")
      #expect(
        throws: OpenAPIError(
          file: "none.yaml", line: 1,
          "the document has no `openapi` version. Add `openapi: 3.1.0` (or 3.0.3) at the top.")
      ) {
        try OpenAPIDocument(contentsOf: none)
      }
      let empty = try Documents.temporary("empty.yaml", "\n")
      #expect(
        throws: OpenAPIError(
          file: "empty.yaml", line: 1,
          "the file is empty. An OpenAPI document starts with `openapi: 3.1.0` (YAML) or {\"openapi\": \"3.1.0\"} (JSON)."
        )
      ) {
        try OpenAPIDocument(contentsOf: empty)
      }
    }

    @Test func anAliasBombIsRefusedBeforeItFillsTheMemory() throws {
      // Ten anchors, each a list of ten aliases of the one before: 10^10 values written out.
      var lines = [
        "openapi: 3.1.0", "info: {title: bomb, version: '1'}", "paths: {}",
        "x-a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]",
      ]
      for level in 1...9 {
        lines.append(
          "x-a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
      }
      let url = try Documents.temporary("bomb.yaml", lines.joined(separator: "\n") + "\n")
      do {
        _ = try OpenAPIDocument(contentsOf: url)
        Issue.record("an alias bomb was read")
      } catch {
        #expect(error.file == "bomb.yaml")
        #expect(
          error.message
            == "the YAML's aliases (*name) stand for more values than the file could hold written out, so it is refused before it fills the memory. Write the values out once, or use $ref."
        )
      }
    }

    @Test func aliasesWithinTheDocumentsSizeAreRead() throws {
      let url = try Documents.temporary(
        "aliases.yaml",
        """
        openapi: 3.1.0
        info: {title: aliases, version: '1'}
        x-shared: &shared {type: string}
        paths:
          /a:
            get:
              operationId: getA
              responses:
                '200':
                  description: ok
                  content:
                    application/json:
                      schema: *shared
        """)
      let document = try OpenAPIDocument(contentsOf: url)
      #expect(document.operationIDs == ["getA"])
    }

    @Test(arguments: ["minimum: .nan", "maximum: .inf", "exclusiveMinimum: -.inf", "multipleOf: .nan"])
    func numericBoundsMustBeFinite(_ keyword: String) throws {
      // YAML can write NaN and infinities; a bound made of one bounds nothing, and an example
      // generated for it would crash converting it to a whole number.
      let url = try Documents.temporary(
        "bounds.yaml", Documents.answering("type: integer\n\(keyword)"))
      let key = String(keyword.prefix { $0 != ":" })
      let value = keyword.hasSuffix("nan") ? "nan" : keyword.hasSuffix("-.inf") ? "-inf" : "inf"
      #expect(
        throws: OpenAPIError(
          file: "bounds.yaml", line: 13,
          "\(key) must be a finite number, not \(value). Write it as, for example, \(key): 1.")
      ) {
        try OpenAPIDocument(contentsOf: url)
      }
    }

    @Test func aDocumentThatIsADeviceOrAReferencedFolderIsRefused() throws {
      let reason =
        "it is not a regular file (a directory, a device, a pipe or a socket; a device or a pipe may never end)"
      #expect(
        throws: OpenAPIError(
          file: "zero", line: 1, "the OpenAPI document could not be read: \(reason). Check the path.")
      ) {
        try OpenAPIDocument(contentsOf: URL(fileURLWithPath: "/dev/zero"))
      }
      // A file outside the document's folder is refused before it is opened (ReferenceContainmentTests);
      // a folder inside it is not a regular file either.
      let url = try Documents.temporary(
        "device-ref.yaml", Documents.answering("$ref: 'folder#/components/schemas/A'"))
      let folder = url.deletingLastPathComponent().appendingPathComponent("folder")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      #expect(
        throws: OpenAPIError(
          file: "device-ref.yaml", line: 12,
          "the $ref names the file folder, which could not be read at \(folder.path): \(reason). Name a regular file; the path is relative to device-ref.yaml."
        )
      ) {
        try OpenAPIDocument(contentsOf: url)
      }
    }

    @Test func danglingReferenceNamesTheLine() throws {
      let url = try Documents.temporary(
        "dangling.yaml", Documents.answering("$ref: '#/components/schemas/Missing'"))
      #expect(
        throws: OpenAPIError(
          file: "dangling.yaml", line: 12,
          "the $ref \"#/components/schemas/Missing\" names nothing: dangling.yaml has no /components/schemas/Missing. Check the name, or add the definition."
        )
      ) {
        try OpenAPIDocument(contentsOf: url)
      }
    }

    @Test func structureOpenAPIKitRefusesIsLocated() throws {
      let url = try Documents.temporary(
        "shape.yaml",
        """
        openapi: 3.1.0
        info:
          title: x
        paths: {}
        """)
      do {
        _ = try OpenAPIDocument(contentsOf: url)
        Issue.record("expected an error")
      } catch {
        #expect(error.file == "shape.yaml")
        #expect(error.line == 2)
        #expect(error.message.hasPrefix("the document is not valid OpenAPI 3.1.0 at info: "))
        #expect(error.message.hasSuffix("Fix that part of the document."))
      }
    }

    @Test func missingFile() {
      #expect(throws: OpenAPIError.self) {
        try OpenAPIDocument(contentsOf: URL(fileURLWithPath: "/nonexistent/api.yaml"))
      }
    }
  }
#endif
