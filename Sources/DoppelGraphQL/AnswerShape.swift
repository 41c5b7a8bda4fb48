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
      var walker = AnswerShapeWalker(document: self)
      walker.walkAnswer(answer)
      return walker.problems.map {
        GraphQLViolation(
          operation: operation, operationPosition: nil, jsonPath: $0.path, rule: $0.rule, schemaPlace: $0.place)
      }
    }
  }

  /// Walks an answer against the schema's types alone (see
  /// ``GraphQLSchemaDocument/shapeViolations(ofAnswer:operation:)``).
  struct AnswerShapeWalker {
    let document: GraphQLSchemaDocument
    var problems: [(path: String, rule: String, place: String?)] = []

    init(document: GraphQLSchemaDocument) { self.document = document }

    mutating func walkAnswer(_ answer: JSONValue) {
      guard case .object(let members) = answer else {
        problems.append(
          (
            "$", "an answer is a JSON object with \"data\" and/or \"errors\"; found \(OperationContext.kind(answer))",
            nil
          ))
        return
      }
      guard let data = members["data"], data != .null else { return }
      guard case .object(let top) = data else {
        problems.append(("$.data", "expected an object, found \(OperationContext.kind(data))", nil))
        return
      }
      let schema = document.schema
      let roots = [schema.queryType, schema.mutationType, schema.subscriptionType].compactMap { $0 }
      // The root whose fields include every key, else the one with the most of them.
      let keys = top.keys.filter { $0 != "__typename" }
      let root = roots.max { fieldCount(keys, on: $0) < fieldCount(keys, on: $1) }
      guard let root else { return }
      walkObject(root, data, path: "$.data")
    }

    private func fieldCount(_ keys: [String], on type: GraphQLObjectType) -> Int {
      let fields = (try? type.fields()) ?? [:]
      return keys.filter { fields[$0] != nil }.count
    }

    private mutating func walkObject(_ type: GraphQLObjectType, _ value: JSONValue, path: String) {
      walkFields(of: type.name, fields: Self.fields(of: type), value, path: path, typename: type.name)
    }

    private static func fields(of type: GraphQLObjectType) -> [String: GraphQLField] {
      var fields: [String: GraphQLField] = [:]
      for (name, field) in (try? type.fields()) ?? [:] { fields[name] = field }
      return fields
    }

    /// The members of `value`, an object of the type named `name` with `fields`; `typename`, when
    /// known, is the `__typename` it must say.
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
          if let typename, member != .string(typename) {
            problems.append(
              (
                here, "expected __typename \"\(typename)\", found \(OperationContext.kind(member))",
                document.place(of: typename)
              ))
          }
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
        walk(field.type, member, path: here, naming: "\(name).\(key)")
      }
    }

    private mutating func walk(_ type: GraphQLType, _ value: JSONValue, path: String, naming field: String) {
      let place = document.place(of: field)
      switch TypeShape(type) {
      case .nonNull(let inner):
        if value == .null {
          problems.append((path, "null for the non-null type \(type); a server would have made the parent null", place))
        } else {
          walk(inner, value, path: path, naming: field)
        }
      case _ where value == .null:
        return
      case .list(let item):
        guard case .array(let items) = value else {
          problems.append((path, "expected a list (\(type)), found \(OperationContext.kind(value))", place))
          return
        }
        for (index, element) in items.enumerated() {
          walk(item, element, path: "\(path)[\(index)]", naming: field)
        }
      case .scalar(let scalar):
        if let expected = OperationContext.scalarProblem(scalar.name, value) {
          problems.append((path, "expected \(expected), found \(OperationContext.kind(value))", place))
        }
      case .enumeration(let enumeration):
        let names = enumeration.values.map(\.name)
        guard case .string(let text) = value, names.contains(text) else {
          problems.append(
            (
              path,
              "expected one of \(enumeration.name)'s values (\(names.joined(separator: ", "))), found \(OperationContext.kind(value))",
              place
            ))
          return
        }
      case .object(let object):
        walkObject(object, value, path: path)
      case .abstract(let abstract):
        guard case .object(let members) = value else {
          problems.append(
            (path, "expected an object of type \(abstract.name), found \(OperationContext.kind(value))", place))
          return
        }
        let possible = document.schema.getPossibleTypes(abstractType: abstract)
        if case .string(let name)? = members["__typename"] {
          guard let object = possible.first(where: { $0.name == name }) else {
            let names = possible.map(\.name).sorted().joined(separator: ", ")
            problems.append(
              (
                "\(path).__typename", "\"\(name)\" is not a type of \(abstract.name) (its types are \(names))",
                document.place(of: abstract.name)
              ))
            return
          }
          walkObject(object, value, path: path)
        } else {
          // Without __typename the object may be any of the types: a key is a field of one of them.
          var fields: [String: GraphQLField] = [:]
          for object in possible { fields.merge(Self.fields(of: object)) { first, _ in first } }
          walkFields(of: abstract.name, fields: fields, value, path: path, typename: nil)
        }
      case .unknown:
        return
      }
    }
  }
#endif
