#if OpenAPI
  import Doppel
  import Foundation

  /// A schema compiled once from the document: its keywords, with where each was written.
  /// Sub-schemas are indices into the ``SchemaTable``, so recursive schemas cost nothing extra.
  ///
  /// A class, so that checking a value passes one reference around instead of copying forty
  /// fields (with their reference counts) for every value checked. Its keywords are read as
  /// `schema.types`, `schema.required` and so on, from the ``Fields`` the compiler filled in.
  @dynamicMemberLookup
  final class Schema: Sendable {
    let fields: Fields
    /// The types the schema allows, one bit each (``typeBit(_:)``, ``integerBit``); `nil` when
    /// it names none.
    let typeMask: UInt8?
    /// Whether every property name is ASCII, so that keys can be matched by their bytes.
    let propertyNamesAreASCII: Bool
    /// The `format`, when the checker knows it.
    let knownFormat: Formats.Known?
    /// Whether the schema has `enum` or `const`.
    let hasEnumOrConst: Bool
    /// Whether the schema has `allOf`, `anyOf`, `oneOf` or `not`.
    let hasComposition: Bool

    /// For each property, whether the schema its `$ref` chain ends at is readOnly
    /// (``readOnlyBit``) or writeOnly (``writeOnlyBit``).
    let propertyAccess: [UInt8]
    static let readOnlyBit: UInt8 = 1
    static let writeOnlyBit: UInt8 = 2

    init(_ fields: Fields, propertyAccess: [UInt8]) {
      self.fields = fields
      self.propertyAccess = propertyAccess
      typeMask = fields.types.map { types in
        types.reduce(0) { mask, type in
          switch type {
          case "null": mask | Self.typeBit(.null)
          case "boolean": mask | Self.typeBit(.bool)
          case "number": mask | Self.typeBit(.number)
          case "string": mask | Self.typeBit(.string)
          case "array": mask | Self.typeBit(.array)
          case "object": mask | Self.typeBit(.object)
          case "integer": mask | Self.integerBit
          default: mask
          }
        }
      }
      propertyNamesAreASCII = fields.properties.allSatisfy { $0.name.utf8.allSatisfy { $0 < 0x80 } }
      knownFormat = fields.format.flatMap(Formats.Known.init)
      hasEnumOrConst = fields.enumValues != nil || fields.constValue != nil
      hasComposition = !fields.allOf.isEmpty || !fields.anyOf.isEmpty || !fields.oneOf.isEmpty || fields.not != nil
    }

    /// The bit of ``typeMask`` for values of `kind`.
    static func typeBit(_ kind: JSONTape.Kind) -> UInt8 { 1 << kind.rawValue }
    /// The bit of ``typeMask`` for `integer` (numbers that are whole).
    static let integerBit: UInt8 = 1 << 7

    subscript<Value>(dynamicMember keyPath: KeyPath<Fields, Value>) -> Value { fields[keyPath: keyPath] }

    /// Where `keyword` is written in this schema.
    func at(_ keyword: String) -> DocumentLocation {
      fields.location.appending(keyword, line: fields.lines[keyword] ?? fields.location.line)
    }

    /// How messages name the schema: `Breed`, or its key path.
    var displayName: String { fields.name ?? fields.location.path }

    enum Additional: Sendable {
      case any
      case forbidden
      case schema(Int)
    }

    struct Property: Sendable {
      let name: String
      let schema: Int
      /// What the property adds to a JSON path (`.name`, or `["odd name"]`), made once so that
      /// checking a value builds no text for properties that pass.
      let pathSuffix: String
      /// The hash of the name's UTF-8, as a body's keys get it (``JSONTape/hash(_:)``).
      let nameHash: UInt64
      /// The name's UTF-8, compared with a key's bytes when the hashes agree.
      let nameUTF8: [UInt8]

      init(name: String, schema: Int) {
        self.name = name
        self.schema = schema
        pathSuffix = SchemaValidator.append(name, to: "")
        nameHash = JSONTape.hash(name)
        nameUTF8 = Array(name.utf8)
      }
    }

    struct Discriminator: Sendable {
      let property: String
      /// Value → schema, from `mapping` and the names of the `oneOf`/`anyOf` schemas.
      let mapping: [(value: String, schema: Int)]
    }

    /// The keywords of a schema, as the compiler fills them in.
    struct Fields: Sendable {
      var location: DocumentLocation
      /// The line of each keyword written.
      var lines: [String: Int] = [:]
      /// The component name (`Breed`), for messages and implicit discriminator mapping.
      var name: String?
      var reference: Int?
      var types: [String]?
      var nullable = false
      var enumValues: [JSONValue]?
      var constValue: JSONValue?
      var format: String?
      var minimum: Double?
      var maximum: Double?
      var exclusiveMinimum: Double?
      var exclusiveMaximum: Double?
      var multipleOf: Double?
      var minLength: Int?
      var maxLength: Int?
      var pattern: Pattern?
      var items: Int?
      var minItems: Int?
      var maxItems: Int?
      var uniqueItems = false
      var properties: [Property] = []
      var required: [String] = []
      /// For each name in `required`, its index in `properties`, when it is one of them.
      var requiredPropertyIndices: [Int?] = []
      var additional = Additional.any
      var minProperties: Int?
      var maxProperties: Int?
      var allOf: [Int] = []
      var anyOf: [Int] = []
      var oneOf: [Int] = []
      var not: Int?
      var discriminator: Discriminator?
      var readOnly = false
      var writeOnly = false
      var example: JSONValue?
      var defaultValue: JSONValue?

      init(location: DocumentLocation) { self.location = location }
    }
  }

  /// Every schema of a document, compiled once.
  struct SchemaTable: Sendable {
    let schemas: [Schema]

    init(schemas: [Schema.Fields]) {
      self.schemas = schemas.map { fields in
        Schema(
          fields,
          propertyAccess: fields.properties.map { property in
            let target = Self.end(of: property.schema, in: schemas, reference: { $0.reference })
            return (target.readOnly ? Schema.readOnlyBit : 0) | (target.writeOnly ? Schema.writeOnlyBit : 0)
          })
      }
    }

    subscript(index: Int) -> Schema { schemas[index] }

    /// The schema a `$ref` chain from `index` ends at.
    func resolved(_ index: Int) -> Schema { Self.end(of: index, in: schemas, reference: { $0.reference }) }

    /// Where a `$ref` chain from `index` ends among `schemas` (compiled or not), following at most
    /// 64 references.
    private static func end<Element>(
      of index: Int, in schemas: [Element], reference: (Element) -> Int?
    ) -> Element {
      var schema = schemas[index]
      var hops = 0
      while let next = reference(schema), hops < 64 {
        schema = schemas[next]
        hops += 1
      }
      return schema
    }
  }

  /// Compiles schemas from document nodes into a ``SchemaTable``.
  final class SchemaCompiler {
    private(set) var schemas: [Schema.Fields] = []
    private var compiled: [String: Int] = [:]
    let files: DocumentFiles
    let deviations: Deviations
    /// Whether the document is OpenAPI 3.0, where the keys beside a `$ref` are ignored.
    let isVersion30: Bool

    init(files: DocumentFiles, deviations: Deviations = Deviations(), isVersion30: Bool = false) {
      self.files = files
      self.deviations = deviations
      self.isVersion30 = isVersion30
    }

    /// `node`'s value, or for `{$ref: …}` (where the standard allows none, as in an example) the
    /// value it names (an Example Object's `value`), noted as a deviation.
    func literal(_ node: DocumentNode, in file: DocumentFiles.File, key: String) -> JSONValue {
      guard let reference = node["$ref"]?.string, node.members.count == 1,
        let target = try? files.resolve(reference, from: file, line: node.line(of: "$ref"), keyPath: key)
      else { return node.json }
      deviations.note(
        "example-ref", file: file.name, line: node.line,
        "the \(key) is {$ref: \"\(reference)\"}; an example is a literal value in OpenAPI, so other tools serve it as written. Doppel serves what it names; write the value in place, or use a named example under `examples` (whose entries may be $refs)."
      )
      return (target.node["value"] ?? target.node).json
    }

    /// Compiles the schema at `node` (following its `$ref`), once per place in the document.
    func compile(_ node: DocumentNode, in file: DocumentFiles.File, at location: DocumentLocation) throws(OpenAPIError)
      -> Int
    {
      let key = "\(file.url.path)#\(location.path)"
      if let index = compiled[key] { return index }
      let index = schemas.count
      compiled[key] = index
      var schema = Schema.Fields(location: location)
      let parts = location.path.split(separator: ".")
      if parts.count == 3, parts[0] == "components", parts[1] == "schemas" { schema.name = String(parts[2]) }
      if parts.count == 1, file.name != files.main.name { schema.name = String(parts[0]) }
      // A placeholder with the name, for references back to this schema while it compiles.
      schemas.append(schema)
      if case .bool(let flag) = node.value {
        // JSON Schema's `true` (anything) and `false` (nothing).
        if !flag {
          schema.not = try compile(
            DocumentNode(value: .object([]), line: node.line), in: file, at: location.appending("false"))
        }
        schemas[index] = schema
        return index
      }
      guard node.isObject else {
        throw OpenAPIError(
          file: file.name, line: node.line,
          "\(location.path) is not a schema object. Write it as a mapping, such as {type: string}.")
      }
      for member in node.members { schema.lines[member.key] = member.line }
      if let reference = node["$ref"]?.string {
        let target = try files.resolve(
          reference, from: file, line: node.line(of: "$ref"), keyPath: location.appending("$ref").path)
        schema.reference = try compile(target.node, in: target.file, at: target.location)
        let siblings = node.members.map(\.key).filter { !Self.annotations.contains($0) && $0 != "$ref" }
        if isVersion30, !siblings.isEmpty {
          deviations.note(
            "ref-siblings", file: file.name, line: node.line(of: "$ref"),
            "\(siblings.map { "`\($0)`" }.joined(separator: ", ")) beside a $ref: OpenAPI 3.0 ignores every key beside a $ref, so other tools will not apply it. Doppel applies both; write `allOf: [{$ref: …}, {\(siblings[0]): …}]` to say the same in 3.0."
          )
        }
      }
      try readKeywords(node, into: &schema, file: file, location: location)
      schemas[index] = schema
      return index
    }

    private func sub(_ node: DocumentNode, _ key: String, _ file: DocumentFiles.File, _ location: DocumentLocation)
      throws(OpenAPIError) -> Int?
    {
      guard let child = node[key] else { return nil }
      return try compile(child, in: file, at: location.appending(key, line: child.line))
    }

    private func list(_ node: DocumentNode, _ key: String, _ file: DocumentFiles.File, _ location: DocumentLocation)
      throws(OpenAPIError) -> [Int]
    {
      guard let items = node[key]?.items else { return [] }
      var result: [Int] = []
      for (offset, item) in items.enumerated() {
        result.append(try compile(item, in: file, at: location.appending(key).appending("\(offset)", line: item.line)))
      }
      return result
    }

    private func count(_ node: DocumentNode, _ key: String, _ file: DocumentFiles.File) throws(OpenAPIError) -> Int? {
      guard let value = node[key] else { return nil }
      guard let number = value.number, let count = Int(exactly: number), count >= 0 else {
        throw OpenAPIError(
          file: file.name, line: value.line,
          "\(key) must be a whole number of 0 or more. Write it as, for example, \(key): 1.")
      }
      return count
    }

    /// A numeric bound (`minimum`, `multipleOf`…): YAML can write `.nan` and `.inf`, which bound
    /// nothing and which no example could be made for.
    private func bound(_ node: DocumentNode, _ key: String, _ file: DocumentFiles.File) throws(OpenAPIError) -> Double?
    {
      guard let value = node[key], case .number(let number, _) = value.value else { return nil }
      guard number.isFinite else {
        throw OpenAPIError(
          file: file.name, line: value.line,
          "\(key) must be a finite number, not \(number). Write it as, for example, \(key): 1.")
      }
      return number
    }

    private func readKeywords(
      _ node: DocumentNode, into schema: inout Schema.Fields, file: DocumentFiles.File, location: DocumentLocation
    ) throws(OpenAPIError) {
      if let type = node["type"] {
        if let name = type.string {
          schema.types = [name]
        } else if let items = type.items {
          schema.types = items.compactMap(\.string)
        }
        for name in schema.types ?? [] where !Self.typeNames.contains(name) {
          throw OpenAPIError(
            file: file.name, line: type.line,
            "\"\(name)\" is not a JSON Schema type. Use one of \(Self.typeNames.sorted().joined(separator: ", ")).")
        }
      }
      schema.nullable = node["nullable"]?.bool ?? false
      if schema.nullable, schema.types != nil { schema.types?.append("null") }
      schema.enumValues = node["enum"]?.items?.map(\.json)
      schema.constValue = node["const"]?.json
      schema.format = node["format"]?.string
      schema.minimum = try bound(node, "minimum", file)
      schema.maximum = try bound(node, "maximum", file)
      switch node["exclusiveMinimum"]?.value {
      case .bool(true)?: (schema.exclusiveMinimum, schema.minimum) = (schema.minimum, nil)
      case .number?: schema.exclusiveMinimum = try bound(node, "exclusiveMinimum", file)
      default: break
      }
      switch node["exclusiveMaximum"]?.value {
      case .bool(true)?: (schema.exclusiveMaximum, schema.maximum) = (schema.maximum, nil)
      case .number?: schema.exclusiveMaximum = try bound(node, "exclusiveMaximum", file)
      default: break
      }
      schema.multipleOf = try bound(node, "multipleOf", file).flatMap { $0 > 0 ? $0 : nil }
      schema.minLength = try count(node, "minLength", file)
      schema.maxLength = try count(node, "maxLength", file)
      schema.minItems = try count(node, "minItems", file)
      schema.maxItems = try count(node, "maxItems", file)
      schema.minProperties = try count(node, "minProperties", file)
      schema.maxProperties = try count(node, "maxProperties", file)
      schema.uniqueItems = node["uniqueItems"]?.bool ?? false
      if let pattern = node["pattern"] {
        guard let source = pattern.string, let expression = try? NSRegularExpression(pattern: source) else {
          throw OpenAPIError(
            file: file.name, line: pattern.line,
            "the pattern is not a valid regular expression. Fix it, or quote it so YAML keeps its backslashes.")
        }
        schema.pattern = Pattern(source: source, expression: expression)
      }
      schema.items = try sub(node, "items", file, location)
      var properties: [Schema.Property] = []
      if var node = node["properties"] {
        var file = file
        var base = location.appending("properties", line: node.line)
        if node["$ref"]?.string != nil, node.members.count == 1 {
          // A deviation the structure check noted: the properties in a file of their own.
          let target = try files.dereference(node, in: file, at: base)
          (node, file, base) = (target.node, target.file, target.location)
        }
        for member in node.members {
          properties.append(
            Schema.Property(
              name: member.key,
              schema: try compile(member.value, in: file, at: base.appending(member.key, line: member.line))))
        }
      }
      schema.properties = properties
      schema.required = node["required"]?.items?.compactMap(\.string) ?? []
      schema.requiredPropertyIndices = schema.required.map { name in
        schema.properties.firstIndex { $0.name == name }
      }
      switch node["additionalProperties"]?.value {
      case .bool(false)?: schema.additional = .forbidden
      case .object?: schema.additional = .schema(try sub(node, "additionalProperties", file, location) ?? 0)
      default: schema.additional = .any
      }
      schema.allOf = try list(node, "allOf", file, location)
      schema.anyOf = try list(node, "anyOf", file, location)
      schema.oneOf = try list(node, "oneOf", file, location)
      schema.not = try sub(node, "not", file, location)
      schema.readOnly = node["readOnly"]?.bool ?? false
      schema.writeOnly = node["writeOnly"]?.bool ?? false
      schema.example =
        node["example"].map { literal($0, in: file, key: "example") } ?? node["examples"]?.items?.first?.json
      schema.defaultValue = node["default"].map { literal($0, in: file, key: "default") }
      if let discriminator = node["discriminator"] {
        guard let property = discriminator["propertyName"]?.string else {
          throw OpenAPIError(
            file: file.name, line: discriminator.line,
            "the discriminator has no propertyName. Add propertyName: with the property that names the schema.")
        }
        var mapping: [(value: String, schema: Int)] = []
        for member in discriminator["mapping"]?.members ?? [] {
          guard let reference = member.value.string else { continue }
          let ref =
            reference.hasPrefix("#") || reference.contains("/") ? reference : "#/components/schemas/\(reference)"
          let target = try files.resolve(
            ref, from: file, line: member.line,
            keyPath: location.appending("discriminator").appending("mapping").appending(member.key).path)
          mapping.append((member.key, try compile(target.node, in: target.file, at: target.location)))
        }
        // Without a mapping entry, a branch is named by what its own property allows (its
        // `const` or `enum`), and by its schema's name.
        for branch in schema.oneOf + schema.anyOf {
          let target = schemas[branch].reference ?? branch
          guard !mapping.contains(where: { $0.schema == target || $0.schema == branch }) else { continue }
          for value in tagValues(of: property, in: target) where !mapping.contains(where: { $0.value == value }) {
            mapping.append((value, branch))
          }
          if let name = schemas[target].name ?? schemas[branch].name, !mapping.contains(where: { $0.value == name }) {
            mapping.append((name, branch))
          }
        }
        schema.discriminator = Schema.Discriminator(property: property, mapping: mapping)
      }
    }

    /// The strings the property `name` of the schema `index` allows by its `const` or `enum`,
    /// looking through `$ref`s and `allOf` parts.
    private func tagValues(of name: String, in index: Int, depth: Int = 0) -> [String] {
      guard depth < 8, index < schemas.count else { return [] }
      let schema = schemas[index]
      if let property = schema.properties.first(where: { $0.name == name }) {
        var target = schemas[property.schema]
        var hops = 0
        while let next = target.reference, hops < 16, target.constValue == nil, target.enumValues == nil {
          target = schemas[next]
          hops += 1
        }
        if case .string(let value)? = target.constValue { return [value] }
        return target.enumValues?.compactMap { if case .string(let value) = $0 { value } else { nil } } ?? []
      }
      for part in (schema.reference.map { [$0] } ?? []) + schema.allOf {
        let found = tagValues(of: name, in: part, depth: depth + 1)
        if !found.isEmpty { return found }
      }
      return []
    }

    /// Keys beside a `$ref` that change nothing a value must be (3.0 documents have them often).
    static let annotations: Set<String> = ["description", "summary", "title", "example", "examples", "deprecated"]

    static let typeNames: Set<String> = ["string", "number", "integer", "boolean", "object", "array", "null"]
  }
#endif
