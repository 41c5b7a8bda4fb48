#if GraphQL
  import Doppel
  import Foundation
  import GraphQL

  /// Answers one valid operation with made-up data, as the executor of a GraphQL server would
  /// answer it from resolvers: field by field along the selection set, a field override's error
  /// recorded with its path and locations, and a `null` where a non-null type cannot have one
  /// moved up to the nearest field that may be null.
  final class MockExecution {
    private let context: OperationContext
    private let mocks: GraphQLMocks
    private var errors: [OrderedJSON] = []
    /// Values made so far, against ``QueryLimits/answerValues``.
    private var spent = 0
    /// Whether the answer reached ``QueryLimits/answerValues`` (and so is not given).
    private var exhausted = false

    /// Thrown when a non-null position ends up `null`: the nearest nullable position above it
    /// becomes `null` instead.
    private struct NullBubble: Error {}

    /// One step of a path in the answer: a response key or a list index.
    private enum Step {
      case key(String)
      case index(Int)

      var json: JSONValue {
        switch self {
        case .key(let key): .string(key)
        case .index(let index): .number(Double(index))
        }
      }
    }

    /// Values of the schema's introspection given so far, against
    /// ``QueryLimits/introspectionValues``; counted apart from made-up ones, since a whole
    /// introspection of a large schema holds hundreds of thousands.
    private var introspectionSpent = 0
    /// Whether the values being completed are the schema's introspection.
    private var introspecting = false

    init(context: OperationContext, mocks: GraphQLMocks) {
      self.context = context
      self.mocks = mocks
    }

    /// The answer: `{"data": …}`, with `"errors"` after it when a field failed.
    func answer() -> OrderedJSON {
      var data = OrderedJSON.null
      if let root = context.rootType {
        let fields = context.collectFields(context.operation.selectionSet, on: root)
        data = (try? object(root, source: [:], fields: fields, path: [])) ?? .null
      }
      if exhausted {
        let message =
          introspectionSpent > QueryLimits.introspectionValues
          ? "The introspection answer would hold more than \(QueryLimits.introspectionValues) values, more than Doppel gives for one request: select fewer nested fields under __schema and __type."
          : "The mock answer would hold more than \(QueryLimits.answerValues) values, more than Doppel makes for one request: select fewer nested lists, or make lists shorter (GraphQLMocks(listLength:))."
        return .object([("data", .null), ("errors", .list([.object([("message", .value(.string(message)))])]))])
      }
      var members: [(key: String, value: OrderedJSON)] = [("data", data)]
      if !errors.isEmpty { members.append(("errors", .list(errors))) }
      return .object(members)
    }

    /// One page of a connection (a field with a `first` or `last` argument): how many items, of
    /// how many in all, and whether pages come after and before it.
    private struct Page {
      /// The index (from 0) of the page's first item among all.
      var offset: Int
      var count: Int
      var total: Int
      var hasNext: Bool
      var hasPrevious: Bool

      /// The cursor of the item at `index` among all: opaque to clients, as servers' are, and
      /// read back from `after` and `before`.
      static func cursor(_ index: Int) -> String { Data("cursor:\(index + 1)".utf8).base64EncodedString() }

      /// The index a cursor of ``cursor(_:)`` names.
      static func index(of cursor: JSONValue?) -> Int? {
        guard case .string(let text)? = cursor, let data = Data(base64Encoded: text),
          let decoded = String(data: data, encoding: .utf8), decoded.hasPrefix("cursor:"),
          let number = Int(decoded.dropFirst("cursor:".count)), number >= 1
        else { return nil }
        return number - 1
      }

      var startCursor: JSONValue { count > 0 ? .string(Self.cursor(offset)) : .null }
      var endCursor: JSONValue { count > 0 ? .string(Self.cursor(offset + count - 1)) : .null }
    }

    /// The page a field with `first` or `last` (its own, a variable's or the schema's default)
    /// asks for; `nil` for any other field.
    private func page(of node: Field, definition: GraphQLField, given: JSONValue?, path: [Step]) -> Page? {
      guard definition.args.contains(where: { $0.key == "first" || $0.key == "last" }),
        case .object(let arguments) = context.arguments(of: node, definition: definition)
      else { return nil }
      func number(_ name: String) -> Int? {
        guard case .number(let value)? = arguments[name], value.isFinite else { return nil }
        return Int(max(0, min(value, Double(QueryLimits.pageSize))))
      }
      // An argument the query gives wins over the schema's default of the other.
      let givesLast = node.arguments.contains { $0.name.value == "last" }
      let givesFirst = node.arguments.contains { $0.name.value == "first" }
      let first = givesLast && !givesFirst ? nil : number("first")
      let last = number("last")
      guard let size = first ?? last else { return nil }
      var total = mocks.listLength == 0 ? 0 : max(mocks.listLength, 10 + pick(41, path + [.key("totalCount")]))
      if case .object(let members)? = given, case .number(let count)? = members["totalCount"], count.isFinite {
        total = Int(max(0, min(count, Double(Int32.max))))
      }
      if first != nil {
        // After the item `after` names (a cursor of another server's: from the start).
        let offset = min(Page.index(of: arguments["after"]).map { $0 + 1 } ?? 0, total)
        let count = min(size, total - offset)
        return Page(
          offset: offset, count: count, total: total, hasNext: offset + count < total, hasPrevious: offset > 0)
      }
      let end = min(Page.index(of: arguments["before"]) ?? total, total)
      let count = min(size, end)
      return Page(offset: end - count, count: count, total: total, hasNext: end < total, hasPrevious: end > count)
    }

    private func object(
      _ type: GraphQLObjectType, source: [String: JSONValue], fields: [(key: String, fields: [Field])], path: [Step],
      page: Page? = nil
    ) throws(NullBubble) -> OrderedJSON {
      var members: [(key: String, value: OrderedJSON)] = []
      for (key, nodes) in fields {
        guard let node = nodes.first else { continue }
        let name = node.name.value
        let here = path + [.key(key)]
        if name == "__typename" {
          members.append((key, .value(.string(type.name))))
          continue
        }
        if path.isEmpty, name == "__schema" || name == "__type" {
          members.append((key, try introspection(name, node: node, nodes: nodes, path: path + [.key(key)])))
          continue
        }
        guard let definition = context.field(name, of: type) else { continue }
        var given: JSONValue? = source[name]
        if introspecting, case .array(let items)? = given, definition.args["includeDeprecated"] != nil,
          case .object(let arguments) = context.arguments(of: node, definition: definition),
          arguments["includeDeprecated"] != .bool(true)
        {
          given = .array(
            items.filter { item in
              if case .object(let members) = item { return members["isDeprecated"] != .bool(true) }
              return true
            })
        }
        if given == nil, let override = mocks.fields["\(type.name).\(name)"] {
          do {
            given = try override(context.arguments(of: node, definition: definition))
          } catch {
            record(error, at: here, nodes: nodes)
            given = .null
          }
        }
        var length: Int?
        if let page, given == nil {
          switch name {
          case "edges":
            given = .array((0..<page.count).map { ["cursor": .string(Page.cursor(page.offset + $0))] })
          case "nodes": length = page.count
          case "totalCount": given = .number(Double(page.total))
          case "pageInfo":
            given = [
              "hasNextPage": .bool(page.hasNext), "hasPreviousPage": .bool(page.hasPrevious),
              "startCursor": page.startCursor, "endCursor": page.endCursor,
            ]
          default: break
          }
        }
        let asked = self.page(of: node, definition: definition, given: given, path: here)
        let value = try complete(
          definition.type, given: given, nodes: nodes, path: here, naming: "\(type.name).\(name)",
          length: length ?? asked?.count, page: asked)
        members.append((key, value))
      }
      return .object(members)
    }

    /// The value of a field of type `type`: `given` (from an override) completed along the
    /// selection, or a value made up for `path`.
    private func complete(
      _ type: GraphQLType, given: JSONValue?, nodes: [Field], path: [Step], naming field: String,
      length: Int? = nil, page: Page? = nil
    ) throws(NullBubble) -> OrderedJSON {
      let shape = TypeShape(type)
      if case .nonNull = shape {
        // Counted as the value inside.
      } else if introspecting {
        introspectionSpent += 1
        if introspectionSpent > QueryLimits.introspectionValues { exhausted = true }
        if exhausted { return .null }
      } else {
        spent += 1
        if spent > QueryLimits.answerValues { exhausted = true }
        if exhausted { return .null }
      }
      switch shape {
      case .nonNull(let inner):
        let value = try complete(
          inner, given: given, nodes: nodes, path: path, naming: field, length: length, page: page)
        if value == .null { throw NullBubble() }
        return value
      case _ where given == .null:
        return .null
      case .list(let item):
        let items: [JSONValue?]
        if case .array(let values)? = given {
          items = values
        } else {
          items = Array(repeating: nil, count: length ?? mocks.listLength)
        }
        var answers: [OrderedJSON] = []
        for (index, value) in items.enumerated() {
          do {
            answers.append(try complete(item, given: value, nodes: nodes, path: path + [.index(index)], naming: field))
          } catch {
            return .null
          }
        }
        return .list(answers)
      case .scalar(let scalar):
        return .value(given ?? scalarValue(scalar, path: path, field: field))
      case .enumeration(let enumeration):
        if let given { return .value(given) }
        let values = enumeration.values.map(\.name)
        return values.isEmpty ? .null : .value(.string(values[pick(values.count, path)]))
      case .object(let object):
        return composite(object, given: given, nodes: nodes, path: path, page: page)
      case .abstract(let abstract):
        let possible = context.document.schema.getPossibleTypes(abstractType: abstract).sorted { $0.name < $1.name }
        var chosen: GraphQLObjectType?
        if case .object(let members)? = given, case .string(let name)? = members["__typename"] {
          chosen = possible.first { $0.name == name }
        }
        guard let object = chosen ?? (possible.isEmpty ? nil : possible[pick(possible.count, path)]) else {
          return .null
        }
        return composite(object, given: given, nodes: nodes, path: path, page: page)
      case .unknown:
        return .value(given ?? .null)
      }
    }

    /// An object: the type override's fields, then the given ones, the rest made up. A field that
    /// cannot be `null` but is makes the whole object `null`.
    private func composite(
      _ type: GraphQLObjectType, given: JSONValue?, nodes: [Field], path: [Step], page: Page? = nil
    ) -> OrderedJSON {
      var source: [String: JSONValue] = [:]
      var given = given
      if introspecting, type.name == "__Type", case .object(let members)? = given,
        members[SchemaIntrospection.reference] != nil, case .string(let name)? = members["name"]
      {
        given = context.document.introspection.types[name]
      }
      if let override = mocks.types[type.name] {
        do {
          if case .object(let members) = try override() { source = members }
        } catch {
          record(error, at: path, nodes: nodes)
          return .null
        }
      }
      if case .object(let members)? = given { source.merge(members) { _, new in new } }
      do {
        return try object(
          type, source: source, fields: context.collectSubfields(nodes, on: type), path: path, page: page)
      } catch {
        return .null
      }
    }

    /// The root's `__schema` or `__type(name:)`, from the schema.
    private func introspection(_ name: String, node: Field, nodes: [Field], path: [Step]) throws(NullBubble)
      -> OrderedJSON
    {
      let schema = context.document.schema
      let introspection = context.document.introspection
      let given: JSONValue
      let type: GraphQLType
      if name == "__schema" {
        guard let schemaType = schema.getType(name: "__Schema") as? GraphQLObjectType else { return .null }
        given = introspection.schema
        type = GraphQLNonNull(schemaType)
      } else {
        guard let typeType = schema.getType(name: "__Type") as? GraphQLObjectType else { return .null }
        let asked = node.arguments.first { $0.name.value == "name" }.map { context.value(of: $0.value) }
        if case .string(let typeName)? = asked, let found = introspection.types[typeName] {
          given = found
        } else {
          given = .null
        }
        type = typeType
      }
      introspecting = true
      defer { introspecting = false }
      return try complete(type, given: given, nodes: nodes, path: path, naming: name)
    }

    private func scalarValue(_ scalar: GraphQLScalarType, path: [Step], field: String) -> JSONValue {
      if let override = mocks.scalars[scalar.name] { return override() }
      let number = pick(1000, path)
      let name = field.split(separator: ".").last.map(String.init) ?? field
      switch scalar.name {
      case "Int": return .number(Double(number % 100))
      case "Float": return .number(Double(number) / 10)
      case "Boolean": return .bool(number % 2 == 0)
      case "ID": return .string("\(field.split(separator: ".").first ?? "")-\(number)")
      case "String": return .string("\(name) \(number)")
      default: return .string("\(scalar.name) \(number)")
      }
    }

    /// A number below `count`, the same for the same seed and path (FNV-1a over both).
    private func pick(_ count: Int, _ path: [Step]) -> Int {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ mocks.seed
      let text = path.map { step in
        switch step {
        case .key(let key): key
        case .index(let index): String(index)
        }
      }.joined(separator: ".")
      for byte in text.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
      }
      hash ^= hash >> 29
      return Int(hash % UInt64(max(count, 1)))
    }

    private func record(_ error: any Error, at path: [Step], nodes: [Field]) {
      let fieldError = error as? GraphQLFieldError
      var members: [(key: String, value: OrderedJSON)] = [
        ("message", .value(.string(fieldError?.message ?? "\(error)")))
      ]
      let locations = nodes.compactMap(\.loc).map { location -> OrderedJSON in
        .object([
          ("line", .value(.number(Double(location.startToken.line)))),
          ("column", .value(.number(Double(location.startToken.column)))),
        ])
      }
      members.append(("locations", .list(locations)))
      members.append(("path", .list(path.map { .value($0.json) })))
      if let extensions = fieldError?.extensions { members.append(("extensions", .value(extensions))) }
      errors.append(.object(members))
    }
  }
#endif
