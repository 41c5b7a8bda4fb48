#if OpenAPI
  import Doppel
  import Foundation

  /// One way a value breaks a schema: where in the value, the rule, and where the rule is written.
  struct SchemaFailure: Sendable {
    /// `$.breeds[0].name`
    let path: String
    let rule: String
    let location: DocumentLocation
  }

  /// Checks values against compiled schemas.
  struct SchemaValidator {
    /// Whether the value is sent by the client (readOnly properties are refused) or by the
    /// server (writeOnly ones are).
    enum Direction {
      case request
      case response
    }

    let table: SchemaTable
    let direction: Direction

    /// Every failure of `value` against the schema `index`, in a stable order.
    func validate(_ value: JSONValue, against index: Int, path: String = "$") -> [SchemaFailure] {
      var failures: [SchemaFailure] = []
      check(value, index, path, &failures, depth: 0)
      return failures
    }

    /// Whether `value` passes the schema (no failure).
    func passes(_ value: JSONValue, _ index: Int) -> Bool {
      var failures: [SchemaFailure] = []
      check(value, index, "$", &failures, depth: 0)
      return failures.isEmpty
    }

    private func check(_ value: JSONValue, _ index: Int, _ path: String, _ failures: inout [SchemaFailure], depth: Int)
    {
      // A value nested this deep in a recursive schema is left alone rather than risk the stack.
      guard depth < 128 else { return }
      let schema = table[index]
      if let reference = schema.reference { check(value, reference, path, &failures, depth: depth + 1) }
      func fail(_ keyword: String, _ rule: String) {
        failures.append(SchemaFailure(path: path, rule: rule, location: schema.at(keyword)))
      }
      if let types = schema.types, !types.contains(where: { Self.value(value, hasType: $0) }) {
        if case .null = value, schema.nullable == false, types.count == 1 {
          fail("type", "expected \(Self.describe(types)), found null; the schema is not nullable")
        } else {
          fail("type", "expected \(Self.describe(types)), found \(Self.kind(value))")
        }
        return
      }
      if case .null = value, schema.nullable { return }
      if let allowed = schema.enumValues, !allowed.contains(where: { Self.equal($0, value) }) {
        if case .null = value, schema.nullable || schema.types?.contains("null") == true {
        } else {
          fail(
            "enum",
            "\(Self.kind(value, short: true)) is not one of the allowed values \(allowed.map { Self.kind($0, short: true) }.joined(separator: ", "))"
          )
        }
      }
      if let constant = schema.constValue, !Self.equal(constant, value) {
        fail("const", "\(Self.kind(value, short: true)) is not the constant \(Self.kind(constant, short: true))")
      }
      switch value {
      case .string(let text): checkString(text, schema, fail)
      case .number(let number): checkNumber(number, schema, fail)
      case .array(let items):
        if let minimum = schema.minItems, items.count < minimum {
          fail(
            "minItems",
            "the array has \(items.count) \(items.count == 1 ? "item" : "items"), fewer than minItems \(minimum)")
        }
        if let maximum = schema.maxItems, items.count > maximum {
          fail("maxItems", "the array has \(items.count) items, more than maxItems \(maximum)")
        }
        if schema.uniqueItems, Set(items).count != items.count { fail("uniqueItems", "the array has duplicate items") }
        if let itemSchema = schema.items {
          for (offset, item) in items.enumerated() {
            check(item, itemSchema, "\(path)[\(offset)]", &failures, depth: depth + 1)
          }
        }
      case .object(let members):
        checkObject(members, schema, path, &failures, depth: depth)
      case .null, .bool: break
      }
      for branch in schema.allOf { check(value, branch, path, &failures, depth: depth + 1) }
      if !schema.oneOf.isEmpty || !schema.anyOf.isEmpty {
        checkComposition(value, schema, path, &failures, depth: depth)
      }
      if let not = schema.not, passes(value, not) {
        fail("not", "\(Self.kind(value, short: true)) matches the schema it must not match")
      }
    }

    private func checkString(_ text: String, _ schema: Schema, _ fail: (String, String) -> Void) {
      let length = text.count
      if let minimum = schema.minLength, length < minimum {
        fail(
          "minLength",
          "the string \(Self.quote(text)) is \(length) \(length == 1 ? "character" : "characters") long, shorter than minLength \(minimum)"
        )
      }
      if let maximum = schema.maxLength, length > maximum {
        fail(
          "maxLength", "the string \(Self.quote(text)) is \(length) characters long, longer than maxLength \(maximum)")
      }
      if let pattern = schema.pattern, !pattern.matches(text) {
        fail("pattern", "the string \(Self.quote(text)) does not match the pattern \(pattern.source)")
      }
      if let format = schema.format, !Formats.string(text, conformsTo: format) {
        fail("format", "the string \(Self.quote(text)) is not a valid \(format)")
      }
    }

    private func checkNumber(_ number: Double, _ schema: Schema, _ fail: (String, String) -> Void) {
      let shown = Self.kind(.number(number), short: true)
      if let minimum = schema.minimum, number < minimum {
        fail("minimum", "\(shown) is less than the minimum \(Self.number(minimum))")
      }
      if let maximum = schema.maximum, number > maximum {
        fail("maximum", "\(shown) is greater than the maximum \(Self.number(maximum))")
      }
      if let bound = schema.exclusiveMinimum, number <= bound {
        fail("exclusiveMinimum", "\(shown) is not greater than the exclusive minimum \(Self.number(bound))")
      }
      if let bound = schema.exclusiveMaximum, number >= bound {
        fail("exclusiveMaximum", "\(shown) is not less than the exclusive maximum \(Self.number(bound))")
      }
      if let divisor = schema.multipleOf {
        let quotient = number / divisor
        if abs(quotient - quotient.rounded()) > 1e-9 {
          fail("multipleOf", "\(shown) is not a multiple of \(Self.number(divisor))")
        }
      }
      if let format = schema.format, !Formats.number(number, conformsTo: format) {
        fail("format", "\(shown) is out of range for \(format)")
      }
    }

    private func checkObject(
      _ members: [String: JSONValue], _ schema: Schema, _ path: String, _ failures: inout [SchemaFailure], depth: Int
    ) {
      func fail(_ keyword: String, _ rule: String) {
        failures.append(SchemaFailure(path: path, rule: rule, location: schema.at(keyword)))
      }
      let properties = schema.properties
      // Each property's value, looked up once for the required check and the property checks.
      let values = properties.map { members[$0.name] }
      for (name, propertyIndex) in zip(schema.required, schema.requiredPropertyIndices) {
        if let propertyIndex {
          guard values[propertyIndex] == nil else { continue }
          // A readOnly property is not sent in a request, nor a writeOnly one in a response.
          let target = resolved(properties[propertyIndex].schema)
          if direction == .request && target.readOnly || direction == .response && target.writeOnly { continue }
        } else if members[name] != nil {
          continue
        }
        fail("required", "the required property \"\(name)\" is missing")
      }
      if let minimum = schema.minProperties, members.count < minimum {
        fail("minProperties", "the object has \(members.count) properties, fewer than minProperties \(minimum)")
      }
      if let maximum = schema.maxProperties, members.count > maximum {
        fail("maxProperties", "the object has \(members.count) properties, more than maxProperties \(maximum)")
      }
      for (property, value) in zip(properties, values) {
        guard let value else { continue }
        let target = resolved(property.schema)
        let propertyPath = path + property.pathSuffix
        if direction == .request && target.readOnly {
          failures.append(
            SchemaFailure(
              path: propertyPath,
              rule: "the property \"\(property.name)\" is readOnly and must not be sent in a request",
              location: target.at("readOnly")))
        } else if direction == .response && target.writeOnly {
          failures.append(
            SchemaFailure(
              path: propertyPath,
              rule: "the property \"\(property.name)\" is writeOnly and must not appear in a response",
              location: target.at("writeOnly")))
        }
        check(value, property.schema, propertyPath, &failures, depth: depth + 1)
      }
      switch schema.additional {
      case .any: break
      case .forbidden:
        for name in members.keys.sorted() where !schema.properties.contains(where: { $0.name == name }) {
          failures.append(
            SchemaFailure(
              path: Self.append(name, to: path),
              rule: "the property \"\(name)\" is not allowed (additionalProperties is false)",
              location: schema.at("additionalProperties")))
        }
      case .schema(let additional):
        for name in members.keys.sorted() where !schema.properties.contains(where: { $0.name == name }) {
          if let value = members[name] {
            check(value, additional, Self.append(name, to: path), &failures, depth: depth + 1)
          }
        }
      }
    }

    private func checkComposition(
      _ value: JSONValue, _ schema: Schema, _ path: String, _ failures: inout [SchemaFailure], depth: Int
    ) {
      func fail(_ keyword: String, _ rule: String) {
        failures.append(SchemaFailure(path: path, rule: rule, location: schema.at(keyword)))
      }
      let keyword = schema.oneOf.isEmpty ? "anyOf" : "oneOf"
      let branches = schema.oneOf.isEmpty ? schema.anyOf : schema.oneOf
      if let discriminator = schema.discriminator ?? inheritedDiscriminator(schema), case .object(let members) = value {
        guard case .string(let tag)? = members[discriminator.property] else {
          failures.append(
            SchemaFailure(
              path: path, rule: "the discriminator property \"\(discriminator.property)\" is missing",
              location: schema.at("discriminator")))
          return
        }
        guard let chosen = discriminator.mapping.first(where: { $0.value == tag }) else {
          failures.append(
            SchemaFailure(
              path: Self.append(discriminator.property, to: path),
              rule:
                "the discriminator \"\(discriminator.property)\" is \"\(tag)\", which is not one of \(discriminator.mapping.map { "\"\($0.value)\"" }.joined(separator: ", "))",
              location: schema.at("discriminator")))
          return
        }
        check(value, chosen.schema, path, &failures, depth: depth + 1)
        return
      }
      let matching = branches.filter { passes(value, $0) }
      let names = branches.map { resolved($0).displayName }.joined(separator: ", ")
      if matching.isEmpty {
        fail(keyword, "\(Self.kind(value, short: true)) matches none of the \(keyword) schemas (\(names))")
      } else if keyword == "oneOf", matching.count > 1 {
        fail(
          keyword,
          "\(Self.kind(value, short: true)) matches \(matching.count) of the oneOf schemas (\(matching.map { resolved($0).displayName }.joined(separator: ", "))); it must match exactly one"
        )
      }
    }

    private func inheritedDiscriminator(_ schema: Schema) -> Schema.Discriminator? {
      schema.reference.flatMap { table[$0].discriminator }
    }

    /// The schema a `$ref` chain ends at.
    func resolved(_ index: Int) -> Schema {
      var schema = table[index]
      var hops = 0
      while let next = schema.reference, hops < 64 {
        schema = table[next]
        hops += 1
      }
      return schema
    }

    // MARK: Describing values

    static func value(_ value: JSONValue, hasType type: String) -> Bool {
      switch (type, value) {
      case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
        ("number", .number):
        return true
      case ("integer", .number(let number)): return number.isFinite && number.rounded() == number
      default: return false
      }
    }

    static func describe(_ types: [String]) -> String {
      let names = types.map { type -> String in
        switch type {
        case "integer", "object", "array": "an \(type)"
        case "null": "null"
        default: "a \(type)"
        }
      }
      return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    static func kind(_ value: JSONValue, short: Bool = false) -> String {
      switch value {
      case .null: return "null"
      case .bool(let flag): return flag ? "true" : "false"
      case .number(let value): return short ? number(value) : "the number \(number(value))"
      case .string(let text): return short ? quote(text) : "the string \(quote(text))"
      case .array: return "an array"
      case .object: return "an object"
      }
    }

    static func number(_ value: Double) -> String {
      if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
      return String(value)
    }

    static func quote(_ text: String) -> String {
      "\"\(text.count > 40 ? text.prefix(37) + "…" : text)\""
    }

    static func append(_ key: String, to path: String) -> String {
      let plain =
        !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !(key.first?.isNumber ?? true)
      return plain ? "\(path).\(key)" : "\(path)[\"\(key)\"]"
    }

    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool { lhs == rhs }
  }
#endif
