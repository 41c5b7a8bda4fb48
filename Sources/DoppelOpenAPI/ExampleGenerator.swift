#if OpenAPI
  import Doppel
  import Foundation

  /// Makes a value that conforms to a schema, the same one for the same seed: the schema's own
  /// `example` or `default` when it has one, else a value built from its keywords.
  struct ExampleGenerator {
    let table: SchemaTable
    var random: SeededRandom

    /// How many values one example may hold, how deep they may nest, and how many characters its
    /// strings may pad to reach their `minLength`. A schema can ask for more than any answer holds
    /// (a `minItems` or `minLength` in the billions, a property that requires itself); past these,
    /// the example is cut short (`null`, shorter strings) instead of exhausting the memory or the
    /// stack.
    static let maximumValues = 100_000
    static let maximumDepth = 32
    static let maximumPadding = 1 << 22

    /// The values this generator may still make (see ``maximumValues``).
    private var remaining = Self.maximumValues
    /// The characters its strings may still pad to (see ``maximumPadding``).
    private var padding = Self.maximumPadding

    init(table: SchemaTable, seed: UInt64) {
      self.table = table
      random = SeededRandom(seed: seed)
    }

    mutating func value(for index: Int, depth: Int = 0) -> JSONValue {
      remaining -= 1
      guard remaining >= 0, depth <= Self.maximumDepth else { return .null }
      let schema = table[index]
      if let reference = schema.reference, schema.types == nil, schema.properties.isEmpty, schema.allOf.isEmpty {
        return value(for: reference, depth: depth + 1)
      }
      let validator = SchemaValidator(table: table, direction: .response)
      for candidate in [schema.example, schema.defaultValue].compactMap({ $0 }) where validator.passes(candidate, index)
      {
        return candidate
      }
      if let constant = schema.constValue { return constant }
      if let allowed = schema.enumValues?.filter({ $0 != .null }), !allowed.isEmpty {
        return allowed[random.next(below: allowed.count)]
      }
      if !schema.allOf.isEmpty || schema.reference != nil {
        // Every part's object, merged; a part that is not an object wins outright.
        var merged: [String: JSONValue] = [:]
        for part in (schema.reference.map { [$0] } ?? []) + schema.allOf {
          guard case .object(let members) = value(for: part, depth: depth + 1) else { continue }
          merged.merge(members) { _, new in new }
        }
        if case .object(let own) = object(schema, depth: depth) { merged.merge(own) { _, new in new } }
        return .object(merged)
      }
      if let first = (schema.oneOf.isEmpty ? schema.anyOf : schema.oneOf).first {
        var generated = value(for: first, depth: depth + 1)
        if let discriminator = schema.discriminator, case .object(var members) = generated,
          let tag = discriminator.mapping.first(where: { $0.schema == first || $0.schema == table[first].reference })?
            .value
        {
          members[discriminator.property] = .string(tag)
          generated = .object(members)
        }
        return generated
      }
      let types = (schema.types ?? (schema.properties.isEmpty ? ["string"] : ["object"])).filter { $0 != "null" }
      switch types.first ?? "null" {
      case "object": return object(schema, depth: depth)
      case "array":
        let count = max(schema.minItems ?? 1, depth > 3 ? 0 : 1)
        let capped = max(min(count, schema.maxItems ?? count, remaining), 0)
        return .array(
          (0..<capped).map { _ in schema.items.map { value(for: $0, depth: depth + 1) } ?? .string("item") })
      case "integer": return .number(Double(integer(schema)))
      case "number": return .number(Double(integer(schema)) + (schema.multipleOf == nil ? 0.5 : 0))
      case "boolean": return .bool(random.next(below: 2) == 1)
      case "string": return .string(string(schema))
      default: return .null
      }
    }

    private mutating func object(_ schema: Schema, depth: Int) -> JSONValue {
      var members: [String: JSONValue] = [:]
      for property in schema.properties {
        let target = SchemaValidator(table: table, direction: .response).resolved(property.schema)
        if target.writeOnly { continue }
        // Past a few levels only required properties, so recursive schemas end.
        guard depth < 4 || schema.required.contains(property.name) else { continue }
        members[property.name] = value(for: property.schema, depth: depth + 1)
      }
      return .object(members)
    }

    private mutating func integer(_ schema: Schema) -> Int {
      let low =
        schema.minimum.map { Self.whole($0, .up) } ?? schema.exclusiveMinimum.map { Self.whole($0, .down) + 1 } ?? 1
      var high =
        schema.maximum.map { Self.whole($0, .down) }
        ?? schema.exclusiveMaximum.map { Self.whole($0, .up) - 1 } ?? max(low, 1) + 99
      high = max(high, low)
      var value = low + random.next(below: min(high - low, 1_000_000) + 1)
      if let step = schema.multipleOf, step >= 1, let whole = Int(exactly: step.rounded()), whole > 0 {
        value = (value / whole) * whole
        if value < low { value += whole }
      }
      return value
    }

    /// `bound` rounded to a whole number within ±10^15 (0 for NaN, which the document reader
    /// refuses before this is reached).
    private static func whole(_ bound: Double, _ rule: FloatingPointRoundingRule) -> Int {
      guard !bound.isNaN else { return 0 }
      return Int(max(min(bound, 1e15), -1e15).rounded(rule))
    }

    private mutating func string(_ schema: Schema) -> String {
      var text: String
      switch schema.format {
      case "date-time":
        text = "2024-0\(1 + random.next(below: 9))-1\(random.next(below: 9))T10:\(10 + random.next(below: 49)):00Z"
      case "date": text = "2024-0\(1 + random.next(below: 9))-1\(random.next(below: 9))"
      case "time": text = "10:\(10 + random.next(below: 49)):00Z"
      case "uuid":
        let hex = (0..<32).map { _ in String(random.next(below: 16), radix: 16) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
          String(
            hex[
              hex.index(
                hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        text = parts.joined(separator: "-")
      case "email": text = "user\(random.next(below: 1000))@example.com"
      case "uri", "url": text = "https://example.com/\(random.next(below: 1000))"
      case "ipv4": text = "192.0.2.\(1 + random.next(below: 250))"
      case "byte": text = Data("doppel".utf8).base64EncodedString()
      default:
        text = (schema.name ?? "string").lowercased() + "-\(random.next(below: 1000))"
      }
      if let minimum = schema.minLength, text.count < minimum {
        let added = min(minimum - text.count, padding)
        padding -= added
        text += String(repeating: "x", count: added)
      }
      if let maximum = schema.maxLength, text.count > maximum { text = String(text.prefix(maximum)) }
      if let pattern = schema.pattern, !pattern.matches(text) {
        // No general generator for regular expressions: a few common shapes, else the text as is.
        let candidates = [text.capitalized, text.uppercased(), "Doppel", "DOPPEL", "doppel", "12345", "A1", "a"]
        text =
          candidates.first { candidate in
            pattern.matches(candidate) && candidate.count >= (schema.minLength ?? 0)
              && candidate.count <= (schema.maxLength ?? Int.max)
          } ?? text
      }
      return text
    }
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
