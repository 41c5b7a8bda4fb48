#if GraphQL
  import Doppel
  import Foundation
  import GraphQL

  extension OperationContext {
    /// What is wrong with `body` as the answer to this operation: a field the operation did not
    /// select, a selected field missing, `null` for a non-null type, a value of the wrong type or
    /// an enum value the schema does not have, a `__typename` that is not the object's type.
    func answerProblems(_ body: JSONValue) -> [(path: String, rule: String, place: String?)] {
      var problems: [(path: String, rule: String, place: String?)] = []
      guard case .object(let members) = body else {
        return [("$", "an answer is a JSON object with \"data\" and/or \"errors\"; found \(Self.kind(body))", nil)]
      }
      guard let data = members["data"], data != .null, let root = rootType else { return [] }
      walkObject(root, data, fields: collectFields(operation.selectionSet, on: root), path: "$.data", into: &problems)
      return problems
    }

    private func walkObject(
      _ type: GraphQLObjectType, _ value: JSONValue, fields: [(key: String, fields: [Field])], path: String,
      into problems: inout [(path: String, rule: String, place: String?)]
    ) {
      guard case .object(let members) = value else {
        problems.append(
          (path, "expected an object of type \(type.name), found \(Self.kind(value))", document.place(of: type.name)))
        return
      }
      let selected = Set(fields.map(\.key))
      for key in members.keys.sorted() where !selected.contains(key) {
        problems.append(
          ("\(path).\(key)", "the operation does not select \"\(key)\" on \(type.name); remove it from the answer", nil)
        )
      }
      for (key, nodes) in fields {
        guard let node = nodes.first else { continue }
        let name = node.name.value
        let here = "\(path).\(key)"
        guard let member = members[key] else {
          problems.append(
            (here, "the selected field \"\(key)\" is missing", document.place(of: "\(type.name).\(name)")))
          continue
        }
        if name == "__typename" {
          if member != .string(type.name) {
            problems.append(
              (here, "expected __typename \"\(type.name)\", found \(Self.kind(member))", document.place(of: type.name)))
          }
          continue
        }
        guard let definition = field(name, of: type) else { continue }
        walk(definition.type, member, nodes: nodes, path: here, naming: "\(type.name).\(name)", into: &problems)
      }
    }

    private func walk(
      _ type: GraphQLType, _ value: JSONValue, nodes: [Field], path: String, naming field: String,
      into problems: inout [(path: String, rule: String, place: String?)]
    ) {
      let place = document.place(of: field)
      switch TypeShape(type) {
      case .nonNull(let inner):
        if value == .null {
          problems.append((path, "null for the non-null type \(type); a server would have made the parent null", place))
        } else {
          walk(inner, value, nodes: nodes, path: path, naming: field, into: &problems)
        }
      case _ where value == .null:
        return
      case .list(let item):
        guard case .array(let items) = value else {
          problems.append((path, "expected a list (\(type)), found \(Self.kind(value))", place))
          return
        }
        for (index, element) in items.enumerated() {
          walk(item, element, nodes: nodes, path: "\(path)[\(index)]", naming: field, into: &problems)
        }
      case .scalar(let scalar):
        if let expected = Self.scalarProblem(scalar.name, value) {
          problems.append((path, "expected \(expected), found \(Self.kind(value))", place))
        }
      case .enumeration(let enumeration):
        let names = enumeration.values.map(\.name)
        guard case .string(let text) = value, names.contains(text) else {
          problems.append(
            (
              path,
              "expected one of \(enumeration.name)'s values (\(names.joined(separator: ", "))), found \(Self.kind(value))",
              place
            ))
          return
        }
      case .object(let object):
        walkObject(object, value, fields: collectSubfields(nodes, on: object), path: path, into: &problems)
      case .abstract(let abstract):
        guard case .object(let members) = value else {
          problems.append((path, "expected an object of type \(abstract.name), found \(Self.kind(value))", place))
          return
        }
        guard case .string(let name)? = members["__typename"] else { return }
        let possible = document.schema.getPossibleTypes(abstractType: abstract)
        guard let object = possible.first(where: { $0.name == name }) else {
          let names = possible.map(\.name).sorted().joined(separator: ", ")
          problems.append(
            (
              "\(path).__typename", "\"\(name)\" is not a type of \(abstract.name) (its types are \(names))",
              document.place(of: abstract.name)
            ))
          return
        }
        walkObject(object, value, fields: collectSubfields(nodes, on: object), path: path, into: &problems)
      case .unknown:
        return
      }
    }

    /// What a built-in scalar's value must be, when `value` is not one; custom scalars take anything.
    static func scalarProblem(_ scalar: String, _ value: JSONValue) -> String? {
      switch (scalar, value) {
      case ("Int", .number(let number)) where number.rounded() == number && abs(number) <= Double(Int32.max): nil
      case ("Int", _): "an Int (a whole number of 32 bits)"
      case ("Float", .number): nil
      case ("Float", _): "a Float"
      case ("String", .string): nil
      case ("String", _): "a String"
      case ("Boolean", .bool): nil
      case ("Boolean", _): "a Boolean"
      case ("ID", .string), ("ID", .number): nil
      case ("ID", _): "an ID (a string)"
      default: nil
      }
    }

    /// How a message names a JSON value: `the string "Ada"`, `the number 5`, `null`, `an object`.
    static func kind(_ value: JSONValue) -> String {
      switch value {
      case .null: "null"
      case .bool(let flag): flag ? "true" : "false"
      case .number: "the number \(value.description)"
      case .string(let text):
        "the string \(JSONValue.string(text.count > 40 ? text.prefix(37) + "…" : text).description)"
      case .array: "an array"
      case .object: "an object"
      }
    }
  }
#endif
