#if GraphQL
  import Doppel
  import Foundation
  import GraphQL
  @_spi(DoppelInternals) import DoppelToolkit

  /// A schema's introspection, as the `__schema` and `__type` fields answer it: every type,
  /// field, argument, enum value and directive in the order the schema defines them, as JSON
  /// values the mock answer completes along the operation's selection (so that aliases,
  /// fragments, directives and `__typename` work as anywhere else).
  ///
  /// A reference to a type (a field's `type`, `ofType`, an interface) holds its `kind` and `name`
  /// with the marker key ``reference``; the mock answer replaces it with the type's whole value
  /// when the selection asks for more.
  struct SchemaIntrospection: Sendable {
    /// Each named type's whole `__Type` value.
    let types: [String: JSONValue]
    /// The `__Schema` value.
    let schema: JSONValue
    /// The key that marks a reference to a named type (no GraphQL field can be named so).
    static let reference = "#reference"

    init(_ schema: GraphQLSchema) {
      var types: [String: JSONValue] = [:]
      var references: [JSONValue] = []
      for (name, type) in schema.typeMap {
        types[name] = Self.type(type, in: schema)
        references.append(Self.reference(to: type))
      }
      self.types = types
      func root(_ type: GraphQLObjectType?) -> JSONValue { type.map { Self.reference(to: $0) } ?? .null }
      self.schema = [
        "description": nil,
        "queryType": root(schema.queryType),
        "mutationType": root(schema.mutationType),
        "subscriptionType": root(schema.subscriptionType),
        "types": .array(references),
        "directives": .array(
          schema.directives.map { directive in
            [
              "name": .string(directive.name), "description": Self.text(directive.description),
              "isRepeatable": .bool(directive.isRepeatable),
              "locations": .array(directive.locations.map { .string($0.rawValue) }),
              "args": .array(
                directive.args.map {
                  Self.inputValue(
                    $0.name, $0.description, $0.type, $0.defaultValue, $0.deprecationReason)
                }),
            ]
          }),
      ]
    }

    private static func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

    private static func kind(_ type: GraphQLNamedType) -> String {
      switch type {
      case is GraphQLScalarType: "SCALAR"
      case is GraphQLObjectType: "OBJECT"
      case is GraphQLInterfaceType: "INTERFACE"
      case is GraphQLUnionType: "UNION"
      case is GraphQLEnumType: "ENUM"
      case is GraphQLInputObjectType: "INPUT_OBJECT"
      default: "SCALAR"
      }
    }

    static func reference(to type: GraphQLNamedType) -> JSONValue {
      ["kind": .string(kind(type)), "name": .string(type.name), "ofType": nil, reference: true]
    }

    /// A `__Type` for a field's or an argument's type: wrappers spelled out, the named type
    /// referred to.
    private static func typeReference(_ type: GraphQLType) -> JSONValue {
      switch type {
      case let nonNull as GraphQLNonNull: ["kind": "NON_NULL", "name": nil, "ofType": typeReference(nonNull.ofType)]
      case let list as GraphQLList: ["kind": "LIST", "name": nil, "ofType": typeReference(list.ofType)]
      case let named as GraphQLNamedType: reference(to: named)
      default: nil
      }
    }

    private static func inputValue(
      _ name: String, _ description: String?, _ type: GraphQLInputType, _ defaultValue: Map?,
      _ deprecationReason: String?
    ) -> JSONValue {
      [
        "name": .string(name), "description": text(description), "type": typeReference(type),
        "defaultValue": defaultValue.flatMap { value in value == .undefined ? nil : literal(value, type) }
          .map { .string($0) } ?? .null,
        "isDeprecated": .bool(deprecationReason != nil), "deprecationReason": text(deprecationReason),
      ]
    }

    /// A default value as GraphQL writes it (`10`, `"text"`, `CAT`, `[1, 2]`, `{species: CAT}`).
    static func literal(_ value: Map, _ type: GraphQLType) -> String {
      let inner = (type as? GraphQLNonNull)?.ofType ?? type
      switch value {
      case .undefined, .null: return "null"
      case .bool(let flag): return flag ? "true" : "false"
      case .number(let number):
        if let scalar = inner as? GraphQLScalarType, scalar.name == "Int" || scalar.name == "ID" {
          return String(Int(number.doubleValue))
        }
        let double = number.doubleValue
        return double.rounded() == double && abs(double) < 1e15 ? String(Int(double)) : String(double)
      case .string(let text):
        if inner is GraphQLEnumType { return text }
        return JSONValue.string(text).description
      case .array(let items):
        let item = (inner as? GraphQLList)?.ofType ?? inner
        return "[" + items.map { literal($0, item) }.joined(separator: ", ") + "]"
      case .dictionary(let members):
        let fields = (inner as? GraphQLInputObjectType).flatMap { try? $0.fields() }
        return "{"
          + members.map { key, member in
            "\(key): " + literal(member, fields?[key]?.type ?? GraphQLString)
          }.joined(separator: ", ") + "}"
      }
    }

    private static func fields(_ map: GraphQLFieldMap) -> JSONValue {
      .array(
        map.map { name, field in
          [
            "name": .string(name), "description": text(field.description),
            "args": .array(
              field.args.map {
                inputValue(
                  $0.key, $0.value.description, $0.value.type, $0.value.defaultValue, $0.value.deprecationReason)
              }),
            "type": typeReference(field.type),
            "isDeprecated": .bool(field.deprecationReason != nil), "deprecationReason": text(field.deprecationReason),
          ]
        })
    }

    private static func type(_ type: GraphQLNamedType, in schema: GraphQLSchema) -> JSONValue {
      var value: [String: JSONValue] = [
        "kind": .string(kind(type)), "name": .string(type.name), "description": nil, "specifiedByURL": nil,
        "fields": nil, "interfaces": nil, "possibleTypes": nil, "enumValues": nil, "inputFields": nil,
        "isOneOf": nil, "ofType": nil,
      ]
      switch type {
      case let scalar as GraphQLScalarType:
        value["description"] = text(scalar.description)
        value["specifiedByURL"] = text(scalar.specifiedByURL)
      case let object as GraphQLObjectType:
        value["description"] = text(object.description)
        value["fields"] = fields((try? object.fields()) ?? [:])
        value["interfaces"] = .array(((try? object.interfaces()) ?? []).map { reference(to: $0) })
      case let interface as GraphQLInterfaceType:
        value["description"] = text(interface.description)
        value["fields"] = fields((try? interface.fields()) ?? [:])
        value["interfaces"] = .array(((try? interface.interfaces()) ?? []).map { reference(to: $0) })
        value["possibleTypes"] = .array(schema.getPossibleTypes(abstractType: interface).map { reference(to: $0) })
      case let union as GraphQLUnionType:
        value["description"] = text(union.description)
        value["possibleTypes"] = .array(schema.getPossibleTypes(abstractType: union).map { reference(to: $0) })
      case let enumeration as GraphQLEnumType:
        value["description"] = text(enumeration.description)
        value["enumValues"] = .array(
          enumeration.values.map {
            [
              "name": .string($0.name), "description": text($0.description), "isDeprecated": .bool($0.isDeprecated),
              "deprecationReason": text($0.deprecationReason),
            ]
          })
      case let input as GraphQLInputObjectType:
        value["description"] = text(input.description)
        value["isOneOf"] = .bool(input.isOneOf)
        value["inputFields"] = .array(
          ((try? input.fields()) ?? [:]).map {
            inputValue($0.key, $0.value.description, $0.value.type, $0.value.defaultValue, $0.value.deprecationReason)
          })
      default:
        break
      }
      return .object(value)
    }
  }

  extension GraphQLSchemaDocument {
    /// The schema's introspection, made the first time an operation asks for it.
    var introspection: SchemaIntrospection {
      introspectionCache.withLock { cached in
        if let cached { return cached }
        let made = SchemaIntrospection(schema)
        cached = made
        return made
      }
    }
  }
#endif
