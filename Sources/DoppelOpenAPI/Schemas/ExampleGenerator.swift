#if OpenAPI
  import Doppel
  import Foundation

  /// Makes a value that conforms to a schema, the same one for the same seed: the schema's own
  /// `example` or `default` when it conforms, else a value built from its keywords, checked
  /// against the schema as JSON Schema reads it (a `oneOf` answer matches exactly one branch,
  /// whatever the discriminator) and made again with other draws when it does not conform.
  struct ExampleGenerator {
    let table: SchemaTable
    var random: SeededRandom
    private let validator: SchemaValidator

    /// How many values one example may hold, how deep they may nest, and how many characters its
    /// strings may pad to reach their `minLength`. A schema can ask for more than any answer holds
    /// (a `minItems` or `minLength` in the billions, a property that requires itself); past these,
    /// the example is cut short (`null`, shorter strings) instead of exhausting the memory or the
    /// stack.
    static let maximumValues = 100_000
    static let maximumDepth = 32
    static let maximumPadding = 1 << 22
    /// Below this depth only required properties are made, and arrays hold what `minItems` asks.
    static let optionalDepth = 4
    /// How many times a value that breaks its schema is made again with other draws.
    static let attempts = 6

    /// The values this generator may still make (see ``maximumValues``).
    private var remaining = Self.maximumValues
    /// The characters its strings may still pad to (see ``maximumPadding``).
    private var padding = Self.maximumPadding

    init(table: SchemaTable, seed: UInt64) {
      self.table = table
      random = SeededRandom(seed: seed)
      validator = SchemaValidator(table: table, direction: .response, jsonSchemaOnly: true)
    }

    /// Whether `value` conforms to the schema `index` as JSON Schema reads it.
    func conforms(_ value: JSONValue, to index: Int) -> Bool { validator.passes(value, index) }

    /// A value for the schema `index` that conforms to it when one can be made.
    mutating func value(for index: Int, depth: Int = 0, name: String? = nil) -> JSONValue {
      var first: JSONValue?
      // Made again only near the top and for scalars, so that retries cannot multiply down a
      // deep schema (each make is counted against ``maximumValues`` too).
      for _ in 0..<(depth <= 3 ? Self.attempts : 2) {
        let made = make(index, depth: depth, name: name)
        if conforms(made, to: index) { return made }
        first = first ?? made
        guard remaining > 0 else { break }
      }
      return first ?? .null
    }

    private mutating func make(_ index: Int, depth: Int, name: String?) -> JSONValue {
      remaining -= 1
      guard remaining >= 0, depth <= Self.maximumDepth else { return .null }
      let schema = table[index]
      if let reference = schema.reference, schema.types == nil, schema.properties.isEmpty, !schema.hasComposition,
        !schema.hasEnumOrConst
      {
        return make(reference, depth: depth + 1, name: name)
      }
      for candidate in [schema.example, schema.defaultValue].compactMap({ $0 }) where conforms(candidate, to: index) {
        return candidate
      }
      if let constant = schema.constValue { return constant }
      if let allowed = schema.enumValues?.filter({ $0 != .null }), !allowed.isEmpty {
        return allowed[random.next(below: allowed.count)]
      }
      if !schema.allOf.isEmpty || schema.reference != nil {
        return merged(index, depth: depth, name: name)
      }
      if !schema.oneOf.isEmpty || !schema.anyOf.isEmpty {
        return branch(index, depth: depth, name: name)
      }
      return plain(schema, index, depth: depth, name: name)
    }

    // MARK: Composition

    /// What the parts of an `allOf` (and a `$ref` with keywords beside it) say together about an
    /// object: every part's properties (the first schema written for each, then the others to
    /// check it against) and every part's `required`, through `$ref`s, nested `allOf`s and a
    /// chosen branch of each `oneOf`/`anyOf` part.
    private struct Merged {
      var order: [String] = []
      var properties: [String: [Int]] = [:]
      var required: Set<String> = []
      var isObject = false
      /// Parts that say nothing of objects (a `type: string` part), to make a value from.
      var others: [Int] = []
      var visited: Set<Int> = []
    }

    private mutating func collect(_ index: Int, into merged: inout Merged, depth: Int, own: Bool = false) {
      guard merged.visited.insert(index).inserted || own, merged.visited.count < 256 else { return }
      let schema = table[index]
      if let reference = schema.reference { collect(reference, into: &merged, depth: depth) }
      for part in schema.allOf { collect(part, into: &merged, depth: depth) }
      if !schema.oneOf.isEmpty || !schema.anyOf.isEmpty {
        // One branch, preferring one that is an object.
        let branches = schema.oneOf.isEmpty ? schema.anyOf : schema.oneOf
        let objects = branches.filter { Self.isObject(table.resolved($0), table) }
        let pool = objects.isEmpty ? branches : objects
        collect(pool[random.next(below: pool.count)], into: &merged, depth: depth)
      }
      if Self.isObject(schema, table) || !schema.properties.isEmpty || !schema.required.isEmpty {
        merged.isObject = merged.isObject || schema.types?.contains("object") == true || !schema.properties.isEmpty
        for property in schema.properties {
          if merged.properties[property.name] == nil { merged.order.append(property.name) }
          merged.properties[property.name, default: []].append(property.schema)
        }
        merged.required.formUnion(schema.required)
      } else if schema.types != nil || schema.hasEnumOrConst || schema.format != nil {
        merged.others.append(index)
      }
    }

    /// Whether values of `schema` are objects, looking through `$ref`s and `allOf` parts (at most
    /// 16 deep: a schema may name itself among its parts).
    private static func isObject(_ schema: Schema, _ table: SchemaTable, depth: Int = 0) -> Bool {
      guard depth < 16 else { return false }
      if schema.types?.contains("object") == true || !schema.properties.isEmpty { return true }
      guard schema.types == nil else { return false }
      if let reference = schema.reference, isObject(table.resolved(reference), table, depth: depth + 1) { return true }
      return schema.allOf.contains { isObject(table.resolved($0), table, depth: depth + 1) }
    }

    private mutating func merged(_ index: Int, depth: Int, name: String?) -> JSONValue {
      var merged = Merged()
      collect(index, into: &merged, depth: depth, own: true)
      guard merged.isObject || !merged.required.isEmpty else {
        // Not an object: a value of the first part that says what it is, checked against all.
        for part in merged.others {
          let made = make(part, depth: depth + 1, name: name)
          if conforms(made, to: index) { return made }
        }
        return merged.others.first.map { make($0, depth: depth + 1, name: name) } ?? .object([:])
      }
      var members: [String: JSONValue] = [:]
      for property in merged.order {
        guard let schemas = merged.properties[property], let first = schemas.first else { continue }
        let isRequired = merged.required.contains(property)
        if table.resolved(first).writeOnly && !isRequired { continue }
        guard isRequired || depth < Self.optionalDepth else { continue }
        var made = value(for: first, depth: depth + 1, name: property)
        for other in schemas.dropFirst() where !conforms(made, to: other) {
          made = value(for: other, depth: depth + 1, name: property)
        }
        members[property] = made
      }
      // A required name no part gives a schema for: any value will do.
      for property in merged.required where members[property] == nil && merged.properties[property] == nil {
        members[property] = .string(Self.word(for: property, random: &random))
      }
      return .object(members)
    }

    /// A value of one branch of a `oneOf` or `anyOf` that the whole schema takes: for `oneOf`, it
    /// must match that branch alone. The discriminator property names the branch, by the
    /// mapping, or the value the branch's own property allows (its `const` or `enum`).
    private mutating func branch(_ index: Int, depth: Int, name: String?) -> JSONValue {
      let schema = table[index]
      let branches = schema.oneOf.isEmpty ? schema.anyOf : schema.oneOf
      let discriminator = schema.discriminator
      var first: JSONValue?
      let start = random.next(below: branches.count)
      for offset in branches.indices {
        let chosen = branches[(start + offset) % branches.count]
        var made = make(chosen, depth: depth + 1, name: name)
        if let discriminator, case .object(var members) = made {
          let target = table[chosen].reference
          var tags = discriminator.mapping.filter { $0.schema == chosen || $0.schema == target }.map(\.value)
          if case .string(let own)? = members[discriminator.property] { tags.append(own) }
          for tag in tags {
            members[discriminator.property] = .string(tag)
            if conforms(.object(members), to: index) { return .object(members) }
          }
          if let tag = tags.first { members[discriminator.property] = .string(tag) }
          made = .object(members)
        }
        if conforms(made, to: index) { return made }
        first = first ?? made
      }
      return first ?? .null
    }

    // MARK: Values

    private mutating func plain(_ schema: Schema, _ index: Int, depth: Int, name: String?) -> JSONValue {
      let types =
        (schema.types
        ?? (schema.properties.isEmpty && schema.required.isEmpty ? [Self.impliedType(schema)] : ["object"]))
        .filter { $0 != "null" }
      guard let type = types.isEmpty ? nil : types[random.next(below: types.count)] else { return .null }
      switch type {
      case "object": return object(schema, depth: depth)
      case "array": return array(schema, depth: depth, name: name)
      case "integer": return .number(integer(schema, name: name))
      case "number": return .number(number(schema))
      case "boolean": return .bool(random.next(below: 2) == 1)
      case "string": return .string(string(schema, name: name))
      default: return .null
      }
    }

    /// The type a schema without `type` is about, from its other keywords.
    private static func impliedType(_ schema: Schema) -> String {
      if schema.items != nil || schema.minItems != nil || schema.maxItems != nil { return "array" }
      if schema.minimum != nil || schema.maximum != nil || schema.multipleOf != nil { return "number" }
      return "string"
    }

    private mutating func object(_ schema: Schema, depth: Int) -> JSONValue {
      var members: [String: JSONValue] = [:]
      for property in schema.properties {
        let isRequired = schema.required.contains(property.name)
        let target = table.resolved(property.schema)
        if target.writeOnly && !isRequired { continue }
        // Past a few levels only required properties, so recursive schemas end.
        guard isRequired || depth < Self.optionalDepth else { continue }
        members[property.name] = value(for: property.schema, depth: depth + 1, name: property.name)
      }
      for property in schema.required where members[property] == nil {
        if case .schema(let additional) = schema.additional {
          members[property] = value(for: additional, depth: depth + 1, name: property)
        } else {
          members[property] = .string(Self.word(for: property, random: &random))
        }
      }
      var extra = 0
      while members.count < (schema.minProperties ?? 0), extra < 1_000 {
        let key = "key\(extra)"
        extra += 1
        guard members[key] == nil else { continue }
        switch schema.additional {
        case .forbidden: extra = 1_000
        case .schema(let additional): members[key] = value(for: additional, depth: depth + 1, name: key)
        case .any: members[key] = .string("value\(extra)")
        }
      }
      return .object(members)
    }

    private mutating func array(_ schema: Schema, depth: Int, name: String?) -> JSONValue {
      let wanted = max(schema.minItems ?? 0, depth < Self.optionalDepth ? 1 : 0)
      let count = max(min(wanted, schema.maxItems ?? wanted, remaining), 0)
      var items: [JSONValue] = []
      var tries = 0
      while items.count < count, tries < count + 16 {
        tries += 1
        let item = schema.items.map { value(for: $0, depth: depth + 1, name: name) } ?? .string("item\(items.count)")
        if schema.uniqueItems, items.contains(item) { continue }
        items.append(item)
      }
      return .array(items)
    }

    private mutating func integer(_ schema: Schema, name: String?) -> Double {
      let largest = 9_223_372_036_854_775_807.0
      var low = schema.minimum.map { $0.rounded(.up) } ?? schema.exclusiveMinimum.map { $0.rounded(.down) + 1 }
      var high = schema.maximum.map { $0.rounded(.down) } ?? schema.exclusiveMaximum.map { $0.rounded(.up) - 1 }
      if let bound = schema.exclusiveMinimum, let current = low { low = max(current, bound.rounded(.down) + 1) }
      if let bound = schema.exclusiveMaximum, let current = high { high = min(current, bound.rounded(.up) - 1) }
      if schema.knownFormat == .int32 {
        low = max(low ?? -2_147_483_648, -2_147_483_648)
        high = min(high ?? 2_147_483_647, 2_147_483_647)
      }
      let floor = max(low ?? (high.map { min($0, 1) } ?? 1), -largest)
      let ceiling = min(high ?? (floor + 99), largest)
      guard ceiling >= floor else { return floor }
      // A small range from the floor (ids count up from 1), within the ceiling.
      let span = min(ceiling - floor, 1_000)
      var value = floor + Double(random.next(below: Int(span) + 1))
      if let step = schema.multipleOf, step > 0 {
        value = (value / step).rounded(.up) * step
        if value > ceiling { value = (ceiling / step).rounded(.down) * step }
      }
      return value
    }

    private mutating func number(_ schema: Schema) -> Double {
      let low = schema.minimum ?? schema.exclusiveMinimum
      let high = schema.maximum ?? schema.exclusiveMaximum
      if let step = schema.multipleOf, step > 0 {
        let start = ((low ?? step) / step).rounded(.up)
        var value = start * step
        if let exclusive = schema.exclusiveMinimum, value <= exclusive { value += step }
        return value
      }
      switch (low, high) {
      case (let low?, let high?): return low + (high - low) / 2
      case (let low?, nil): return low + 1.5
      case (nil, let high?): return high - 1.5
      case (nil, nil): return Double(1 + random.next(below: 99)) + 0.5
      }
    }

    private mutating func string(_ schema: Schema, name: String?) -> String {
      let minimum = schema.minLength ?? 0
      let maximum = schema.maxLength ?? Int.max
      func fits(_ text: String) -> Bool {
        let count = text.count
        return count >= minimum && count <= maximum && (schema.pattern?.matches(text) ?? true)
      }
      if let pattern = schema.pattern {
        if let generator = PatternGenerator(pattern.source) {
          for _ in 0..<8 {
            let text = generator.string { random.next(below: $0) }
            if fits(text) { return text }
          }
        }
        let base = formatted(schema, name: name)
        let candidates = [base, base.capitalized, base.uppercased(), "Doppel", "DOPPEL", "doppel", "12345", "A1", "a"]
        if let found = candidates.first(where: fits) { return found }
        return base
      }
      var text = formatted(schema, name: name)
      if text.count < minimum {
        let added = min(minimum - text.count, padding)
        padding -= added
        text += String(repeating: "x", count: added)
      }
      if text.count > maximum { text = String(text.prefix(maximum)) }
      return text
    }

    /// A string of the schema's format, else one that reads like what the property's name says
    /// (an email for `email`, a date-time for `created_at`, a URL for `avatar_url`).
    private mutating func formatted(_ schema: Schema, name: String?) -> String {
      let format = schema.format ?? Self.impliedFormat(name)
      switch format {
      case "date-time":
        return
          "2024-0\(1 + random.next(below: 9))-1\(random.next(below: 9))T1\(random.next(below: 10)):\(10 + random.next(below: 49)):\(10 + random.next(below: 49))Z"
      case "date": return "2024-0\(1 + random.next(below: 9))-1\(random.next(below: 9))"
      case "time": return "1\(random.next(below: 10)):\(10 + random.next(below: 49)):00Z"
      case "uuid":
        let hex = (0..<32).map { _ in String(random.next(below: 16), radix: 16) }
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { hex[$0].joined() }.joined(separator: "-")
      case "email", "idn-email":
        return
          "\(Self.firstNames[random.next(below: Self.firstNames.count)].lowercased())\(random.next(below: 100))@example.com"
      case "uri", "url", "iri": return "https://example.com/\(Self.word(for: name, random: &random))"
      case "uri-reference", "iri-reference": return "/\(Self.word(for: name, random: &random))"
      case "hostname", "idn-hostname": return "host\(random.next(below: 100)).example.com"
      case "ipv4": return "192.0.2.\(1 + random.next(below: 250))"
      case "ipv6": return "2001:db8::\(1 + random.next(below: 250))"
      case "byte": return Data("doppel".utf8).base64EncodedString()
      case "int64", "int32": return String(1 + random.next(below: 1000))
      case "password": return "correct-horse-battery"
      case "name":
        return
          "\(Self.firstNames[random.next(below: Self.firstNames.count)]) \(Self.lastNames[random.next(below: Self.lastNames.count)])"
      case "phone": return "+1 202 555 0\(100 + random.next(below: 899))"
      default: return Self.word(for: name ?? schema.name, random: &random)
      }
    }

    /// The format a property's name implies when its schema gives none.
    static func impliedFormat(_ name: String?) -> String? {
      guard let name = name?.lowercased() else { return nil }
      if name == "email" || name.hasSuffix("_email") || name.hasSuffix("email_address") { return "email" }
      if name.hasSuffix("_at") || name.hasSuffix("time") && !name.hasSuffix("timeout") { return "date-time" }
      if name == "url" || name.hasSuffix("_url") || name.hasSuffix("uri") || name == "href" { return "uri" }
      if name == "name" || name == "full_name" || name == "display_name" { return "name" }
      if name == "phone" || name.hasSuffix("_phone") || name == "phone_number" { return "phone" }
      return nil
    }

    /// A short lower-case word for a value of `name`: `breed-418`.
    static func word(for name: String?, random: inout SeededRandom) -> String {
      let base = (name ?? "value").lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
      return "\(base.isEmpty ? "value" : base)-\(random.next(below: 1000))"
    }

    static let firstNames = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Radia", "Linus"]
    static let lastNames = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson"]
  }

  /// The engine's seeded generator (SplitMix64), whose sequence depends on the seed alone, with
  /// what example generation draws from it.
  struct SeededRandom {
    private var mixer: SplitMix64

    init(seed: UInt64) { mixer = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { mixer.next() }

    /// A number in `0..<bound` (`bound` at least 1).
    mutating func next(below bound: Int) -> Int {
      guard bound > 1 else { return 0 }
      return Int(next() % UInt64(bound))
    }

    /// A stable 64-bit hash of `text` (FNV-1a), to derive a seed per operation.
    static func hash(_ text: String) -> UInt64 {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
      }
      return hash
    }
  }
#endif
