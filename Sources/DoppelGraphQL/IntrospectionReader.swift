#if GraphQL
  import Doppel
  import Foundation

  /// Turns the JSON answer of an introspection query into SDL, which GraphQL then builds a schema
  /// from (GraphQLSwift has no `buildClientSchema`). Read with Doppel's positioned JSON parser, so
  /// that an error names the line, the column and the key.
  struct IntrospectionReader {
    let bytes: [UInt8]
    let file: String
    private let positions: TextPositions

    init(bytes: [UInt8], file: String) {
      self.bytes = bytes
      self.file = file
      positions = TextPositions(bytes)
    }

    private static let builtInScalars: Set<String> = ["String", "Int", "Float", "Boolean", "ID"]

    func sdl() throws(GraphQLSchemaError) -> String {
      let root: PositionedJSON
      do {
        root = try PositionedJSONParser.parse(
          bytes,
          whenEmpty: "the file is empty; an introspection result is a JSON object such as {\"data\": {\"__schema\": …}}"
        )
      } catch {
        throw failure(at: error.offset, "the introspection result is malformed JSON: \(error.message).")
      }
      let data = member("data", of: root) ?? root
      guard let schema = member("__schema", of: data) else {
        throw failure(
          at: data.offset,
          "an introspection result needs a \"__schema\" object (under \"data\"). Save the whole answer of the introspection query."
        )
      }
      var text = ""
      var roots: [String] = []
      for (key, operation) in [
        ("queryType", "query"), ("mutationType", "mutation"), ("subscriptionType", "subscription"),
      ] {
        if let type = member(key, of: schema), let name = try optionalString("name", of: type) {
          roots.append("  \(operation): \(name)")
        }
      }
      text += "schema {\n\(roots.joined(separator: "\n"))\n}\n"
      for type in try array("types", of: schema) {
        let name = try string("name", of: type)
        guard !name.hasPrefix("__"), !Self.builtInScalars.contains(name) else { continue }
        text += "\n" + (try definition(of: type, named: name))
      }
      return text
    }

    private func definition(of type: PositionedJSON, named name: String) throws(GraphQLSchemaError) -> String {
      let kind = try string("kind", of: type)
      switch kind {
      case "SCALAR":
        return "scalar \(name)\n"
      case "OBJECT", "INTERFACE":
        let interfaces = try array("interfaces", of: type, optional: true).map { node throws(GraphQLSchemaError) in
          try string("name", of: node)
        }
        let implements = interfaces.isEmpty ? "" : " implements " + interfaces.joined(separator: " & ")
        var lines: [String] = []
        for field in try array("fields", of: type) {
          var arguments: [String] = []
          for argument in try array("args", of: field, optional: true) { arguments.append(try inputValue(argument)) }
          let list = arguments.isEmpty ? "" : "(" + arguments.joined(separator: ", ") + ")"
          lines.append("  \(try string("name", of: field))\(list): \(try typeReference(of: field))")
        }
        return
          "\(kind == "OBJECT" ? "type" : "interface") \(name)\(implements) {\n\(lines.joined(separator: "\n"))\n}\n"
      case "UNION":
        let members = try array("possibleTypes", of: type).map { node throws(GraphQLSchemaError) in
          try string("name", of: node)
        }
        return "union \(name) = \(members.joined(separator: " | "))\n"
      case "ENUM":
        let values = try array("enumValues", of: type).map { node throws(GraphQLSchemaError) in
          "  " + (try string("name", of: node))
        }
        return "enum \(name) {\n\(values.joined(separator: "\n"))\n}\n"
      case "INPUT_OBJECT":
        var lines: [String] = []
        for field in try array("inputFields", of: type) { lines.append("  " + (try inputValue(field))) }
        return "input \(name) {\n\(lines.joined(separator: "\n"))\n}\n"
      default:
        throw failure(
          at: member("kind", of: type)?.offset ?? type.offset,
          "the type \"\(name)\" has the kind \"\(kind)\"; expected SCALAR, OBJECT, INTERFACE, UNION, ENUM or INPUT_OBJECT."
        )
      }
    }

    /// `first: Int = 10`
    private func inputValue(_ node: PositionedJSON) throws(GraphQLSchemaError) -> String {
      let base = "\(try string("name", of: node)): \(try typeReference(of: node))"
      guard let value = try optionalString("defaultValue", of: node) else { return base }
      return base + " = " + value
    }

    /// The `type` member of `node` as SDL: `[User!]!`.
    private func typeReference(of node: PositionedJSON) throws(GraphQLSchemaError) -> String {
      guard let type = member("type", of: node) else {
        throw failure(at: node.offset, "the key \"type\" is missing. Each field and argument needs its type.")
      }
      return try reference(type)
    }

    private func reference(_ type: PositionedJSON) throws(GraphQLSchemaError) -> String {
      let kind = try string("kind", of: type)
      switch kind {
      case "NON_NULL", "LIST":
        guard let inner = member("ofType", of: type), case .object = inner.value else {
          throw failure(at: type.offset, "a \(kind) type needs its \"ofType\" object.")
        }
        let text = try reference(inner)
        return kind == "LIST" ? "[\(text)]" : text + "!"
      default:
        return try string("name", of: type)
      }
    }

    // MARK: Reading members

    private func member(_ key: String, of node: PositionedJSON) -> PositionedJSON? {
      guard case .object(let members) = node.value else { return nil }
      return members.first { $0.key == key }?.value
    }

    private func string(_ key: String, of node: PositionedJSON) throws(GraphQLSchemaError) -> String {
      guard let text = try optionalString(key, of: node) else {
        throw failure(at: node.offset, "the key \"\(key)\" is missing; expected a string.")
      }
      return text
    }

    private func optionalString(_ key: String, of node: PositionedJSON) throws(GraphQLSchemaError) -> String? {
      guard let value = member(key, of: node) else { return nil }
      switch value.value {
      case .string(let text): return text
      case .null: return nil
      default: throw failure(at: value.offset, "the key \"\(key)\" holds \(value.kind); expected a string.")
      }
    }

    private func array(_ key: String, of node: PositionedJSON, optional: Bool = false) throws(GraphQLSchemaError)
      -> [PositionedJSON]
    {
      guard let value = member(key, of: node) else {
        if optional { return [] }
        throw failure(at: node.offset, "the key \"\(key)\" is missing; expected an array.")
      }
      switch value.value {
      case .array(let items): return items
      case .null where optional: return []
      default: throw failure(at: value.offset, "the key \"\(key)\" holds \(value.kind); expected an array.")
      }
    }

    private func failure(at offset: Int, _ message: String) -> GraphQLSchemaError {
      let position = positions.position(offset)
      return GraphQLSchemaError(file: file, line: position.line, column: position.column, message)
    }
  }
#endif
