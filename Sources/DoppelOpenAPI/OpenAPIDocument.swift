#if OpenAPI
  import Doppel
  import Foundation
  import OpenAPIKit
  import OpenAPIKit30
  import Yams

  /// An OpenAPI 3.0 or 3.1 document (YAML or JSON), read and compiled once: its operations, and
  /// their schemas ready to check requests and responses against.
  ///
  /// ```swift
  /// let document = try OpenAPIDocument(contentsOf: apiURL)
  /// try backend.addStubs(from: document)
  /// backend.validate(against: document)
  /// ```
  ///
  /// `$ref`s may point inside the document or at files in its folder (`common.yaml#/Breed`); a
  /// `$ref` that leads out of the folder (an absolute path, `..`, a symbolic link) is an error.
  public final class OpenAPIDocument: Sendable {
    /// The file the document was read from.
    public let url: URL
    /// The `openapi` version it declares: `3.0.3`, `3.1.0`.
    public let version: String
    /// The name messages use for the file.
    let name: String
    let table: SchemaTable
    let operations: [Operation]
    /// The path of the first server's URL (`/v1`), which every request path starts with.
    let basePath: String
    let pathsLocation: DocumentLocation
    /// Every file the document was read from: its own first, then those its `$ref`s name (`doppel
    /// serve` watches them all).
    package let fileURLs: [URL]

    /// The id of each operation (or `METHOD /path` for one without), in document order.
    public var operationIDs: [String] { operations.map(\.name) }

    /// The names of every named example in the document's responses: the scenarios
    /// ``Doppel/Backend/addStubs(from:scenario:seed:)`` can select.
    public var exampleNames: [String] {
      var seen: [String] = []
      for operation in operations {
        for reply in operation.replies {
          for media in reply.content {
            for example in media.examples where !seen.contains(example.name) { seen.append(example.name) }
          }
        }
      }
      return seen
    }

    /// Reads and compiles the document at `url`.
    ///
    /// - Throws: ``OpenAPIError`` naming the file, the line and the fix, for a file that cannot be
    ///   read, malformed YAML or JSON, an unsupported version, a document OpenAPIKit refuses, or a
    ///   `$ref` that names nothing or a file outside the document's folder.
    public convenience init(contentsOf url: URL) throws(OpenAPIError) {
      try self.init(url: url, name: url.lastPathComponent)
    }

    /// Reads and compiles the document at `url`, naming it `name` in messages (`doppel lint`
    /// names it as typed).
    package init(url: URL, name: String) throws(OpenAPIError) {
      self.url = url
      self.name = name
      let files = try DocumentFiles(url: url, name: name)
      let root = files.main.root
      guard root.isObject else {
        throw OpenAPIError(
          file: name, line: root.line,
          "the document is not a mapping. An OpenAPI document starts with `openapi: 3.1.0`.")
      }
      guard let declared = root["openapi"] else {
        if root["swagger"] != nil {
          throw OpenAPIError(
            file: name, line: root.line(of: "swagger"),
            "Swagger 2.0 documents are not supported. Convert it to OpenAPI 3 (for example with swagger2openapi).")
        }
        throw OpenAPIError(
          file: name, line: root.line,
          "the document has no `openapi` version. Add `openapi: 3.1.0` (or 3.0.3) at the top.")
      }
      let version = declared.string ?? (declared.number.map { SchemaValidator.number($0) } ?? "")
      guard version.hasPrefix("3.0") || version.hasPrefix("3.1") else {
        throw OpenAPIError(
          file: name, line: root.line(of: "openapi"),
          "OpenAPI \(version.isEmpty ? "of this kind" : version) is not supported; Doppel reads 3.0.x and 3.1.x. Declare `openapi: 3.1.0` or `3.0.3` (in quotes in YAML)."
        )
      }
      self.version = version
      try Self.checkStructure(root: root, file: files.main, version: version)
      let compiler = SchemaCompiler(files: files)
      let paths = root["paths"] ?? DocumentNode(value: .object([]), line: root.line)
      pathsLocation = DocumentLocation(file: name, line: root.line(of: "paths"), path: "paths")
      basePath = Self.basePath(root)
      operations = try Self.operations(paths: paths, file: files.main, compiler: compiler, base: pathsLocation)
      table = SchemaTable(schemas: compiler.schemas)
      let main = url.standardizedFileURL.path
      fileURLs = [url] + files.files.keys.filter { $0 != main }.sorted().map { URL(fileURLWithPath: $0) }
    }

    // MARK: Structure

    /// Lets OpenAPIKit decode the document, and turns what it refuses into an error at the line
    /// of the key it names.
    private static func checkStructure(root: DocumentNode, file: DocumentFiles.File, version: String)
      throws(OpenAPIError)
    {
      let data: Data
      do {
        data = try JSONEncoder().encode(root.json)
      } catch {
        return
      }
      do {
        if version.hasPrefix("3.0") {
          _ = try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: data)
        } else {
          _ = try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: data)
        }
      } catch {
        let described = OpenAPIKit.OpenAPI.Error(from: error)
        let keys = described.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
        var node = root
        var line = root.line
        for key in keys {
          guard
            let next = node[key]
              ?? Int(key).flatMap({ index in node.items.flatMap { $0.indices.contains(index) ? $0[index] : nil } })
          else { break }
          line = node.line(of: key) == node.line ? next.line : node.line(of: key)
          node = next
        }
        let path = keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        throw OpenAPIError(
          file: file.name, line: line,
          "the document is not valid OpenAPI \(version)\(path): \(described.localizedDescription) Fix that part of the document."
        )
      }
    }

    private static func basePath(_ root: DocumentNode) -> String {
      guard let server = root["servers"]?.items?.first?["url"]?.string else { return "" }
      let path: String
      if let components = URLComponents(string: server), components.host != nil {
        path = components.path
      } else if server.hasPrefix("/") {
        path = server
      } else {
        path = ""
      }
      return path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    // MARK: Operations

    private static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    private static func operations(
      paths: DocumentNode, file: DocumentFiles.File, compiler: SchemaCompiler, base: DocumentLocation
    ) throws(OpenAPIError) -> [Operation] {
      var result: [Operation] = []
      for entry in paths.members {
        guard entry.key.hasPrefix("/") else {
          throw OpenAPIError(
            file: file.name, line: entry.line,
            "the path \"\(entry.key)\" does not start with \"/\". Write it as \"/\(entry.key)\".")
        }
        let pathLocation = base.appending(entry.key, line: entry.line)
        let item = try compiler.files.dereference(entry.value, in: file, at: pathLocation)
        let shared = try parameters(item.node["parameters"], item.file, compiler, item.location.appending("parameters"))
        for member in item.node.members where methods.contains(member.key) {
          let location = item.location.appending(member.key, line: member.line)
          let node = member.value
          var own = try parameters(node["parameters"], item.file, compiler, location.appending("parameters"))
          for parameter in shared
          where !own.contains(where: { $0.name == parameter.name && $0.place == parameter.place }) {
            own.append(parameter)
          }
          var body: Operation.Body?
          if let bodyNode = node["requestBody"] {
            let target = try compiler.files.dereference(
              bodyNode, in: item.file, at: location.appending("requestBody", line: node.line(of: "requestBody")))
            body = Operation.Body(
              required: target.node["required"]?.bool ?? false,
              content: try content(target.node["content"], target.file, compiler, target.location.appending("content")),
              location: target.location)
          }
          var replies: [Operation.Reply] = []
          let responses = location.appending("responses", line: node.line(of: "responses"))
          for response in node["responses"]?.members ?? [] {
            let target = try compiler.files.dereference(
              response.value, in: item.file, at: responses.appending(response.key, line: response.line))
            var headers: [Operation.Header] = []
            for header in target.node["headers"]?.members ?? [] {
              let headerTarget = try compiler.files.dereference(
                header.value, in: target.file,
                at: target.location.appending("headers").appending(header.key, line: header.line))
              let schema = try headerTarget.node["schema"].map { schemaNode throws(OpenAPIError) in
                try compiler.compile(
                  schemaNode, in: headerTarget.file,
                  at: headerTarget.location.appending("schema", line: schemaNode.line))
              }
              headers.append(
                Operation.Header(
                  name: header.key, required: headerTarget.node["required"]?.bool ?? false, schema: schema,
                  example: headerTarget.node["example"]?.json, location: headerTarget.location))
            }
            replies.append(
              Operation.Reply(
                status: response.key, headers: headers,
                content: try content(
                  target.node["content"], target.file, compiler, target.location.appending("content")),
                location: target.location))
          }
          let template = entry.key
          result.append(
            Operation(
              id: node["operationId"]?.string, method: HTTPMethod(rawValue: member.key), template: template,
              segments: Operation.segments(of: template), parameters: own, body: body, replies: replies,
              location: location, responsesLocation: responses, pathLocation: pathLocation))
        }
      }
      return result
    }

    private static func parameters(
      _ node: DocumentNode?, _ file: DocumentFiles.File, _ compiler: SchemaCompiler, _ base: DocumentLocation
    ) throws(OpenAPIError) -> [Operation.Parameter] {
      var result: [Operation.Parameter] = []
      for (offset, item) in (node?.items ?? []).enumerated() {
        let target = try compiler.files.dereference(item, in: file, at: base.appending("\(offset)", line: item.line))
        guard let name = target.node["name"]?.string, let place = target.node["in"]?.string else {
          throw OpenAPIError(
            file: target.file.name, line: target.node.line,
            "a parameter needs both `name` and `in` (path, query, header or cookie). Add the missing one.")
        }
        let schema = try target.node["schema"].map { schemaNode throws(OpenAPIError) in
          try compiler.compile(
            schemaNode, in: target.file, at: target.location.appending("schema", line: schemaNode.line))
        }
        result.append(
          Operation.Parameter(
            place: place, name: name, required: place == "path" || (target.node["required"]?.bool ?? false),
            schema: schema, location: target.location))
      }
      return result
    }

    private static func content(
      _ node: DocumentNode?, _ file: DocumentFiles.File, _ compiler: SchemaCompiler, _ base: DocumentLocation
    ) throws(OpenAPIError) -> [Operation.MediaType] {
      var result: [Operation.MediaType] = []
      for member in node?.members ?? [] {
        let location = base.appending(member.key, line: member.line)
        let schema = try member.value["schema"].map { schemaNode throws(OpenAPIError) in
          try compiler.compile(schemaNode, in: file, at: location.appending("schema", line: schemaNode.line))
        }
        var examples: [(name: String, value: JSONValue)] = []
        for example in member.value["examples"]?.members ?? [] {
          let target = try compiler.files.dereference(
            example.value, in: file, at: location.appending("examples").appending(example.key, line: example.line))
          if let value = target.node["value"] { examples.append((example.key, value.json)) }
        }
        result.append(
          Operation.MediaType(
            type: member.key, schema: schema, example: member.value["example"]?.json, examples: examples,
            location: location))
      }
      return result
    }

    // MARK: Lookup

    /// What a request's method and path mean for the document.
    enum Lookup {
      case found(Operation, parameters: [String: String])
      /// The path is documented, but not for this method; the methods it has.
      case wrongMethod(template: String, methods: [String], location: DocumentLocation)
      case unknownPath
    }

    func lookup(method: HTTPMethod, path: String) -> Lookup {
      guard let segments = segments(of: path) else { return .unknownPath }
      var best: (Operation, [String: String])?
      var methods: [String] = []
      var other: Operation?
      for operation in operations {
        guard let captures = operation.match(segments) else { continue }
        if operation.method == method {
          if let current = best, current.0.literalCount >= operation.literalCount { continue }
          best = (operation, captures)
        } else {
          other = other ?? operation
          methods.append(operation.method.rawValue)
        }
      }
      if let best { return .found(best.0, parameters: best.1) }
      if let other { return .wrongMethod(template: other.template, methods: methods, location: other.pathLocation) }
      return .unknownPath
    }

    /// The segments of `path` below the server's base path, or `nil` when it is not below it.
    func segments(of path: String) -> [Substring]? {
      if Self.isPlain(path) && Self.isPlain(basePath) { return plainSegments(of: path) }
      var relative = Substring(path)
      if !basePath.isEmpty {
        guard relative.hasPrefix(basePath) else { return nil }
        relative = relative.dropFirst(basePath.count)
        if relative.isEmpty { relative = "/" }
      }
      return Array(relative.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }

    /// Whether `text` is printable ASCII, where each byte is a character of its own.
    private static func isPlain(_ text: String) -> Bool {
      text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 }
    }

    /// ``segments(of:)`` read byte by byte, for a path and base path that are ``isPlain(_:)``.
    private func plainSegments(of path: String) -> [Substring]? {
      let utf8 = path.utf8
      var start = utf8.startIndex
      if !basePath.isEmpty {
        guard utf8.starts(with: basePath.utf8) else { return nil }
        start = utf8.index(start, offsetBy: basePath.utf8.count)
        if start == utf8.endIndex { return [""] }
      }
      // What `split(separator: "/", omittingEmptySubsequences: false).dropFirst()` gives.
      var segments: [Substring] = []
      var segmentStart = start
      var first = true
      var index = start
      while index != utf8.endIndex {
        if utf8[index] == UInt8(ascii: "/") {
          if !first { segments.append(path[segmentStart..<index]) }
          first = false
          segmentStart = utf8.index(after: index)
        }
        index = utf8.index(after: index)
      }
      if !first { segments.append(path[segmentStart..<index]) }
      return segments
    }
  }
#endif
