@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Matcher {
  /// Requires a GraphQL request for the operation named `operation`, with `variables` among the
  /// variables it sends.
  ///
  /// The operation is read from what clients send: a JSON body (`{"query": …, "operationName": …,
  /// "variables": …}`, usually a `POST`), query items (`?query=…&operationName=…&variables=…`, a
  /// `GET`, read as `application/x-www-form-urlencoded`: `+` is a space and `%2B` a plus sign), or
  /// an `application/graphql` body. Without an `operationName`, the name is the first
  /// `query`, `mutation` or `subscription` name in the document. A persisted query that sends its
  /// `operationName` matches by that name too.
  ///
  /// ```swift
  /// backend.stub(.graphQL(operation: "Breeds", variables: ["page": 2]), .json(["data": ["breeds": []]]))
  /// ```
  ///
  /// - Parameters:
  ///   - operation: the operation's name.
  ///   - variables: a JSON object the request's variables must contain (extra variables, and extra
  ///     keys in nested objects, are allowed); `nil` for any variables.
  ///   - exactVariables: require the request's variables to equal `variables` instead (no variables
  ///     sent counts as `{}`).
  public static func graphQL(operation: String, variables: JSONValue? = nil, exactVariables: Bool = false) -> Matcher {
    graphQLMatcher(GraphQLPattern(operation: operation, variables: variables, exactVariables: exactVariables))
  }

  /// ``graphQL(operation:variables:exactVariables:)`` with variables given as any `Encodable`
  /// value, such as a dictionary or a struct, encoded with `encoder`.
  public static func graphQL<Variables: Encodable>(
    operation: String, variables: Variables, exactVariables: Bool = false, encoder: JSONEncoder = JSONEncoder()
  ) -> Matcher {
    do {
      let json = try JSONValue(encoding: variables, encoder: encoder)
      // Straight to the pattern: `graphQL(operation:variables:)` with a `JSONValue` would pick
      // this generic overload again.
      return graphQLMatcher(GraphQLPattern(operation: operation, variables: json, exactVariables: exactVariables))
    } catch {
      return Matcher(
        .invalid(
          DoppelError.invalidStub(
            "Could not encode \(Variables.self) as the variables of .graphQL(operation:): \(error).")))
    }
  }

  /// Requires a persisted GraphQL query: a request whose `extensions.persistedQuery.sha256Hash`
  /// is `persistedQueryHash` (in the JSON body, or the `extensions` query item of a `GET`), with
  /// `variables` among its variables (see ``graphQL(operation:variables:exactVariables:)``).
  public static func graphQL(
    persistedQueryHash: String, variables: JSONValue? = nil, exactVariables: Bool = false
  ) -> Matcher {
    graphQLMatcher(
      GraphQLPattern(persistedQueryHash: persistedQueryHash, variables: variables, exactVariables: exactVariables))
  }

  static package func graphQLMatcher(_ pattern: GraphQLPattern) -> Matcher {
    if let problem = pattern.problem { return Matcher(.invalid(problem)) }
    var parts: [Matcher] = []
    if let operation = pattern.operation {
      parts.append(
        Matcher(
          Condition(
            field: "graphql operation", expected: operation, summary: "GraphQL \(operation)",
            actual: { GraphQLRequest($0).map { $0.operation ?? "an anonymous operation" } ?? "not a GraphQL request" },
            passes: { GraphQLRequest($0)?.operation == operation })))
    }
    if let hash = pattern.persistedQueryHash {
      parts.append(
        Matcher(
          Condition(
            field: "graphql persisted query", expected: hash, summary: "GraphQL persisted query \(hash)",
            actual: { request in
              guard let graphQL = GraphQLRequest(request) else { return "not a GraphQL request" }
              return graphQL.persistedQueryHash ?? "no persisted query hash"
            },
            passes: { GraphQLRequest($0)?.persistedQueryHash == hash })))
    }
    if pattern.variables != nil || pattern.exactVariables {
      let wanted = pattern.variables ?? .object([:])
      let exact = pattern.exactVariables
      let shown = (exact ? "" : "containing ") + wanted.description
      parts.append(
        Matcher(
          Condition(
            field: "graphql variables", expected: shown, summary: "variables \(shown)",
            actual: {
              GraphQLRequest($0).map { ($0.variables ?? .object([:])).description } ?? "not a GraphQL request"
            },
            passes: { request in
              guard let graphQL = GraphQLRequest(request) else { return false }
              let sent = graphQL.variables ?? .object([:])
              return exact ? sent == wanted : sent.contains(wanted)
            })))
    }
    // The first part carries the whole pattern for the manifest; the others are said by it.
    parts[0] = parts[0].spelled(.graphQL(pattern))
    for index in parts.indices.dropFirst() { parts[index] = parts[index].spelled(.saidByPrevious) }
    return parts.count == 1 ? parts[0] : Matcher(.all(parts))
  }
}

extension Matcher {
  /// The GraphQL operations this matcher requires, anywhere in it, for the near-miss report.
  var graphQLPatterns: [GraphQLPattern] {
    switch node {
    case .condition:
      if case .graphQL(let pattern)? = spelling { return [pattern] }
      return []
    case .all(let matchers), .any(let matchers): return matchers.flatMap(\.graphQLPatterns)
    case .not: return []
    }
  }
}

/// What a GraphQL matcher requires, as the manifest's `graphql` object says it.
package struct GraphQLPattern: Sendable {
  package var operation: String?
  package var persistedQueryHash: String?
  package var variables: JSONValue?
  package var exactVariables = false

  package init(
    operation: String? = nil, persistedQueryHash: String? = nil, variables: JSONValue? = nil,
    exactVariables: Bool = false
  ) {
    self.operation = operation
    self.persistedQueryHash = persistedQueryHash
    self.variables = variables
    self.exactVariables = exactVariables
  }

  /// Why the pattern can match nothing, if it cannot.
  var problem: DoppelError? {
    if operation == nil && persistedQueryHash == nil {
      return DoppelError.invalidStub(
        "A GraphQL matcher needs an operation name or a persisted query hash. Use .graphQL(operation: \"Breeds\") or .graphQL(persistedQueryHash: …)."
      )
    }
    if operation?.isEmpty == true {
      return DoppelError.invalidStub(
        "A GraphQL matcher's operation name is empty. Give the operation's name, such as \"Breeds\".")
    }
    if persistedQueryHash?.isEmpty == true {
      return DoppelError.invalidStub(
        "A GraphQL matcher's persisted query hash is empty. Give the query's SHA-256 hash, as sent in extensions.persistedQuery.sha256Hash."
      )
    }
    guard let variables else { return nil }
    guard case .object = variables else {
      return DoppelError.invalidStub(
        "The variables of a GraphQL matcher must be a JSON object, such as [\"page\": 2]; found \(variables)."
      )
    }
    return nil
  }

  /// How the near-miss report lists it: `Breeds`, `Breeds with variables containing {"page":2}`.
  var summary: String {
    var parts: [String] = []
    if let operation { parts.append(operation) }
    if let persistedQueryHash { parts.append("persisted query \(persistedQueryHash)") }
    var text = parts.joined(separator: ", ")
    if variables != nil || exactVariables {
      text += " with variables \(exactVariables ? "" : "containing ")\((variables ?? .object([:])).description)"
    }
    return text
  }

  /// The pattern as a manifest's `graphql` object.
  package var json: JSONValue {
    var object: [String: JSONValue] = [:]
    if let operation { object["operation"] = .string(operation) }
    if let persistedQueryHash { object["persistedQueryHash"] = .string(persistedQueryHash) }
    if let variables { object["variables"] = variables }
    if exactVariables { object["exactVariables"] = true }
    return .object(object)
  }
}
