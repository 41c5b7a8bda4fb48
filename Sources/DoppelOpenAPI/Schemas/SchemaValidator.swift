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
    /// Whether `oneOf` and `anyOf` are read as JSON Schema reads them, without the discriminator's
    /// shortcut to one branch: what an independent checker (schemathesis) does, and so what a
    /// generated answer must pass.
    var jsonSchemaOnly = false

    /// Every failure of `value` against the schema `index`, in a stable order.
    func validate(_ value: JSONValue, against index: Int, path: String = "$") -> [SchemaFailure] {
      validate(JSONTape(value), against: index, path: path)
    }

    /// Every failure of the value laid out in `tape` against the schema `index`, in a stable order.
    func validate(_ tape: JSONTape, against index: Int, path: String = "$") -> [SchemaFailure] {
      var run = Run(table: table, direction: direction, jsonSchemaOnly: jsonSchemaOnly, tape: tape, base: path)
      run.check(0, index, depth: 0)
      return run.failures
    }

    /// Whether `value` passes the schema (no failure).
    func passes(_ value: JSONValue, _ index: Int) -> Bool {
      validate(value, against: index).isEmpty
    }

    /// The schema a `$ref` chain ends at.
    func resolved(_ index: Int) -> Schema { table.resolved(index) }

    /// One check of a tape: the failures found so far, and the way from the root to the value
    /// being checked, turned into a JSON path only for a failure.
    private struct Run {
      let table: SchemaTable
      let direction: Direction
      let jsonSchemaOnly: Bool
      let tape: JSONTape
      let base: String
      var failures: [SchemaFailure] = []
      var steps: [Step] = []
      /// Each object's property values being checked (see `checkObject`).
      var slots: [Int] = []

      enum Step {
        /// The property `property` of the object schema `schema`.
        case property(schema: Int, property: Int)
        case item(Int)
        /// A member not among the schema's properties, by its key's node.
        case key(Int)
      }

      init(table: SchemaTable, direction: Direction, jsonSchemaOnly: Bool, tape: JSONTape, base: String) {
        self.table = table
        self.direction = direction
        self.jsonSchemaOnly = jsonSchemaOnly
        self.tape = tape
        self.base = base
      }

      /// The JSON path of the value being checked: `$.breeds[0].name`.
      var path: String {
        var path = base
        for step in steps {
          switch step {
          case .property(let schema, let property): path += table[schema].properties[property].pathSuffix
          case .item(let offset): path += "[\(offset)]"
          case .key(let node): path = SchemaValidator.append(tape.string(node), to: path)
          }
        }
        return path
      }

      mutating func fail(_ schema: Schema, _ keyword: String, _ rule: String) {
        failures.append(SchemaFailure(path: path, rule: rule, location: schema.at(keyword)))
      }

      /// Whether the value at `node` passes the schema `index` (checked on its own).
      func passes(_ node: Int, _ index: Int) -> Bool {
        var run = Run(table: table, direction: direction, jsonSchemaOnly: jsonSchemaOnly, tape: tape, base: "$")
        run.check(node, index, depth: 0)
        return run.failures.isEmpty
      }

      /// `value` as messages show it: `the string "x"`, `an object`.
      func kind(_ node: Int, short: Bool = false) -> String {
        SchemaValidator.kind(tape.value(node), short: short)
      }

      /// Whether `value` equals the value at `node`, as ``JSONValue`` compares them.
      func equal(_ value: JSONValue, _ node: Int) -> Bool {
        let found = tape.nodes[node]
        switch (value, found.kind) {
        case (.null, .null): return true
        case (.bool(let flag), .bool): return flag == found.flag
        case (.number(let number), .number): return number == tape.number(node)
        case (.string(let text), .string): return tape.string(node, equals: text)
        case (.array, .array), (.object, .object): return value == tape.value(node)
        default: return false
        }
      }

      mutating func check(_ node: Int, _ index: Int, depth: Int) {
        // A value nested this deep in a recursive schema is left alone rather than risk the stack.
        guard depth < 128 else { return }
        let schema = table[index]
        if let reference = schema.reference { check(node, reference, depth: depth + 1) }
        let found = tape.nodes[node]
        if let mask = schema.typeMask, !hasType(mask, found, node) {
          let types = schema.types ?? []
          if found.kind == .null, schema.nullable == false, types.count == 1 {
            fail(schema, "type", "expected \(SchemaValidator.describe(types)), found null; the schema is not nullable")
          } else {
            fail(schema, "type", "expected \(SchemaValidator.describe(types)), found \(kind(node))")
          }
          return
        }
        if found.kind == .null, schema.nullable { return }
        if schema.hasEnumOrConst { checkEnumAndConst(node, found, schema) }
        switch found.kind {
        case .string: checkString(node, found, schema)
        case .number: checkNumber(tape.number(node), schema)
        case .array: checkArray(node, found, schema, depth: depth)
        case .object: checkObject(node, found, schema, index, depth: depth)
        case .null, .bool: break
        }
        guard schema.hasComposition else { return }
        for branch in schema.allOf { check(node, branch, depth: depth + 1) }
        if !schema.oneOf.isEmpty || !schema.anyOf.isEmpty {
          checkComposition(node, schema, depth: depth)
        }
        if let not = schema.not, passes(node, not) {
          fail(schema, "not", "\(kind(node, short: true)) matches the schema it must not match")
        }
      }

      private mutating func checkEnumAndConst(_ node: Int, _ found: JSONTape.Node, _ schema: Schema) {
        if let allowed = schema.enumValues, !allowed.contains(where: { equal($0, node) }) {
          if found.kind == .null, schema.nullable || schema.types?.contains("null") == true {
          } else {
            fail(
              schema, "enum",
              "\(kind(node, short: true)) is not one of the allowed values \(allowed.map { SchemaValidator.kind($0, short: true) }.joined(separator: ", "))"
            )
          }
        }
        if let constant = schema.constValue, !equal(constant, node) {
          fail(
            schema, "const",
            "\(kind(node, short: true)) is not the constant \(SchemaValidator.kind(constant, short: true))")
        }
      }

      /// Whether the value has one of the types of `mask` (``Schema/typeMask``).
      private func hasType(_ mask: UInt8, _ found: JSONTape.Node, _ node: Int) -> Bool {
        if mask & Schema.typeBit(found.kind) != 0 { return true }
        guard found.kind == .number, mask & Schema.integerBit != 0 else { return false }
        let number = tape.number(node)
        return number.isFinite && number.rounded() == number
      }

      private mutating func checkString(_ node: Int, _ found: JSONTape.Node, _ schema: Schema) {
        // The text is made only when a rule needs it.
        var made: String?
        func text() -> String {
          if let made { return made }
          let text = tape.string(node)
          made = text
          return text
        }
        let length = found.flag ? found.second - found.first : text().count
        if let minimum = schema.minLength, length < minimum {
          fail(
            schema, "minLength",
            "the string \(SchemaValidator.quote(text())) is \(length) \(length == 1 ? "character" : "characters") long, shorter than minLength \(minimum)"
          )
        }
        if let maximum = schema.maxLength, length > maximum {
          fail(
            schema, "maxLength",
            "the string \(SchemaValidator.quote(text())) is \(length) characters long, longer than maxLength \(maximum)"
          )
        }
        if let pattern = schema.pattern {
          let outcome =
            found.flag
            ? tape.bytes.withUnsafeBufferPointer { buffer in
              pattern.search(ascii: UnsafeBufferPointer(rebasing: buffer[found.first..<found.second]))
            } : pattern.search(text())
          switch outcome {
          case .found: break
          case .notFound:
            fail(
              schema, "pattern",
              "the string \(SchemaValidator.quote(text())) does not match the pattern \(pattern.source)")
          case .gaveUp:
            fail(
              schema, "pattern",
              "the string \(SchemaValidator.quote(text())) could not be checked against the pattern \(pattern.source): \(NSRegularExpression.gaveUpExplanation("the pattern"))"
            )
          case .outOfBudget:
            fail(
              schema, "pattern",
              "the string \(SchemaValidator.quote(text())) could not be checked against the pattern \(pattern.source): \(NSRegularExpression.outOfBudgetExplanation("the pattern", so: "the string is not checked"))"
            )
          }
        }
        if let known = schema.knownFormat, let format = schema.format {
          let conforms =
            found.flag
            ? tape.bytes.withUnsafeBufferPointer { buffer in
              Formats.ascii(UnsafeBufferPointer(rebasing: buffer[found.first..<found.second]), conformsTo: known)
            } : nil
          if !(conforms ?? Formats.string(text(), conformsTo: format)) {
            fail(schema, "format", "the string \(SchemaValidator.quote(text())) is not a valid \(format)")
          }
        }
      }

      private mutating func checkNumber(_ number: Double, _ schema: Schema) {
        // Made only for a message.
        var shown: String { SchemaValidator.kind(.number(number), short: true) }
        if let minimum = schema.minimum, number < minimum {
          fail(schema, "minimum", "\(shown) is less than the minimum \(SchemaValidator.number(minimum))")
        }
        if let maximum = schema.maximum, number > maximum {
          fail(schema, "maximum", "\(shown) is greater than the maximum \(SchemaValidator.number(maximum))")
        }
        if let bound = schema.exclusiveMinimum, number <= bound {
          fail(
            schema, "exclusiveMinimum",
            "\(shown) is not greater than the exclusive minimum \(SchemaValidator.number(bound))")
        }
        if let bound = schema.exclusiveMaximum, number >= bound {
          fail(
            schema, "exclusiveMaximum",
            "\(shown) is not less than the exclusive maximum \(SchemaValidator.number(bound))"
          )
        }
        if let divisor = schema.multipleOf {
          let quotient = number / divisor
          if abs(quotient - quotient.rounded()) > 1e-9 {
            fail(schema, "multipleOf", "\(shown) is not a multiple of \(SchemaValidator.number(divisor))")
          }
        }
        if schema.knownFormat != nil, let format = schema.format, !Formats.number(number, conformsTo: format) {
          fail(schema, "format", "\(shown) is out of range for \(format)")
        }
      }

      private mutating func checkArray(_ node: Int, _ found: JSONTape.Node, _ schema: Schema, depth: Int) {
        let count = found.second
        if let minimum = schema.minItems, count < minimum {
          fail(
            schema, "minItems",
            "the array has \(count) \(count == 1 ? "item" : "items"), fewer than minItems \(minimum)")
        }
        if let maximum = schema.maxItems, count > maximum {
          fail(schema, "maxItems", "the array has \(count) items, more than maxItems \(maximum)")
        }
        if schema.uniqueItems, case .array(let items) = tape.value(node), Set(items).count != items.count {
          fail(schema, "uniqueItems", "the array has duplicate items")
        }
        if let itemSchema = schema.items {
          var item = node + 1
          var offset = 0
          while item < found.first {
            steps.append(.item(offset))
            check(item, itemSchema, depth: depth + 1)
            steps.removeLast()
            item = tape.next(item)
            offset += 1
          }
        }
      }

      /// The property of `schema` the key at `key` names, looking first at `start` (members are
      /// usually written in the schema's order); with `all`, every property it names.
      private func property(named key: Int, in schema: Schema, from start: Int) -> Int? {
        let properties = schema.properties
        let keyNode = tape.nodes[key]
        guard keyNode.flag, schema.propertyNamesAreASCII else {
          // Text that is not ASCII may be written in more than one way that Swift calls equal.
          return properties.firstIndex { tape.string(key, equals: $0.name) }
        }
        let hash = keyNode.payload
        for offset in properties.indices {
          var candidate = start + offset
          if candidate >= properties.count { candidate -= properties.count }
          // Both ASCII: the same bytes is the same text.
          if properties[candidate].nameHash == hash, tape.string(key, hasBytes: properties[candidate].nameUTF8) {
            return candidate
          }
        }
        return nil
      }

      /// The value of the member of the object at `node` named `name`.
      private func member(_ name: String, of node: Int) -> Int? {
        let end = tape.nodes[node].first
        var key = node + 1
        while key < end {
          if tape.string(key, equals: name) { return key + 1 }
          key = tape.next(key + 1)
        }
        return nil
      }

      private mutating func checkObject(
        _ node: Int, _ found: JSONTape.Node, _ schema: Schema, _ index: Int, depth: Int
      ) {
        let properties = schema.properties
        let end = found.first
        let count = found.second
        // Each property's value node (-1 when absent), found once for the required check and the
        // property checks, kept on a stack shared by the whole check.
        let base = slots.count
        slots.append(contentsOf: repeatElement(-1, count: properties.count))
        defer { slots.removeLast(properties.count) }
        var others = 0
        var next = 0
        var key = node + 1
        while key < end {
          if let property = property(named: key, in: schema, from: next) {
            slots[base + property] = key + 1
            next = property + 1
            // Text that is not ASCII may name several properties.
            if !(tape.nodes[key].flag && schema.propertyNamesAreASCII) {
              for other in properties.indices
              where other != property && tape.string(key, equals: properties[other].name) {
                slots[base + other] = key + 1
              }
            }
          } else {
            others += 1
          }
          key = tape.next(key + 1)
        }
        for (name, propertyIndex) in zip(schema.required, schema.requiredPropertyIndices) {
          if let propertyIndex {
            guard slots[base + propertyIndex] < 0 else { continue }
            // A readOnly property is not sent in a request, nor a writeOnly one in a response.
            let access = schema.propertyAccess[propertyIndex]
            if direction == .request ? access & Schema.readOnlyBit != 0 : access & Schema.writeOnlyBit != 0 {
              continue
            }
          } else if member(name, of: node) != nil {
            continue
          }
          fail(schema, "required", "the required property \"\(name)\" is missing")
        }
        if let minimum = schema.minProperties, count < minimum {
          fail(schema, "minProperties", "the object has \(count) properties, fewer than minProperties \(minimum)")
        }
        if let maximum = schema.maxProperties, count > maximum {
          fail(schema, "maxProperties", "the object has \(count) properties, more than maxProperties \(maximum)")
        }
        // The bit of a property that must not be in a message going this way.
        let refused = direction == .request ? Schema.readOnlyBit : Schema.writeOnlyBit
        let access = schema.propertyAccess
        for (offset, property) in properties.enumerated() {
          let value = slots[base + offset]
          guard value >= 0 else { continue }
          steps.append(.property(schema: index, property: offset))
          if access[offset] & refused != 0 {
            let target = table.resolved(property.schema)
            if direction == .request {
              failures.append(
                SchemaFailure(
                  path: path,
                  rule: "the property \"\(property.name)\" is readOnly and must not be sent in a request",
                  location: target.at("readOnly")))
            } else {
              failures.append(
                SchemaFailure(
                  path: path,
                  rule: "the property \"\(property.name)\" is writeOnly and must not appear in a response",
                  location: target.at("writeOnly")))
            }
          }
          check(value, property.schema, depth: depth + 1)
          steps.removeLast()
        }
        guard others > 0 else { return }
        switch schema.additional {
        case .any: break
        case .forbidden:
          for (name, _) in otherMembers(of: node, schema) {
            failures.append(
              SchemaFailure(
                path: SchemaValidator.append(name, to: path),
                rule: "the property \"\(name)\" is not allowed (additionalProperties is false)",
                location: schema.at("additionalProperties")))
          }
        case .schema(let additional):
          for (_, key) in otherMembers(of: node, schema) {
            steps.append(.key(key))
            check(key + 1, additional, depth: depth + 1)
            steps.removeLast()
          }
        }
      }

      /// The members of the object at `node` that are not among `schema`'s properties, by name.
      private func otherMembers(of node: Int, _ schema: Schema) -> [(name: String, key: Int)] {
        var others: [(name: String, key: Int)] = []
        let end = tape.nodes[node].first
        var key = node + 1
        while key < end {
          if property(named: key, in: schema, from: 0) == nil { others.append((tape.string(key), key)) }
          key = tape.next(key + 1)
        }
        return others.sorted { $0.name < $1.name }
      }

      private mutating func checkComposition(_ node: Int, _ schema: Schema, depth: Int) {
        let keyword = schema.oneOf.isEmpty ? "anyOf" : "oneOf"
        let branches = schema.oneOf.isEmpty ? schema.anyOf : schema.oneOf
        if !jsonSchemaOnly,
          let discriminator = schema.discriminator ?? schema.reference.flatMap({ table[$0].discriminator }),
          tape.nodes[node].kind == .object
        {
          guard let tagNode = member(discriminator.property, of: node), tape.nodes[tagNode].kind == .string else {
            failures.append(
              SchemaFailure(
                path: path, rule: "the discriminator property \"\(discriminator.property)\" is missing",
                location: schema.at("discriminator")))
            return
          }
          let tag = tape.string(tagNode)
          guard let chosen = discriminator.mapping.first(where: { $0.value == tag }) else {
            failures.append(
              SchemaFailure(
                path: SchemaValidator.append(discriminator.property, to: path),
                rule:
                  "the discriminator \"\(discriminator.property)\" is \"\(tag)\", which is not one of \(discriminator.mapping.map { "\"\($0.value)\"" }.joined(separator: ", "))",
                location: schema.at("discriminator")))
            return
          }
          check(node, chosen.schema, depth: depth + 1)
          return
        }
        let matching = branches.filter { passes(node, $0) }
        let names = branches.map { table.resolved($0).displayName }.joined(separator: ", ")
        if matching.isEmpty {
          fail(schema, keyword, "\(kind(node, short: true)) matches none of the \(keyword) schemas (\(names))")
        } else if keyword == "oneOf", matching.count > 1 {
          fail(
            schema, keyword,
            "\(kind(node, short: true)) matches \(matching.count) of the oneOf schemas (\(matching.map { table.resolved($0).displayName }.joined(separator: ", "))); it must match exactly one"
          )
        }
      }
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
