#if GraphQL
  import GraphQL

  extension QueryLimits {
    /// The most directives one location (a field, a fragment spread, an operation, a variable)
    /// may carry. The specification allows a non-repeatable directive once per location; a
    /// repeatable one may repeat, up to this bound.
    static let directivesPerLocation = 32
    /// The most aliases one document may give (`first: user(id: 1) second: user(id: 2)`).
    static let aliases = 1_000
    /// The most fields, fragment spreads and inline fragments one document may select.
    static let selections = 10_000
    /// The most operations and fragments one document may define.
    static let definitions = 1_000
    /// The most validation errors one answer lists (GraphQL.js stops at 100): the rest are
    /// summed up in one error.
    static let errors = 20

    /// The first problem of `document` that one linear pass finds before GraphQL's validation
    /// rules run: a directive that is not repeatable used twice at one location, an argument or
    /// an input field given twice (the specification's rules, with its messages), or more
    /// directives, aliases, selections or definitions than the bounds above. `nil` when there is
    /// none.
    ///
    /// Some validation rules cost time in proportion to the errors they find times the length
    /// of the query (each error's line and column is found from the start of the text): a query
    /// that repeats one mistake thousands of times would take minutes. This pass refuses such a
    /// query at its first repeat, and its bounds keep what remains linear.
    static func firstProblem(in document: Document, schema: GraphQLSchema) -> GraphQLError? {
      var pass = DocumentPass(schema: schema)
      return pass.check(document)
    }
  }

  /// One walk over an executable document, counting what ``QueryLimits`` bounds. Its recursion is
  /// as deep as the document's nesting, which ``QueryLimits/nesting`` bounded before parsing.
  private struct DocumentPass {
    let schema: GraphQLSchema
    var aliases = 0
    var selections = 0

    init(schema: GraphQLSchema) { self.schema = schema }

    static func location(_ node: Location?) -> [SourceLocation] {
      node.map { [SourceLocation(line: $0.startToken.line, column: $0.startToken.column)] } ?? []
    }

    mutating func check(_ document: Document) -> GraphQLError? {
      if document.definitions.count > QueryLimits.definitions {
        return GraphQLError(
          message:
            "The document defines more than \(QueryLimits.definitions) operations and fragments, more than Doppel reads in one request. Send only the operation and the fragments it uses.",
          locations: Self.location(document.definitions[QueryLimits.definitions].loc))
      }
      for definition in document.definitions {
        let problem: GraphQLError?
        switch definition {
        case let operation as OperationDefinition:
          problem =
            directives(operation.directives) ?? variables(operation.variableDefinitions)
            ?? selectionSet(operation.selectionSet)
        case let fragment as FragmentDefinition:
          problem = directives(fragment.directives) ?? selectionSet(fragment.selectionSet)
        default:
          problem = nil
        }
        if let problem { return problem }
      }
      return nil
    }

    private func variables(_ definitions: [VariableDefinition]) -> GraphQLError? {
      for definition in definitions {
        if let problem = directives(definition.directives) ?? definition.defaultValue.flatMap(value) {
          return problem
        }
      }
      return nil
    }

    private mutating func selectionSet(_ set: SelectionSet) -> GraphQLError? {
      for selection in set.selections {
        selections += 1
        if selections > QueryLimits.selections {
          return GraphQLError(
            message:
              "The document selects more than \(QueryLimits.selections) fields and fragments, more than Doppel answers in one request. Select fewer fields.",
            locations: Self.location(selection.loc))
        }
        let problem: GraphQLError?
        switch selection {
        case let field as Field:
          if let alias = field.alias {
            aliases += 1
            if aliases > QueryLimits.aliases {
              return GraphQLError(
                message:
                  "The document gives more than \(QueryLimits.aliases) aliases, more than Doppel answers in one request. Use fewer aliases.",
                locations: Self.location(alias.loc))
            }
          }
          problem =
            arguments(field.arguments) ?? directives(field.directives)
            ?? field.selectionSet.flatMap { selectionSet($0) }
        case let spread as FragmentSpread:
          problem = directives(spread.directives)
        case let inline as InlineFragment:
          problem = directives(inline.directives) ?? selectionSet(inline.selectionSet)
        default:
          problem = nil
        }
        if let problem { return problem }
      }
      return nil
    }

    /// UniqueDirectivesPerLocation, with the bound on repeatable directives.
    private func directives(_ directives: [Directive]) -> GraphQLError? {
      var seen: [String: Directive] = [:]
      for (index, directive) in directives.enumerated() {
        if index == QueryLimits.directivesPerLocation {
          return GraphQLError(
            message:
              "More than \(QueryLimits.directivesPerLocation) directives at one location, more than Doppel reads. Give each directive once.",
            locations: Self.location(directive.loc))
        }
        let name = directive.name.value
        if let first = seen[name], !(schema.getDirective(name: name)?.isRepeatable ?? false) {
          return GraphQLError(
            message: "The directive \"@\(name)\" can only be used once at this location.",
            locations: Self.location(first.loc) + Self.location(directive.loc))
        }
        seen[name] = directive
        if let problem = arguments(directive.arguments) { return problem }
      }
      return nil
    }

    /// UniqueArgumentNames, and the values given.
    private func arguments(_ arguments: [Argument]) -> GraphQLError? {
      var seen: [String: Argument] = [:]
      for argument in arguments {
        let name = argument.name.value
        if let first = seen[name] {
          return GraphQLError(
            message: "There can be only one argument named \"\(name)\".",
            locations: Self.location(first.name.loc) + Self.location(argument.name.loc))
        }
        seen[name] = argument
        if let problem = value(argument.value) { return problem }
      }
      return nil
    }

    /// UniqueInputFieldNames, through lists and input objects.
    private func value(_ value: Value) -> GraphQLError? {
      switch value {
      case let list as ListValue:
        for item in list.values {
          if let problem = self.value(item) { return problem }
        }
      case let object as ObjectValue:
        var seen: [String: ObjectField] = [:]
        for field in object.fields {
          let name = field.name.value
          if let first = seen[name] {
            return GraphQLError(
              message: "There can be only one input field named \"\(name)\".",
              locations: Self.location(first.name.loc) + Self.location(field.name.loc))
          }
          seen[name] = field
          if let problem = self.value(field.value) { return problem }
        }
      default:
        break
      }
      return nil
    }
  }
#endif
