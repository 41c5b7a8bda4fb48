#if GraphQL
  import Doppel
  import Foundation
  import GraphQL
  @_spi(DoppelInternals) import DoppelToolkit

  /// A GraphQL schema read from SDL (`schema.graphql`) or from the JSON answer of an introspection
  /// query, ready to serve mock data and to check operations and answers against.
  ///
  /// ```swift
  /// let schema = try GraphQLSchemaDocument(contentsOf: URL(fileURLWithPath: "schema.graphql"))
  /// ```
  ///
  /// Reading one is the slow part; make it once and pass it to as many backends as you like.
  public final class GraphQLSchemaDocument: Sendable {
    /// The name messages show: the file's name, or the name given with the SDL text.
    public let name: String
    /// The SDL the schema was built from (written from the JSON for an introspection result).
    public let sdl: String
    /// Whether the file held an introspection result (its SDL lines are then not the file's).
    public let isIntrospection: Bool
    /// What the schema gets wrong that it is served despite (a type, field, argument or enum
    /// value defined twice: the later definition is left out), each at its line and column.
    /// Reading the schema with `strict` refuses it instead.
    public let warnings: [GraphQLSchemaError]
    let schema: GraphQLSchema
    /// The schema's introspection, once an operation asked for it.
    let introspectionCache = Locked<SchemaIntrospection?>(nil)
    /// The SDL line of each type (`User`) and field (`User.name`).
    let lines: [String: Int]

    /// Reads the schema at `url`: SDL, or an introspection result (`{"data": {"__schema": …}}` or
    /// `{"__schema": …}`) when the file starts with `{`.
    ///
    /// - Parameters:
    ///   - url: the schema's file.
    ///   - strict: whether a deviation that is served with a warning otherwise (see
    ///     ``warnings``) is an error.
    /// - Throws: ``GraphQLSchemaError`` naming the file, line and column of what is wrong.
    public convenience init(contentsOf url: URL, strict: Bool = false) throws(GraphQLSchemaError) {
      let name = url.lastPathComponent
      let data = try WholeFile.read(url) {
        GraphQLSchemaError(
          file: name, line: 1, column: 1, "the GraphQL schema could not be read: \($0). Check the path.")
      }
      let bytes = [UInt8](data)
      if bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "{") {
        let sdl = try IntrospectionReader(bytes: bytes, file: name).sdl()
        try self.init(sdl: sdl, name: name, introspection: true, strict: strict)
      } else {
        guard let text = String(data: data, encoding: .utf8) else {
          throw GraphQLSchemaError(
            file: name, line: 1, column: 1, "the GraphQL schema is not UTF-8 text. Save it as UTF-8.")
        }
        try self.init(sdl: text, name: name, introspection: false, strict: strict)
      }
    }

    /// Builds the schema from SDL text.
    ///
    /// - Parameters:
    ///   - sdl: the schema in GraphQL's schema definition language.
    ///   - name: the name messages show for it.
    ///   - strict: whether a deviation that is served with a warning otherwise (see
    ///     ``warnings``) is an error.
    /// - Throws: ``GraphQLSchemaError`` naming the line and column of what is wrong.
    public convenience init(sdl: String, name: String = "schema.graphql", strict: Bool = false)
      throws(GraphQLSchemaError)
    {
      try self.init(sdl: sdl, name: name, introspection: false, strict: strict)
    }

    private init(sdl: String, name: String, introspection: Bool, strict: Bool) throws(GraphQLSchemaError) {
      self.name = name
      self.sdl = sdl
      self.isIntrospection = introspection
      var document: Document
      do {
        document = try parse(source: Source(body: sdl, name: name))
      } catch {
        throw GraphQLSchemaError(name, introspection: introspection, error, sdl: sdl)
      }
      let deviations = SchemaDeviations(sdl: sdl, document: document)
      let fix = introspection ? "Check the introspection result." : "Fix the SDL there."
      warnings = deviations.warnings.map {
        GraphQLSchemaError(file: name, line: $0.line, column: $0.column, $0.message)
      }
      if strict, let first = deviations.warnings.first {
        throw GraphQLSchemaError(
          file: name, line: first.line, column: first.column,
          first.message.replacingOccurrences(of: "; this definition is left out.", with: ".") + " " + fix)
      }
      do {
        if !deviations.warnings.isEmpty { document = try parse(source: Source(body: deviations.sdl, name: name)) }
        schema = try buildASTSchema(documentAST: document)
      } catch {
        throw GraphQLSchemaError(name, introspection: introspection, error, sdl: sdl, document: document)
      }
      let problems = validateSchema(schema: schema)
      if let first = problems.first {
        throw GraphQLSchemaError(name, introspection: introspection, first, sdl: sdl, document: document)
      }
      lines = Self.lines(of: document)
    }

    private static func lines(of document: Document) -> [String: Int] {
      var lines: [String: Int] = [:]
      func add(_ name: String, _ location: Location?) {
        if let location, lines[name] == nil { lines[name] = location.startToken.line }
      }
      for definition in document.definitions {
        guard let type = definition as? TypeDefinition else { continue }
        let name = type.name.value
        add(name, type.loc)
        let fields: [(String, Location?)]
        switch type {
        case let object as ObjectTypeDefinition: fields = object.fields.map { ($0.name.value, $0.loc) }
        case let interface as InterfaceTypeDefinition: fields = interface.fields.map { ($0.name.value, $0.loc) }
        case let input as InputObjectTypeDefinition: fields = input.fields.map { ($0.name.value, $0.loc) }
        case let enumeration as EnumTypeDefinition: fields = enumeration.values.map { ($0.name.value, $0.loc) }
        default: fields = []
        }
        for (field, location) in fields { add("\(name).\(field)", location) }
      }
      return lines
    }

    /// `schema.graphql:12 User.name` for the type or field `name` (`User`, `User.name`), when
    /// the SDL defines it in this file.
    func place(of name: String) -> String? {
      guard !isIntrospection, let line = lines[name] else { return nil }
      return "\(self.name):\(line) \(name)"
    }

    /// What the schema contradicts in one exchange, as `doppel lint --graphql` reports it for a
    /// cassette's entries: the operation `request` sends (an unknown field, argument or type, a
    /// variable of the wrong type) and, for a `2xx` answer, its JSON `body` against the
    /// operation's selection (a missing, extra or `null` field, a value of the wrong type).
    ///
    /// A request that is not a GraphQL request, or that names a persisted query by its hash
    /// alone, has none.
    public func violations(in request: Request, status: Int, body: Data) -> [GraphQLViolation] {
      GraphQLEndpoint(document: self, mocks: GraphQLMocks())
        .violations(request: request, answeredBy: false, status: status, body: body)
    }
  }

  extension DoppelError.Kind {
    /// A GraphQL schema, or an operation or answer checked against one.
    public static let graphQL = DoppelError.Kind("graphQL")
  }

  extension GraphQLSchemaError: DoppelErrorConvertible {
    /// The error as a `DoppelError` of kind `graphQL`: its description as the message, and its
    /// file, line and column as the location.
    package var doppelError: DoppelError {
      DoppelError(description, kind: .graphQL, location: location)
    }
  }

  /// A GraphQL schema that cannot be used: unreadable, malformed SDL or JSON, a type that is used
  /// but not defined. Its description names the file, the line, the column and the fix.
  public struct GraphQLSchemaError: LocalizedError, Sendable, CustomStringConvertible, Equatable {
    /// The file's name, or the name given with the SDL.
    public let file: String
    /// The line (from 1).
    public let line: Int
    /// The column (from 1).
    public let column: Int
    /// What is wrong and how to fix it.
    public let message: String

    init(file: String, line: Int, column: Int, _ message: String) {
      self.file = file
      self.line = line
      self.column = column
      self.message = message
    }

    /// The error GraphQL reported while parsing or building the schema, at its first location.
    /// GraphQL gives an unknown type no location; for SDL, it is placed where the name is first
    /// used.
    init(_ file: String, introspection: Bool, _ error: any Error, sdl: String? = nil, document: Document? = nil) {
      let graphQL = error as? GraphQLError
      var text = graphQL?.message ?? "\(error)"
      // A syntax error says `Syntax Error name (3:5) what`, then quotes the lines around it.
      text = String(text.split(separator: "\n", maxSplits: 1).first ?? "")
      if text.hasPrefix("Syntax Error "), let close = text.range(of: ") ") {
        text = "syntax error: " + text[close.upperBound...]
      }
      // GraphQLSwift writes a type it refuses as its syntax tree (`but got: NamedType(kind: …
      // value: "Input"))`): its name is what a reader needs.
      if let got = text.range(of: " but got: "), text[got.upperBound...].contains("(kind: "),
        let value = text.range(of: "value: \"", options: .backwards),
        let end = text[value.upperBound...].firstIndex(of: "\"")
      {
        text = String(text[..<got.upperBound] + text[value.upperBound..<end])
      }
      var location = graphQL?.locations.first.map { (line: $0.line, column: $0.column) }
      // GraphQL checks a schema's definitions without saying where: the definition it names,
      // else where the SDL first uses a name it quotes (an unknown type or directive).
      if location == nil, !introspection, let document {
        location = SchemaDeviations.place(named: text, in: document)
      }
      if location == nil, !introspection, let sdl {
        let quoted = text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
          .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        location = quoted.lazy.compactMap { Self.firstUse(of: $0, in: sdl) }.first
      }
      let fix = introspection ? "Check the introspection result." : "Fix the SDL there."
      self.init(
        file: file, line: location?.line ?? 1, column: location?.column ?? 1,
        "the GraphQL schema is invalid: \(text.hasSuffix(".") ? text : text + ".") \(fix)")
    }

    /// The line and column (from 1) of the first whole word `name` in `sdl` outside a comment.
    private static func firstUse(of name: String, in sdl: String) -> (line: Int, column: Int)? {
      func isNamePart(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character == "_" || (character.isASCII && (character.isLetter || character.isNumber))
      }
      for (index, line) in sdl.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let code = line.prefix { $0 != "#" }
        var searched = code.startIndex
        while let found = code[searched...].range(of: name) {
          let before = found.lowerBound == code.startIndex ? nil : code[code.index(before: found.lowerBound)]
          let after = found.upperBound == code.endIndex ? nil : code[found.upperBound]
          if !isNamePart(before) && !isNamePart(after) {
            return (index + 1, code.distance(from: code.startIndex, to: found.lowerBound) + 1)
          }
          searched = found.upperBound
        }
      }
      return nil
    }

    /// `schema.graphql:3:5: the GraphQL schema is invalid: syntax error: Expected Name, found "}". Fix the SDL there.`
    public var description: String { "\(file):\(line):\(column): \(message)" }

    /// The file, line and column as a `CodeLocation`, the shape `DoppelError.location` and
    /// `OpenAPIError.location` have too.
    public var location: CodeLocation { CodeLocation(fileID: file, filePath: file, line: line, column: column) }

    /// The ``description``, so that `localizedDescription` names the file, the line and the fix too.
    public var errorDescription: String? { description }
  }
#endif
