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
    /// The paths of the document's servers (`/v1`), each once, longest first: a request path
    /// starts with one of them (`""` when a server is at the host's root or none is declared).
    package let basePaths: [String]
    /// The operations in the order requests are routed to them: concrete paths before templated
    /// ones, then templates with more literal segments (and literals further left), whatever
    /// their order in the document; among equals, document order.
    let routing: [Operation]
    let pathsLocation: DocumentLocation
    /// What the document does that the OpenAPI standard does not allow but Doppel reads anyway
    /// (a 3.0-style `exclusiveMinimum: true` in 3.1, an integer bound beyond 64 bits, a `$ref`
    /// where the standard wants the object itself, a `$ref` inside an example…), one warning per
    /// kind at the first place it occurs. `doppel serve` prints them; `doppel serve --strict` and
    /// `doppel lint` refuse such a document.
    public let warnings: [OpenAPIWarning]
    /// The response examples that break their own schema (``exampleKey(_:_:_:_:)``): served only
    /// with `examples: .asIs`.
    let brokenExamples: Set<String>
    /// Every file the document was read from: its own first, then those its `$ref`s name (`doppel
    /// serve` watches them all).
    package let fileURLs: [URL]

    /// The id of each operation (or `METHOD /path` for one without), in document order.
    public var operationIDs: [String] { operations.map(\.name) }

    /// Each operation's path as the document writes it (`/pets/{petId}`), in document order.
    package var pathTemplates: [String] { operations.map(\.template) }

    /// The names of every named example in the document's responses: the scenarios
    /// ``Doppel/Backend/addStubs(from:scenario:seed:invalidRequests:examples:)`` can select.
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
      let deviations = Deviations()
      try Self.checkStructure(files: files, version: version, deviations: deviations)
      let compiler = SchemaCompiler(files: files, deviations: deviations, isVersion30: version.hasPrefix("3.0"))
      let paths = root["paths"] ?? DocumentNode(value: .object([]), line: root.line)
      pathsLocation = DocumentLocation(file: name, line: root.line(of: "paths"), path: "paths")
      basePaths = Self.basePaths(root)
      operations = try Self.operations(paths: paths, file: files.main, compiler: compiler, base: pathsLocation)
      routing = Self.routingOrder(operations)
      table = SchemaTable(schemas: compiler.schemas)
      brokenExamples = Self.brokenExamples(operations, table: table, deviations: deviations)
      warnings = deviations.warnings
      let main = url.standardizedFileURL.path
      fileURLs = [url] + files.files.keys.filter { $0 != main }.sorted().map { URL(fileURLWithPath: $0) }
    }

    // MARK: Structure

    /// Lets OpenAPIKit decode the document, and turns what it refuses into an error at the line
    /// of the key it names.
    private static func checkStructure(files: DocumentFiles, version: String, deviations: Deviations)
      throws(OpenAPIError)
    {
      let root = files.main.root
      let file = files.main
      if let whole = structureError(root, files: files, version: version, deviations: deviations) {
        // OpenAPIKit decodes paths and components in no fixed order, so that the error it
        // throws first would change from run to run: the one reported is the first in the
        // document's order.
        let error = firstStructureError(root, files: files, version: version) ?? whole
        let described = OpenAPIKit.OpenAPI.Error(from: error)
        let keys = described.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
        // The key path, followed into the files `$ref`s name (as the structure check read them).
        var node = root
        var current = file
        var line = root.line
        for key in keys {
          if node[key] == nil, let reference = node["$ref"]?.string,
            let target = try? files.resolve(reference, from: current, line: node.line, keyPath: "")
          {
            (node, current, line) = (target.node, target.file, target.node.line)
          }
          guard
            let next = node[key]
              ?? Int(key).flatMap({ index in node.items.flatMap { $0.indices.contains(index) ? $0[index] : nil } })
          else { break }
          line = node.line(of: key) == node.line ? next.line : node.line(of: key)
          node = next
        }
        let path = keys.isEmpty ? "" : " at \(keys.joined(separator: "."))"
        let relative = current.name == file.name ? current.name : files.relativePath(of: current)
        throw OpenAPIError(
          file: relative, line: line,
          "the document is not valid OpenAPI \(version)\(path): \(Self.plain(described.localizedDescription)). Fix that part of the document."
        )
      }
    }

    /// What OpenAPIKit refuses in `root` as a whole, or `nil` when it decodes.
    private static func structureError(
      _ root: DocumentNode, files: DocumentFiles, version: String, deviations: Deviations
    ) -> (any Error)? {
      var writer = StructureWriter(files: files, isVersion31: version.hasPrefix("3.1"), deviations: deviations)
      writer.write(root, in: files.main)
      let data = Data(writer.bytes)
      // Without vendor extensions: to find them, OpenAPIKit decodes the whole of every object and
      // schema again as untyped values, so a document took time that grew with its size times
      // its depth (Discord's description doubled took 2.7 times as long). Doppel reads no
      // extension, and a key the standard does not name is read as published documents have it.
      let decoder = JSONDecoder()
      do {
        if version.hasPrefix("3.0") {
          decoder.userInfo[OpenAPIKit30.VendorExtensionsConfiguration.enabledKey] = false
          _ = try decoder.decode(OpenAPIKit30.OpenAPI.Document.self, from: data)
        } else {
          decoder.userInfo[OpenAPIKit.VendorExtensionsConfiguration.enabledKey] = false
          _ = try decoder.decode(OpenAPIKit.OpenAPI.Document.self, from: data)
        }
        return nil
      } catch {
        return error
      }
    }

    /// The error of the first path (in document order) that OpenAPIKit refuses, else of the first
    /// component, else `nil`: found by decoding prefixes of the paths without the components but
    /// the security schemes (OpenAPIKit does not follow `$ref`s while decoding), then of the
    /// components without the paths, halving each time, so that a refused document costs a few
    /// decodes more.
    private static func firstStructureError(_ root: DocumentNode, files: DocumentFiles, version: String)
      -> (any Error)?
    {
      typealias Member = DocumentNode.Member
      func replacing(_ replacements: [String: DocumentNode]) -> DocumentNode {
        DocumentNode(
          value: .object(
            root.members.map { member in
              replacements[member.key].map { Member(key: member.key, line: member.line, value: $0) } ?? member
            }), line: root.line)
      }
      func object(_ members: some Collection<Member>, like node: DocumentNode) -> DocumentNode {
        DocumentNode(value: .object(Array(members)), line: node.line)
      }
      func error(_ node: DocumentNode) -> (any Error)? {
        structureError(node, files: files, version: version, deviations: Deviations())
      }
      /// The shortest prefix of `members` whose document `make` builds fails: its error.
      func firstFailing(_ members: [Member], _ make: (ArraySlice<Member>) -> DocumentNode) -> (any Error)? {
        guard !members.isEmpty, error(make(members[...])) != nil else { return nil }
        var (low, high) = (0, members.count)  // a prefix of `high` fails, of `low` does not
        while high - low > 1 {
          let middle = (low + high) / 2
          if error(make(members[..<middle])) != nil { high = middle } else { low = middle }
        }
        return error(make(members[(high - 1)..<high]))
      }
      let empty = DocumentNode(value: .object([]), line: root.line)
      // The security schemes stay: OpenAPIKit checks that each requirement names one.
      let schemes = (root["components"]?.members ?? []).filter { $0.key == "securitySchemes" }
      let onlySchemes = object(schemes, like: root["components"] ?? empty)
      if let paths = root["paths"],
        let found = firstFailing(
          paths.members, { replacing(["paths": object($0, like: paths), "components": onlySchemes]) })
      {
        return found
      }
      guard let components = root["components"] else { return nil }
      // Each component on its own, in document order, under its kind.
      let flattened = components.members.flatMap { kind in
        kind.value.members.map { Member(key: kind.key, line: kind.line, value: object([$0], like: kind.value)) }
      }
      return firstFailing(flattened) { chosen in
        // Back under one key per kind, in order.
        var kinds: [Member] = []
        for entry in chosen {
          if let last = kinds.last, last.key == entry.key {
            kinds[kinds.count - 1] = Member(
              key: last.key, line: last.line, value: object(last.value.members + entry.value.members, like: last.value))
          } else {
            kinds.append(entry)
          }
        }
        return replacing(["paths": empty, "components": object(kinds, like: components)])
      }
    }

    /// The response examples that break their schema, each noted as a deviation at its line.
    private static func brokenExamples(_ operations: [Operation], table: SchemaTable, deviations: Deviations)
      -> Set<String>
    {
      let validator = SchemaValidator(table: table, direction: .response, jsonSchemaOnly: true)
      var broken: Set<String> = []
      for operation in operations {
        for reply in operation.replies {
          for media in reply.content where media.isJSON {
            guard let schema = media.schema else { continue }
            let examples =
              (media.example.map { [(name: String?.none, value: $0)] } ?? [])
              + media.examples.map { (name: Optional($0.name), value: $0.value) }
            for example in examples {
              guard let failure = validator.validate(example.value, against: schema).first else { continue }
              broken.insert(exampleKey(operation, reply, media, example.name))
              deviations.note(
                "example-breaks-schema", file: media.location.file, line: media.location.line,
                "the \(example.name.map { "example \"\($0)\"" } ?? "example") of \(operation.name)'s \(reply.status) answer breaks its own schema (\(failure.path): \(failure.rule)), so clients that trust the schema cannot read it. Doppel serves a generated answer instead (`--examples as-is` serves it anyway); fix the example."
              )
            }
          }
        }
      }
      return broken
    }

    /// A parser's message as plain text: without markdown emphasis (`**GET**`), backticks kept,
    /// and without a final period (the caller's sentence follows).
    static func plain(_ message: String) -> String {
      var text = message.replacingOccurrences(of: "**", with: "")
      while let last = text.last, last == "." || last == " " || last == "\n" { text.removeLast() }
      return text
    }

    /// The path of each server's URL, with its variables replaced by their defaults: `/v1` for
    /// `https://api.example.com/v1`, `/ds-api` for `{scheme}://example.com/ds-api`, `/v2` for the
    /// relative `/v2` (or `v2`). Longest first, each once; `[""]` when there are none.
    static func basePaths(_ root: DocumentNode) -> [String] {
      var paths: [String] = []
      for server in root["servers"]?.items ?? [] {
        guard var url = server["url"]?.string else { continue }
        for variable in server["variables"]?.members ?? [] {
          let value = variable.value["default"]?.string ?? ""
          url = url.replacingOccurrences(of: "{\(variable.key)}", with: value)
        }
        var path: String
        if let range = url.range(of: "://") {
          let rest = url[range.upperBound...]
          path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? ""
        } else if url.hasPrefix("//") {
          let rest = url.dropFirst(2)
          path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? ""
        } else {
          path = url.hasPrefix("/") ? url : "/" + url
        }
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<end]) }
        // A variable left without a default stays a segment of its own: `{version}`.
        while path.hasSuffix("/") { path.removeLast() }
        if path == "." { path = "" }
        if !paths.contains(path) { paths.append(path) }
      }
      if paths.isEmpty { paths = [""] }
      return paths.sorted { $0.count > $1.count }
    }

    /// `operations` from the most specific path to the least (see ``routing``).
    static func routingOrder(_ operations: [Operation]) -> [Operation] {
      operations.enumerated().sorted { left, right in
        let order = Operation.specificity(left.element.segments, right.element.segments)
        return order == 0 ? left.offset < right.offset : order > 0
      }.map(\.element)
    }

    // MARK: Operations

    private static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    private static func operations(
      paths: DocumentNode, file: DocumentFiles.File, compiler: SchemaCompiler, base: DocumentLocation
    ) throws(OpenAPIError) -> [Operation] {
      let root = file.root
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
          // `get: {$ref: paths/list.yml}` (a deviation the structure check noted): the operation
          // in a file of its own.
          let operation = try compiler.files.dereference(
            member.value, in: item.file, at: item.location.appending(member.key, line: member.line))
          let location = operation.location
          let node = operation.node
          // The file the operation's own `$ref`s are relative to.
          let operationFile = operation.file
          var own = try parameters(node["parameters"], operationFile, compiler, location.appending("parameters"))
          for parameter in shared
          where !own.contains(where: { $0.name == parameter.name && $0.place == parameter.place }) {
            own.append(parameter)
          }
          var body: Operation.Body?
          if let bodyNode = node["requestBody"] {
            let target = try compiler.files.dereference(
              bodyNode, in: operationFile, at: location.appending("requestBody", line: node.line(of: "requestBody")))
            body = Operation.Body(
              required: target.node["required"]?.bool ?? false,
              content: try content(target.node["content"], target.file, compiler, target.location.appending("content")),
              location: target.location)
          }
          var replies: [Operation.Reply] = []
          let responses = location.appending("responses", line: node.line(of: "responses"))
          for response in node["responses"]?.members ?? [] {
            let target = try compiler.files.dereference(
              response.value, in: operationFile, at: responses.appending(response.key, line: response.line))
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
          var made = Operation(
            id: node["operationId"]?.string, method: HTTPMethod(rawValue: member.key), template: template,
            segments: Operation.segments(of: template), parameters: own, body: body, replies: replies,
            location: location, responsesLocation: responses, pathLocation: pathLocation)
          made.security = security(node["security"] ?? root["security"], compiler: compiler)
          result.append(made)
        }
      }
      return result
    }

    /// The alternatives a `security` list gives, with where each scheme's credential goes; an
    /// alternative with a scheme Doppel cannot check (mutual TLS, a scheme that is not declared)
    /// counts as met, so that nothing is refused for it.
    private static func security(_ node: DocumentNode?, compiler: SchemaCompiler) -> [[Operation.Credential]] {
      guard let alternatives = node?.items else { return [] }
      let root = compiler.files.main.root
      var result: [[Operation.Credential]] = []
      for alternative in alternatives {
        var credentials: [Operation.Credential] = []
        for requirement in alternative.members {
          guard let declared = root["components"]?["securitySchemes"]?[requirement.key],
            let scheme = try? compiler.files.dereference(
              declared, in: compiler.files.main, at: DocumentLocation(file: "", line: declared.line, path: ""))
          else { return [] }
          switch scheme.node["type"]?.string {
          case "apiKey":
            guard let place = scheme.node["in"]?.string, let name = scheme.node["name"]?.string else { return [] }
            credentials.append(Operation.Credential(scheme: requirement.key, place: place, name: name))
          case "http", "oauth2", "openIdConnect":
            credentials.append(Operation.Credential(scheme: requirement.key, place: "header", name: "Authorization"))
          default:
            return []
          }
        }
        // An empty alternative (`- {}`): the operation may be called without credentials.
        if credentials.isEmpty { return [] }
        result.append(credentials)
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
        let itemSchema = try member.value["itemSchema"].map { schemaNode throws(OpenAPIError) in
          try compiler.compile(schemaNode, in: file, at: location.appending("itemSchema", line: schemaNode.line))
        }
        var examples: [(name: String, value: JSONValue)] = []
        for example in member.value["examples"]?.members ?? [] {
          let target = try compiler.files.dereference(
            example.value, in: file, at: location.appending("examples").appending(example.key, line: example.line))
          if let value = target.node["value"] { examples.append((example.key, value.json)) }
        }
        result.append(
          Operation.MediaType(
            type: member.key, schema: schema,
            example: member.value["example"].map { compiler.literal($0, in: file, key: "example") }, examples: examples,
            location: location, itemSchema: itemSchema))
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
      var other: (Operation, [String])?
      for base in basePaths {
        guard let segments = segments(of: path, under: base) else { continue }
        // The first path that fits decides, as routing does: its operation for the method, else
        // the methods it has.
        var template: String?
        var methods: [String] = []
        var first: Operation?
        for operation in routing {
          if let template, operation.template != template { break }
          guard let captures = operation.match(segments) else { continue }
          if operation.method == method { return .found(operation, parameters: captures) }
          template = operation.template
          first = first ?? operation
          methods.append(operation.method.rawValue)
        }
        if let first, other == nil { other = (first, methods) }
      }
      if let (operation, methods) = other {
        return .wrongMethod(template: operation.template, methods: methods, location: operation.pathLocation)
      }
      return .unknownPath
    }

    /// The segments of `path` below the server path `base`, or `nil` when it is not below it.
    func segments(of path: String, under base: String) -> [Substring]? {
      if Self.isPlain(path) && Self.isPlain(base) { return Self.plainSegments(of: path, under: base) }
      var relative = Substring(path)
      if !base.isEmpty {
        guard relative.hasPrefix(base) else { return nil }
        relative = relative.dropFirst(base.count)
        if relative.isEmpty { relative = "/" }
        guard relative.hasPrefix("/") else { return nil }
      }
      return Array(relative.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }

    /// Whether `text` is printable ASCII, where each byte is a character of its own.
    private static func isPlain(_ text: String) -> Bool {
      text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 }
    }

    /// ``segments(of:under:)`` read byte by byte, for a path and base path that are
    /// ``isPlain(_:)``.
    private static func plainSegments(of path: String, under base: String) -> [Substring]? {
      let utf8 = path.utf8
      var start = utf8.startIndex
      if !base.isEmpty {
        guard utf8.starts(with: base.utf8) else { return nil }
        start = utf8.index(start, offsetBy: base.utf8.count)
        if start == utf8.endIndex { return [""] }
        guard utf8[start] == UInt8(ascii: "/") else { return nil }
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
