#if GraphQL
  import Doppel
  import Foundation
  import GraphQL

  /// One operation of a request, parsed and checked against the schema: what the mock answer and
  /// the answer checks walk. Made and used by one request on one thread.
  final class OperationContext {
    let document: GraphQLSchemaDocument
    let operation: OperationDefinition
    /// The request's variables, coerced to the types the operation declares (defaults added).
    var variables: [String: JSONValue]
    private let fragments: [String: FragmentDefinition]
    private var fieldMaps: [String: GraphQLFieldMap] = [:]

    /// The operation named `name` (or the only one) of `parsed`.
    init?(document: GraphQLSchemaDocument, parsed: Document, name: String?, variables: JSONValue?) {
      var operations: [OperationDefinition] = []
      var fragments: [String: FragmentDefinition] = [:]
      for definition in parsed.definitions {
        if let operation = definition as? OperationDefinition { operations.append(operation) }
        if let fragment = definition as? FragmentDefinition { fragments[fragment.name.value] = fragment }
      }
      let chosen =
        name.flatMap { name in operations.first { $0.name?.value == name } }
        ?? (operations.count == 1 ? operations.first : nil)
      guard let chosen else { return nil }
      self.document = document
      self.operation = chosen
      self.fragments = fragments
      if case .object(let values)? = variables { self.variables = values } else { self.variables = [:] }
    }

    /// The operation's root type: `Query`, `Mutation` or `Subscription`.
    var rootType: GraphQLObjectType? {
      switch operation.operation {
      case .query: document.schema.queryType
      case .mutation: document.schema.mutationType
      case .subscription: document.schema.subscriptionType
      }
    }

    /// The fields `selectionSet` asks of an object of type `type`, by response key, in order:
    /// fragments whose type condition `type` meets are merged in, `@skip` and `@include` applied.
    func collectFields(_ selectionSet: SelectionSet, on type: GraphQLObjectType) -> [(key: String, fields: [Field])] {
      var keys: [String] = []
      var grouped: [String: [Field]] = [:]
      var visited: Set<String> = []
      func collect(_ selectionSet: SelectionSet) {
        for selection in selectionSet.selections {
          switch selection {
          case let field as Field:
            guard included(field.directives) else { continue }
            let key = field.alias?.value ?? field.name.value
            if grouped[key] == nil { keys.append(key) }
            grouped[key, default: []].append(field)
          case let spread as FragmentSpread:
            guard included(spread.directives), visited.insert(spread.name.value).inserted,
              let fragment = fragments[spread.name.value], applies(fragment.typeCondition.name.value, to: type)
            else { continue }
            collect(fragment.selectionSet)
          case let inline as InlineFragment:
            guard included(inline.directives) else { continue }
            if let condition = inline.typeCondition, !applies(condition.name.value, to: type) { continue }
            collect(inline.selectionSet)
          default:
            continue
          }
        }
      }
      collect(selectionSet)
      return keys.map { ($0, grouped[$0] ?? []) }
    }

    /// The sub-selections of `fields` (one response key), for an object of type `type`.
    ///
    /// A field written once and reached through several spreads of one fragment is kept once (by
    /// its place in the document): otherwise fragments that each spread the next one twice would
    /// double the fields at every level, and a query of a few lines would take exponential time.
    func collectSubfields(_ fields: [Field], on type: GraphQLObjectType) -> [(key: String, fields: [Field])] {
      var keys: [String] = []
      var grouped: [String: [Field]] = [:]
      var seen: Set<Int> = []
      for field in fields {
        guard let selectionSet = field.selectionSet else { continue }
        for (key, more) in collectFields(selectionSet, on: type) {
          if grouped[key] == nil { keys.append(key) }
          for node in more where node.loc.map({ seen.insert($0.start).inserted }) ?? true {
            grouped[key, default: []].append(node)
          }
        }
      }
      return keys.map { ($0, grouped[$0] ?? []) }
    }

    private func applies(_ condition: String, to type: GraphQLObjectType) -> Bool {
      if condition == type.name { return true }
      guard let abstract = document.schema.getType(name: condition) as? GraphQLAbstractType else { return false }
      return document.schema.isSubType(abstractType: abstract, maybeSubType: type)
    }

    private func included(_ directives: [Directive]) -> Bool {
      for directive in directives where directive.name.value == "skip" || directive.name.value == "include" {
        let condition = directive.arguments.first { $0.name.value == "if" }.map { value(of: $0.value) }
        let flag = condition == .bool(true)
        if directive.name.value == "skip" ? flag : !flag { return false }
      }
      return true
    }

    /// The field `name` of `type`, with its type (`__typename` is a `String!`).
    func field(_ name: String, of type: GraphQLObjectType) -> GraphQLField? {
      if fieldMaps[type.name] == nil { fieldMaps[type.name] = (try? type.fields()) ?? [:] }
      return fieldMaps[type.name]?[name]
    }

    /// The arguments `field` is given, variables filled in and defaults added, as a JSON object.
    func arguments(of field: Field, definition: GraphQLField) -> JSONValue {
      var values: [String: JSONValue] = [:]
      for (name, argument) in definition.args {
        if let given = field.arguments.first(where: { $0.name.value == name }) {
          values[name] = value(of: given.value)
        } else if let fallback = argument.defaultValue {
          values[name] = Self.json(fallback)
        }
      }
      return .object(values)
    }

    /// A literal or variable of the operation as JSON.
    func value(of node: Value) -> JSONValue {
      switch node {
      case let variable as Variable: return variables[variable.name.value] ?? .null
      case let number as IntValue: return .number(Double(number.value) ?? 0)
      case let number as FloatValue: return .number(Double(number.value) ?? 0)
      case let text as StringValue: return .string(text.value)
      case let flag as BooleanValue: return .bool(flag.value)
      case let name as EnumValue: return .string(name.value)
      case let list as ListValue: return .array(list.values.map(value(of:)))
      case let object as ObjectValue:
        return .object(Dictionary(object.fields.map { ($0.name.value, value(of: $0.value)) }) { first, _ in first })
      default: return .null
      }
    }

    /// A schema's default value as JSON.
    static func json(_ map: Map) -> JSONValue {
      switch map {
      case .undefined, .null: return .null
      case .bool(let flag): return .bool(flag)
      case .number(let number): return .number(number.doubleValue)
      case .string(let text): return .string(text)
      case .array(let items): return .array(items.map(json))
      case .dictionary(let members):
        var object: [String: JSONValue] = [:]
        for (key, value) in members { object[key] = json(value) }
        return .object(object)
      }
    }
  }

  /// A type of the schema with its wrappers taken apart: `[User!]!` is non-null, list of
  /// non-null `User`.
  enum TypeShape {
    case nonNull(GraphQLOutputType)
    case list(GraphQLOutputType)
    case scalar(GraphQLScalarType)
    case enumeration(GraphQLEnumType)
    case object(GraphQLObjectType)
    case abstract(GraphQLAbstractType & GraphQLNamedType)
    case unknown

    init(_ type: GraphQLType) {
      switch type {
      case let wrapper as GraphQLNonNull: self = (wrapper.ofType as? GraphQLOutputType).map { .nonNull($0) } ?? .unknown
      case let wrapper as GraphQLList: self = (wrapper.ofType as? GraphQLOutputType).map { .list($0) } ?? .unknown
      case let scalar as GraphQLScalarType: self = .scalar(scalar)
      case let enumeration as GraphQLEnumType: self = .enumeration(enumeration)
      case let object as GraphQLObjectType: self = .object(object)
      case let interface as GraphQLInterfaceType: self = .abstract(interface)
      case let union as GraphQLUnionType: self = .abstract(union)
      default: self = .unknown
      }
    }
  }
#endif
