#if GraphQL
  import Doppel
  import Foundation
  import GraphQL

  extension GraphQLSchemaDocument {
    /// What the schema contradicts in `body`, the answer a stub gives to the operation named
    /// `operation` when the operation's text is not known (a manifest's `.graphQL(operation:)`
    /// stub names the operation, not its selection): each key of the answer's `data` must be a
    /// field of its object's type (the root type is the one of `Query`, `Mutation` and
    /// `Subscription` that has them all), each value of the field's type, `null` only where the
    /// type allows it, an enum value one the enum has, and a `__typename` a type there may have.
    ///
    /// Without the selection, a field the operation selects but the answer leaves out cannot be
    /// told, and an alias is read as a field's name.
    package func shapeViolations(ofAnswer body: Data, operation: String?) -> [GraphQLViolation] {
      guard let answer = try? JSONValue(parsing: body) else {
        return [
          GraphQLViolation(
            operation: operation, operationPosition: nil, jsonPath: "$", rule: "the answer is not JSON",
            schemaPlace: nil)
        ]
      }
      var walker = AnswerWalker(document: self, context: nil)
      walker.walkTypesOnly(answer)
      return walker.problems.map {
        GraphQLViolation(
          operation: operation, operationPosition: nil, jsonPath: $0.path, rule: $0.rule, schemaPlace: $0.place)
      }
    }
  }

  /// Walks an answer against the schema: against an operation's selection when its text is known
  /// (``OperationContext/answerProblems(_:)``), else against the types alone
  /// (``GraphQLSchemaDocument/shapeViolations(ofAnswer:operation:)``).
  struct AnswerWalker {
    typealias Problem = (path: String, rule: String, place: String?)
    typealias Selection = [(key: String, fields: [Field])]

    let document: GraphQLSchemaDocument
    /// The operation whose selection the answer must have; `nil` to walk the types alone.
    let context: OperationContext?
    var problems: [Problem] = []

    init(document: GraphQLSchemaDocument, context: OperationContext?) {
      self.document = document
      self.context = context
    }

    /// The answer's `data` against the root type whose fields include every key of it (else the
    /// one with the most of them), of `Query`, `Mutation` and `Subscription`.
    mutating func walkTypesOnly(_ answer: JSONValue) {
      guard let data = data(of: answer) else { return }
      guard case .object(let top) = data else {
        problems.append(("$.data", "expected an object, found \(OperationContext.kind(data))", nil))
        return
      }
      let schema = document.schema
      let keys = top.keys.filter { $0 != "__typename" }
      let roots = [schema.queryType, schema.mutationType, schema.subscriptionType].compactMap { $0 }
      func count(_ type: GraphQLObjectType) -> Int { keys.filter { Self.fields(of: type)[$0] != nil }.count }
      guard let root = roots.max(by: { count($0) < count($1) }) else { return }
      walkObject(root, data, selected: nil, path: "$.data")
    }

    /// The answer's `data`, when it has one that is not `null`; a problem when it is not an object.
    mutating func data(of answer: JSONValue) -> JSONValue? {
      guard case .object(let members) = answer else {
        problems.append(
          (
            "$", "an answer is a JSON object with \"data\" and/or \"errors\"; found \(OperationContext.kind(answer))",
            nil
          ))
        return nil
      }
      guard let data = members["data"], data != .null else { return nil }
      return data
    }

    static func fields(of type: GraphQLObjectType) -> [String: GraphQLField] {
      var fields: [String: GraphQLField] = [:]
      for (name, field) in (try? type.fields()) ?? [:] { fields[name] = field }
      return fields
    }

    /// An object of type `type`: with `selected`, exactly the fields selected; without, only
    /// fields the type has.
    mutating func walkObject(_ type: GraphQLObjectType, _ value: JSONValue, selected: Selection?, path: String) {
      guard let selected, let context else {
        walkFields(of: type.name, fields: Self.fields(of: type), value, path: path, typename: type.name)
        return
      }
      guard case .object(let members) = value else {
        problems.append(
          (
            path, "expected an object of type \(type.name), found \(OperationContext.kind(value))",
            document.place(of: type.name)
          ))
        return
      }
      let keys = Set(selected.map(\.key))
      for key in members.keys.sorted() where !keys.contains(key) {
        problems.append(
          ("\(path).\(key)", "the operation does not select \"\(key)\" on \(type.name); remove it from the answer", nil)
        )
      }
      for (key, nodes) in selected {
        guard let node = nodes.first else { continue }
        let name = node.name.value
        let here = "\(path).\(key)"
        guard let member = members[key] else {
          problems.append(
            (here, "the selected field \"\(key)\" is missing", document.place(of: "\(type.name).\(name)")))
          continue
        }
        if name == "__typename" {
          checkTypename(member, is: type.name, path: here)
          continue
        }
        guard let definition = context.field(name, of: type) else { continue }
        walk(definition.type, member, nodes: nodes, path: here, naming: "\(type.name).\(name)")
      }
    }

    private mutating func checkTypename(_ member: JSONValue, is typename: String, path: String) {
      guard member != .string(typename) else { return }
      problems.append(
        (
          path, "expected __typename \"\(typename)\", found \(OperationContext.kind(member))",
          document.place(of: typename)
        ))
    }

    /// The members of `value`, an object of the type named `name` with `fields`, walked against the
    /// types alone; `typename`, when known, is the `__typename` it must say.
    private mutating func walkFields(
      of name: String, fields: [String: GraphQLField], _ value: JSONValue, path: String, typename: String?
    ) {
      guard case .object(let members) = value else {
        problems.append(
          (path, "expected an object of type \(name), found \(OperationContext.kind(value))", document.place(of: name)))
        return
      }
      for key in members.keys.sorted() {
        let member = members[key] ?? .null
        let here = "\(path).\(key)"
        if key == "__typename" {
          if let typename { checkTypename(member, is: typename, path: here) }
          continue
        }
        guard let field = fields[key] else {
          problems.append(
            (
              here,
              "\(name) has no field \"\(key)\".\(Suggestion.didYouMean(key, in: fields.keys.sorted())) Answer only fields of the type (an alias cannot be told from the operation's name alone)",
              document.place(of: name)
            ))
          continue
        }
        walk(field.type, member, nodes: [], path: here, naming: "\(name).\(key)")
      }
    }

    private mutating func walk(
      _ type: GraphQLType, _ value: JSONValue, nodes: [Field], path: String, naming field: String
    ) {
      let place = document.place(of: field)
      let kind = OperationContext.kind(value)
      switch TypeShape(type) {
      case .nonNull(let inner):
        if value == .null {
          problems.append((path, "null for the non-null type \(type); a server would have made the parent null", place))
        } else {
          walk(inner, value, nodes: nodes, path: path, naming: field)
        }
      case _ where value == .null:
        return
      case .list(let item):
        guard case .array(let items) = value else {
          problems.append((path, "expected a list (\(type)), found \(kind)", place))
          return
        }
        for (index, element) in items.enumerated() {
          walk(item, element, nodes: nodes, path: "\(path)[\(index)]", naming: field)
        }
      case .scalar(let scalar):
        if let expected = OperationContext.scalarProblem(scalar.name, value) {
          problems.append((path, "expected \(expected), found \(kind)", place))
        }
      case .enumeration(let enumeration):
        let names = enumeration.values.map(\.name)
        guard case .string(let text) = value, names.contains(text) else {
          let values = names.joined(separator: ", ")
          problems.append((path, "expected one of \(enumeration.name)'s values (\(values)), found \(kind)", place))
          return
        }
      case .object(let object):
        walkObject(object, value, selected: context?.collectSubfields(nodes, on: object), path: path)
      case .abstract(let abstract):
        guard case .object(let members) = value else {
          problems.append((path, "expected an object of type \(abstract.name), found \(kind)", place))
          return
        }
        let possible = document.schema.getPossibleTypes(abstractType: abstract)
        guard case .string(let name)? = members["__typename"] else {
          // Without __typename, the selection cannot say which type; the types alone can: a key
          // must be a field of one of them.
          guard context == nil else { return }
          var fields: [String: GraphQLField] = [:]
          for object in possible { fields.merge(Self.fields(of: object)) { first, _ in first } }
          walkFields(of: abstract.name, fields: fields, value, path: path, typename: nil)
          return
        }
        guard let object = possible.first(where: { $0.name == name }) else {
          let names = possible.map(\.name).sorted().joined(separator: ", ")
          problems.append(
            (
              "\(path).__typename", "\"\(name)\" is not a type of \(abstract.name) (its types are \(names))",
              document.place(of: abstract.name)
            ))
          return
        }
        walkObject(object, value, selected: context?.collectSubfields(nodes, on: object), path: path)
      case .unknown:
        return
      }
    }
  }
#endif
