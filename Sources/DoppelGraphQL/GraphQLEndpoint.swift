#if GraphQL
  import Doppel
  import Foundation
  import GraphQL
  @_spi(DoppelInternals) import DoppelToolkit

  /// A schema served at one endpoint: reads GraphQL requests, keeps the persisted queries (Apollo's
  /// APQ) clients registered, answers with mock data, and finds what is wrong with operations
  /// and with the answers other stubs give.
  final class GraphQLEndpoint: Sendable {
    let document: GraphQLSchemaDocument
    let mocks: GraphQLMocks
    /// Queries registered by hash (`extensions.persistedQuery.sha256Hash`), lower-case hex.
    private let persisted = Locked(PersistedQueries())

    init(document: GraphQLSchemaDocument, mocks: GraphQLMocks) {
      self.document = document
      self.mocks = mocks
    }

    /// What a request comes to.
    enum Resolution {
      /// Not a GraphQL request at all.
      case notGraphQL
      /// An answer without running anything (a persisted query that is not known, a wrong hash).
      case refused(message: String, code: String, status: Int)
      /// An operation the schema contradicts: the errors of the answer.
      case invalid(operation: String?, [GraphQLError])
      case valid(OperationContext)
    }

    func resolve(_ request: Request, registering: Bool) -> Resolution {
      guard let graphQL = GraphQLRequest(request) else { return .notGraphQL }
      var text = graphQL.document
      if let hash = graphQL.persistedQueryHash?.lowercased() {
        if let sent = text {
          guard SHA256.hex(Array(sent.utf8)) == hash else {
            return .refused(message: "provided sha does not match query", code: "BAD_USER_INPUT", status: 400)
          }
          if registering { persisted.withLock { $0.register(sent, hash: hash) } }
        } else {
          guard let known = persisted.withLock({ $0[hash] }) else {
            return .refused(message: "PersistedQueryNotFound", code: "PERSISTED_QUERY_NOT_FOUND", status: 200)
          }
          text = known
        }
      }
      guard let text else {
        return .invalid(
          operation: graphQL.operation,
          [GraphQLError(message: "The request has no query. Send the operation's document as \"query\".")])
      }
      guard QueryLimits.nestingWithinLimit(text) != nil else {
        return .invalid(
          operation: graphQL.operation,
          [
            GraphQLError(
              message:
                "The query nests braces, parentheses or brackets more than \(QueryLimits.nesting) deep, more than Doppel reads. Select less deeply."
            )
          ])
      }
      let parsed: Document
      do {
        parsed = try parse(source: Source(body: text, name: "GraphQL request"))
      } catch {
        return .invalid(operation: graphQL.operation, [error as? GraphQLError ?? GraphQLError(message: "\(error)")])
      }
      if let problem = QueryLimits.firstProblem(in: parsed, schema: document.schema) {
        return .invalid(operation: graphQL.operation, [problem])
      }
      let errors = validationErrors(parsed, text: text)
      guard errors.isEmpty else { return .invalid(operation: graphQL.operation, errors) }
      guard
        let context = OperationContext(
          document: document, parsed: parsed, name: graphQL.operation, variables: graphQL.variables)
      else {
        let message =
          graphQL.operation.map { "Unknown operation named \"\($0)\"." }
          ?? "Must provide operation name if query contains multiple operations."
        return .invalid(operation: graphQL.operation, [GraphQLError(message: message)])
      }
      switch VariableCoercion(schema: document.schema).coerce(
        context.operation.variableDefinitions, operation: context.operation.name?.value, given: graphQL.variables)
      {
      case .failure(let failure):
        return .invalid(operation: graphQL.operation, failure.errors)
      case .success(let values):
        context.variables = values
      }
      return .valid(context)
    }

    /// GraphQL's validation rules over `parsed`, in time linear in the query's length.
    ///
    /// GraphQL finds the line and column of each error from the start of the text, so a query
    /// with thousands of errors would take time in proportion to their number times its length.
    /// The rules run first over the document parsed without positions (errors cost nothing to
    /// make); only when at most ``QueryLimits/errors`` are found do they run again with
    /// positions. Beyond that, the first errors are listed without positions, and a last one says
    /// that validation stopped, as GraphQL.js says it.
    private func validationErrors(_ parsed: Document, text: String) -> [GraphQLError] {
      guard let bare = try? parse(source: Source(body: text, name: "GraphQL request"), noLocation: true) else {
        return validate(schema: document.schema, ast: parsed)
      }
      let quick = validate(schema: document.schema, ast: bare)
      if quick.isEmpty { return [] }
      if quick.count <= QueryLimits.errors { return validate(schema: document.schema, ast: parsed) }
      return quick.prefix(QueryLimits.errors).map { GraphQLError(message: $0.message, locations: []) } + [
        GraphQLError(message: "Too many validation errors, error limit reached. Validation aborted.", locations: [])
      ]
    }

    /// The answer to `request`, as a GraphQL server over HTTP gives it. Errors of the request
    /// (it cannot be parsed or the schema contradicts it) answer `400` with
    /// `application/graphql-response+json` when the request accepts that type, else `200` with
    /// `application/json`, as the GraphQL-over-HTTP specification says.
    func response(for request: Request) -> Response {
      let modern = request.headers.values(for: "Accept").contains { $0.contains("application/graphql-response+json") }
      let contentType = modern ? "application/graphql-response+json" : "application/json"
      func answer(_ body: OrderedJSON, status: Int) -> Response {
        .data(Data(body.text.utf8), status: status, contentType: contentType)
      }
      switch resolve(request, registering: true) {
      case .notGraphQL:
        return answer(
          Self.errors([
            (message: "Not a GraphQL request: send {\"query\": …} as JSON, or ?query=… on a GET.", locations: [])
          ]),
          status: 400)
      case .refused(let message, let code, let status):
        return answer(
          .object([
            (
              "errors",
              .list([.object([("message", .value(.string(message))), ("extensions", .value(["code": .string(code)]))])])
            )
          ]), status: status)
      case .invalid(_, let errors):
        let entries = errors.map { (message: $0.message, locations: $0.locations) }
        return answer(Self.errors(entries), status: modern ? 400 : 200)
      case .valid(let context):
        if context.operation.operation == .mutation, request.method == .get {
          return answer(
            Self.errors([(message: "A mutation cannot be sent with GET; send it with POST.", locations: [])]),
            status: 405)
        }
        return answer(MockExecution(context: context, mocks: mocks).answer(), status: 200)
      }
    }

    private static func errors(_ entries: [(message: String, locations: [SourceLocation])]) -> OrderedJSON {
      .object([
        (
          "errors",
          .list(
            entries.map { entry in
              var members: [(key: String, value: OrderedJSON)] = [("message", .value(.string(entry.message)))]
              if !entry.locations.isEmpty {
                members.append(
                  (
                    "locations",
                    .list(
                      entry.locations.map {
                        .object([
                          ("line", .value(.number(Double($0.line)))), ("column", .value(.number(Double($0.column)))),
                        ])
                      })
                  ))
              }
              return .object(members)
            })
        )
      ])
    }

    /// What is wrong with the operation of an exchange and, when another stub answered it, with
    /// the answer.
    func violations(request: Request, answeredBy ours: Bool, status: Int?, body: Data) -> [GraphQLViolation] {
      switch resolve(request, registering: false) {
      case .notGraphQL, .refused:
        return []
      case .invalid(let operation, let errors):
        let text = GraphQLRequest(request)?.document
        return errors.map { error in
          let position = error.locations.first.map { "line \($0.line), column \($0.column)" } ?? "line 1, column 1"
          // A variable used where another type is expected: its locations are the definition,
          // then the use, an argument whose field the schema defines.
          let usage = error.locations.count > 1 ? error.locations.last : nil
          return GraphQLViolation(
            operation: operation, operationPosition: position, jsonPath: nil, rule: error.message,
            schemaPlace: schemaPlace(in: error.message)
              ?? usage.flatMap { location in text.flatMap { fieldPlace(ofArgumentAt: location, in: $0) } })
        }
      case .valid(let context):
        guard !ours, let status, (200..<300).contains(status) else { return [] }
        let name = context.operation.name?.value
        guard let answer = try? JSONValue(parsing: body) else {
          return [
            GraphQLViolation(
              operation: name, operationPosition: nil, jsonPath: "$", rule: "the answer is not JSON", schemaPlace: nil)
          ]
        }
        return context.answerProblems(answer).map {
          GraphQLViolation(
            operation: name, operationPosition: nil, jsonPath: $0.path, rule: $0.rule, schemaPlace: $0.place)
        }
      }
    }

    /// Where the schema defines the field whose argument is at `location` of the operation `text`
    /// (`friends(first: $first)`: the field `friends`), when exactly one type of the schema has a
    /// field of that name.
    private func fieldPlace(ofArgumentAt location: SourceLocation, in text: String) -> String? {
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      guard location.line >= 1, location.line <= lines.count else { return nil }
      var before = lines[..<(location.line - 1)].map { String($0) + "\n" }.joined()
      before += String(lines[location.line - 1].unicodeScalars.prefix(max(location.column - 1, 0)))
      // Back from the use: `name:` of the argument, then the `(` that opens the field's arguments
      // (an input object's `{` first means the use is inside one: no single field to name).
      var scalars = Array(before.unicodeScalars)
      func isName(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
      }
      var depth = 0
      while let last = scalars.last {
        if last == ")" || last == "]" {
          depth += 1
        } else if last == "[" {
          // The use is inside a list (`ids: [$a, $b]`), or a list closed before it.
          if depth > 0 { depth -= 1 }
        } else if last == "{" {
          return nil
        } else if last == "(" {
          if depth == 0 { break }
          depth -= 1
        }
        scalars.removeLast()
      }
      guard scalars.last == "(" else { return nil }
      scalars.removeLast()
      while let last = scalars.last, last == " " || last == "\n" || last == "\t" { scalars.removeLast() }
      var field = ""
      while let last = scalars.last, isName(last) {
        field = String(last) + field
        scalars.removeLast()
      }
      guard !field.isEmpty else { return nil }
      let owners = document.lines.keys.filter {
        $0.hasSuffix(".\(field)") && !$0.dropLast(field.count + 1).contains(".")
      }
      guard owners.count == 1, let owner = owners.first else { return nil }
      return document.place(of: owner)
    }

    /// Where the schema defines what a validation message names: the field (`"User.friends"`, or
    /// `"friends"` on type `"User"`) when it has one, else the first type named.
    private func schemaPlace(in message: String) -> String? {
      let quoted = message.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
        .filter { $0.offset % 2 == 1 }.map { String($0.element) }
      var fields = quoted.filter { $0.contains(".") }
      for (index, word) in quoted.enumerated() where index + 1 < quoted.count {
        fields.append("\(quoted[index + 1]).\(word)")
      }
      for name in fields + quoted {
        if let place = document.place(of: name) { return place }
      }
      return nil
    }
  }
#endif
