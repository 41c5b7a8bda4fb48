#if GraphQL
  import Doppel
  import Foundation
  import GraphQL

  /// The variables of a request coerced to the types the operation declares, as the
  /// specification's CoerceVariableValues says, with GraphQL.js's messages: a required variable
  /// left out, a `null` where the type forbids it, a value of another type, a variable the
  /// operation does not define. Any of these answers with `errors` and no `data`.
  struct VariableCoercion {
    let schema: GraphQLSchema
    /// The most errors one request's variables give.
    static let maximumErrors = 50

    /// The coerced values (defaults added), or the errors.
    func coerce(
      _ definitions: [VariableDefinition], operation: String?, given: JSONValue?
    ) -> Result<[String: JSONValue], Failure> {
      var values: [String: JSONValue] = [:]
      var errors: [GraphQLError] = []
      let inputs: [String: JSONValue]
      switch given {
      case .object(let members)?: inputs = members
      case nil, .null?: inputs = [:]
      case let other?:
        return .failure(
          Failure(errors: [
            GraphQLError(
              message: "Variables must be provided as an object, not \(other.description). Send \"variables\": {…}.",
              locations: [])
          ]))
      }
      let defined = Set(definitions.map(\.variable.name.value))
      for name in inputs.keys.sorted() where !defined.contains(name) {
        let owner = operation.map { "operation \"\($0)\"" } ?? "the operation"
        errors.append(
          GraphQLError(
            message: "Variable \"$\(name)\" is not defined by \(owner). Define it, or leave it out of \"variables\".",
            locations: []))
      }
      for definition in definitions {
        guard errors.count < Self.maximumErrors else { break }
        let name = definition.variable.name.value
        let location = definition.loc.map { [SourceLocation(line: $0.startToken.line, column: $0.startToken.column)] }
        guard let type = Self.inputType(definition.type, in: schema) else {
          // VariablesAreInputTypes reported it already.
          continue
        }
        let typeName = Self.name(of: definition.type)
        guard let value = inputs[name] else {
          if let fallback = definition.defaultValue {
            values[name] = Self.literal(fallback)
          } else if type is GraphQLNonNull {
            errors.append(
              GraphQLError(
                message: "Variable \"$\(name)\" of required type \"\(typeName)\" was not provided.",
                locations: location ?? []))
          }
          continue
        }
        if value == .null, type is GraphQLNonNull {
          errors.append(
            GraphQLError(
              message: "Variable \"$\(name)\" of non-null type \"\(typeName)\" must not be null.",
              locations: location ?? []))
          continue
        }
        var problems: [(path: String, value: JSONValue, message: String)] = []
        let coerced = coerce(value, to: type, path: "", problems: &problems)
        for problem in problems.prefix(Self.maximumErrors - errors.count) {
          let at = problem.path.isEmpty ? "" : " at \"\(name)\(problem.path)\""
          errors.append(
            GraphQLError(
              message: "Variable \"$\(name)\" got invalid value \(problem.value.description)\(at); \(problem.message)",
              locations: location ?? []))
        }
        values[name] = coerced
      }
      return errors.isEmpty ? .success(values) : .failure(Failure(errors: errors))
    }

    struct Failure: Error {
      let errors: [GraphQLError]
    }

    private func coerce(
      _ value: JSONValue, to type: GraphQLInputType, path: String,
      problems: inout [(path: String, value: JSONValue, message: String)]
    ) -> JSONValue {
      guard problems.count < Self.maximumErrors else { return value }
      if let nonNull = type as? GraphQLNonNull {
        guard let inner = nonNull.ofType as? GraphQLInputType else { return value }
        if value == .null {
          problems.append(
            (path, value, "Expected non-nullable type \"\(Self.name(of: type))\" not to be null."))
          return value
        }
        return coerce(value, to: inner, path: path, problems: &problems)
      }
      if value == .null { return .null }
      switch type {
      case let list as GraphQLList:
        guard let item = list.ofType as? GraphQLInputType else { return value }
        guard case .array(let items) = value else {
          // A single value where a list is expected is a list of that one value.
          return .array([coerce(value, to: item, path: path, problems: &problems)])
        }
        return .array(
          items.enumerated().map { index, element in
            coerce(element, to: item, path: "\(path)[\(index)]", problems: &problems)
          })
      case let object as GraphQLInputObjectType:
        guard case .object(let members) = value else {
          problems.append((path, value, "Expected type \"\(object.name)\" to be an object."))
          return value
        }
        let fields = (try? object.fields()) ?? [:]
        var coerced: [String: JSONValue] = [:]
        for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
          if let given = members[name] {
            coerced[name] = coerce(given, to: field.type, path: "\(path).\(name)", problems: &problems)
          } else if let fallback = field.defaultValue {
            coerced[name] = OperationContext.json(fallback)
          } else if field.type is GraphQLNonNull {
            problems.append(
              (
                path, value,
                "Field \"\(name)\" of required type \"\(Self.name(of: field.type))\" was not provided."
              ))
          }
        }
        for name in members.keys.sorted() where fields[name] == nil {
          problems.append((path, value, "Field \"\(name)\" is not defined by type \"\(object.name)\"."))
        }
        return .object(coerced)
      case let enumeration as GraphQLEnumType:
        guard case .string(let name) = value else {
          problems.append(
            (path, value, "Enum \"\(enumeration.name)\" cannot represent non-string value: \(value.description)."))
          return value
        }
        if !enumeration.values.contains(where: { $0.name == name }) {
          problems.append((path, value, "Value \"\(name)\" does not exist in \"\(enumeration.name)\" enum."))
        }
        return value
      case let scalar as GraphQLScalarType:
        if let message = Self.problem(of: value, for: scalar.name) { problems.append((path, value, message)) }
        return value
      default:
        return value
      }
    }

    /// Why `value` is not a value of the built-in scalar `name`; a custom scalar takes any value.
    private static func problem(of value: JSONValue, for name: String) -> String? {
      let text = value.description
      switch (name, value) {
      case ("Int", .number(let number)):
        guard number.rounded() == number else { return "Int cannot represent non-integer value: \(text)" }
        guard number >= -2_147_483_648, number <= 2_147_483_647 else {
          return "Int cannot represent non 32-bit signed integer value: \(text)"
        }
        return nil
      case ("Int", _): return "Int cannot represent non-integer value: \(text)"
      case ("Float", .number): return nil
      case ("Float", _): return "Float cannot represent non numeric value: \(text)"
      case ("String", .string): return nil
      case ("String", _): return "String cannot represent a non string value: \(text)"
      case ("Boolean", .bool): return nil
      case ("Boolean", _): return "Boolean cannot represent a non boolean value: \(text)"
      case ("ID", .string): return nil
      case ("ID", .number(let number)) where number.rounded() == number: return nil
      case ("ID", _): return "ID cannot represent value: \(text)"
      default: return nil
      }
    }

    /// The schema's type for a variable's declared type, when it is an input type.
    private static func inputType(_ type: GraphQL.`Type`, in schema: GraphQLSchema) -> GraphQLInputType? {
      switch type {
      case let named as NamedType: return schema.getType(name: named.name.value) as? GraphQLInputType
      case let list as ListType: return inputType(list.type, in: schema).map { GraphQLList($0) }
      case let nonNull as NonNullType:
        return inputType(nonNull.type, in: schema).flatMap { inner in
          (inner as? GraphQLNullableType).map { GraphQLNonNull($0) }
        }
      default: return nil
      }
    }

    /// `[ID!]!` for a declared type.
    static func name(of type: GraphQL.`Type`) -> String {
      switch type {
      case let named as NamedType: named.name.value
      case let list as ListType: "[\(name(of: list.type))]"
      case let nonNull as NonNullType: name(of: nonNull.type) + "!"
      default: "\(type)"
      }
    }

    /// `[ID!]!` for a schema's type.
    static func name(of type: GraphQLType) -> String {
      switch type {
      case let list as GraphQLList: "[\(name(of: list.ofType))]"
      case let nonNull as GraphQLNonNull: name(of: nonNull.ofType) + "!"
      case let named as GraphQLNamedType: named.name
      default: "\(type)"
      }
    }

    /// A default value written in the operation, as JSON.
    static func literal(_ node: Value) -> JSONValue {
      switch node {
      case let number as IntValue: .number(Double(number.value) ?? 0)
      case let number as FloatValue: .number(Double(number.value) ?? 0)
      case let text as StringValue: .string(text.value)
      case let flag as BooleanValue: .bool(flag.value)
      case let name as EnumValue: .string(name.value)
      case let list as ListValue: .array(list.values.map(literal))
      case let object as ObjectValue:
        .object(Dictionary(object.fields.map { ($0.name.value, literal($0.value)) }) { first, _ in first })
      default: .null
      }
    }
  }
#endif
