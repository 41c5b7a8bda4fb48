#if OpenAPI
  import Doppel
  @testable import DoppelOpenAPI
  import Foundation
  import Testing

  /// A `$ref` names files only inside the document's folder: no absolute path, `..` or symbolic
  /// link leads out of it.
  @Suite struct ReferenceContainmentTests {
    /// A folder holding `project/` (the document's folder, with `schemas/common.yaml` defining
    /// `Breed`) and `secret.yaml` beside it, removed when `body` returns.
    private func withProject(_ body: (_ project: URL, _ secret: URL) throws -> Void) throws {
      let root = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-ref-\(UUID().uuidString)")
      let project = root.appendingPathComponent("project")
      try FileManager.default.createDirectory(
        at: project.appendingPathComponent("schemas"), withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: root) }
      try Data("Breed: {type: object}\n".utf8).write(to: project.appendingPathComponent("schemas/common.yaml"))
      let secret = root.appendingPathComponent("secret.yaml")
      try Data("Breed: {type: string}\n".utf8).write(to: secret)
      try body(project, secret)
    }

    /// Reads `api.yaml` in `project`, whose `GET /a` answers with the schema `$ref: reference`.
    private func load(_ reference: String, in project: URL) throws(OpenAPIError) -> OpenAPIDocument {
      let url = project.appendingPathComponent("api.yaml")
      try? Data(Documents.answering("$ref: '\(reference)'").utf8).write(to: url)
      return try OpenAPIDocument(contentsOf: url)
    }

    private static let keyPath = "paths./a.get.responses.200.content.application/json.schema.$ref"

    private static func fix(_ project: URL, from file: String = "api.yaml") -> String {
      "A document's $refs name files only inside its own folder; move the file into \(project.path) (or a folder in it) and refer to it by a path relative to \(file)."
    }

    @Test func filesInsideTheFolderStillLoad() throws {
      try withProject { project, _ in
        _ = try load("schemas/common.yaml#/Breed", in: project)
        _ = try load("schemas/../schemas/common.yaml#/Breed", in: project)
        _ = try load(project.appendingPathComponent("schemas/common.yaml").path + "#/Breed", in: project)
        try FileManager.default.createSymbolicLink(
          atPath: project.appendingPathComponent("link.yaml").path, withDestinationPath: "schemas/common.yaml")
        _ = try load("link.yaml#/Breed", in: project)
        // A referenced file in a folder may name one beside the document with "..".
        try Data("Cat: {$ref: '../link.yaml#/Breed'}\n".utf8).write(
          to: project.appendingPathComponent("schemas/cat.yaml"))
        _ = try load("schemas/cat.yaml#/Cat", in: project)
      }
    }

    @Test func dotDotIsRefusedAndTheFileIsNotRead() throws {
      try withProject { project, _ in
        #expect(
          throws: OpenAPIError(
            file: "api.yaml", line: 12,
            #"\#(Self.keyPath): the $ref "../secret.yaml#/Breed" names a file outside the document's folder \#(project.path): ".." leads out of it. \#(Self.fix(project))"#
          )
        ) { try load("../secret.yaml#/Breed", in: project) }
      }
    }

    @Test func anAbsolutePathOutsideIsRefused() throws {
      try withProject { project, secret in
        #expect(
          throws: OpenAPIError(
            file: "api.yaml", line: 12,
            #"\#(Self.keyPath): the $ref "\#(secret.path)#/Breed" names a file outside the document's folder \#(project.path): it is an absolute path outside it. \#(Self.fix(project))"#
          )
        ) { try load("\(secret.path)#/Breed", in: project) }
        #expect(
          throws: OpenAPIError(
            file: "api.yaml", line: 12,
            #"\#(Self.keyPath): the $ref "/dev/zero#/A" names a file outside the document's folder \#(project.path): it is an absolute path outside it. \#(Self.fix(project))"#
          )
        ) { try load("/dev/zero#/A", in: project) }
      }
    }

    @Test func aSymbolicLinkLeadingOutIsRefused() throws {
      try withProject { project, secret in
        try FileManager.default.createSymbolicLink(
          atPath: project.appendingPathComponent("innocent.yaml").path, withDestinationPath: secret.path)
        #expect(
          throws: OpenAPIError(
            file: "api.yaml", line: 12,
            #"\#(Self.keyPath): the $ref "innocent.yaml#/Breed" names a file outside the document's folder \#(project.path): a symbolic link leads out of it, to \#(FileContainment.realPath(secret) ?? ""). \#(Self.fix(project))"#
          )
        ) { try load("innocent.yaml#/Breed", in: project) }
      }
    }

    @Test func aReferencedFileLeadingOutIsNamed() throws {
      try withProject { project, _ in
        try Data("Cat:\n  $ref: '../../secret.yaml#/Breed'\n".utf8).write(
          to: project.appendingPathComponent("schemas/cat.yaml"))
        #expect(
          throws: OpenAPIError(
            // A file a $ref names is named by its path from the document's folder.
            file: "schemas/cat.yaml", line: 2,
            #"Cat.$ref: the $ref "../../secret.yaml#/Breed" names a file outside the document's folder \#(project.path): ".." leads out of it. \#(Self.fix(project, from: "cat.yaml"))"#
          )
        ) { try load("schemas/cat.yaml#/Cat", in: project) }
      }
    }
  }
#endif
