import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A manifest's `"graphql"`: a GraphQL schema to serve with made-up data, and the values that
/// override what is made up. The manifest reader checks its shape and that the schema file is in
/// the manifest's folder; `DoppelGraphQL` reads the schema and serves it (see ``ManifestExtension``).
package struct ManifestGraphQL: Sendable {
  /// A field override: a value, or an error the field answers with.
  package enum FieldAnswer: Sendable, Equatable {
    case json(JSONValue)
    case error(message: String, extensions: JSONValue?)
  }

  /// One override of `types`, `fields` or `scalars`: the name it is written under, its value, and
  /// where it is written (`doppel.json:9:7: graphql.types.User`) for errors found once the
  /// schema is read.
  package struct Override<Value: Sendable>: Sendable {
    package let name: String
    package let value: Value
    package let place: String
  }

  /// The schema file, inside the manifest's folder.
  package let schema: URL
  /// `doppel.json:4:15: graphql.schema`, for errors in the schema file.
  package let schemaPlace: String
  /// The requests to answer: `"endpoint"`, by default `/graphql` on any host.
  package let endpoint: Matcher
  /// `"endpoint"` as written, or `/graphql`.
  package let endpointText: String
  /// `"seed"`, else the manifest's `seed`.
  package let seed: UInt64?
  /// `"listLength"`.
  package let listLength: Int?
  package let types: [Override<JSONValue>]
  package let fields: [Override<FieldAnswer>]
  package let scalars: [Override<JSONValue>]
  /// Where `"graphql"` is written: the stub's declared location.
  package let location: CodeLocation
  /// `doppel.json:3:3: graphql`, for the error when nothing serves it.
  package let place: String

  /// Where a schema is served when the manifest names no `"endpoint"`.
  static let defaultEndpoint = "/graphql"
}

extension ManifestReader {
  /// `"graphql": {"schema": "schema.graphql", …}` at the top level or in a scenario.
  func graphQLSchema(_ node: PositionedJSON, _ path: ManifestKeyPath, seed: UInt64?) throws(ManifestProblem)
    -> ManifestGraphQL
  {
    let fields = try object(node, path, known: ManifestKeys.graphQLSchema, what: "a GraphQL schema to serve")
    guard let schemaNode = fields["schema"] else {
      throw error(
        node, path,
        "a served GraphQL schema needs \"schema\": the schema file relative to the manifest, such as \"schema.graphql\" (SDL) or \"schema.json\" (an introspection result)."
      )
    }
    let schemaPath = fields.path("schema")
    let relative = try nonEmptyString(schemaNode, schemaPath, what: "a schema file relative to the manifest")
    let schema = try containedFile(relative, schemaNode, schemaPath, instead: "remove \"graphql\"")
    var endpointText = ManifestGraphQL.defaultEndpoint
    var endpoint = Matcher.url(endpointText)
    if let node = fields["endpoint"] {
      endpointText = try nonEmptyString(node, fields.path("endpoint"), what: "a URL or a path such as \"/graphql\"")
      endpoint = .url(endpointText)
      if let problem = endpoint.problem { throw error(node, fields.path("endpoint"), problem.message) }
    }
    var ownSeed: UInt64?
    if let node = fields["seed"] {
      ownSeed = UInt64(
        try integer(node, fields.path("seed"), in: 0...Int.max, what: "a seed for the made-up data (0 or more)"))
    }
    var listLength: Int?
    if let node = fields["listLength"] {
      listLength = try integer(
        node, fields.path("listLength"), in: 0...1000, what: "how many items each list has (0 to 1000)")
    }
    let types = try overrides(fields, "types", what: "the fields an object type starts from (a JSON object)") {
      (node, path) throws(ManifestProblem) in
      guard case .object = node.value else {
        throw error(
          node, path, "expected the fields every object of this type starts from (a JSON object), found \(node.kind).")
      }
      return node.jsonValue
    }
    let answers = try overrides(fields, "fields", what: "a field's answer") { (node, path) throws(ManifestProblem) in
      try fieldAnswer(node, path)
    }
    let scalars = try overrides(fields, "scalars", what: "a scalar's value") { (node, _) throws(ManifestProblem) in
      node.jsonValue
    }
    return ManifestGraphQL(
      schema: schema, schemaPlace: "\(displayPath):\(position(schemaNode.offset)): \(schemaPath)",
      endpoint: endpoint, endpointText: endpointText, seed: ownSeed ?? seed, listLength: listLength,
      types: types, fields: answers, scalars: scalars, location: location(node.offset),
      place: "\(displayPath):\(position(node.offset)): \(path)")
  }

  /// `{"Name": value, …}` under `key`, each value read by `read`.
  private func overrides<Value>(
    _ fields: Fields, _ key: String, what: String,
    _ read: (PositionedJSON, ManifestKeyPath) throws(ManifestProblem) -> Value
  ) throws(ManifestProblem) -> [ManifestGraphQL.Override<Value>] {
    guard let node = fields[key] else { return [] }
    let path = fields.path(key)
    guard case .object(let members) = node.value else {
      throw error(node, path, "expected an object from name to \(what), found \(node.kind).")
    }
    var result: [ManifestGraphQL.Override<Value>] = []
    for member in members {
      let memberPath = path + member.key
      result.append(
        ManifestGraphQL.Override(
          name: member.key, value: try read(member.value, memberPath),
          place: "\(displayPath):\(position(member.keyOffset)): \(memberPath)"))
    }
    return result
  }

  /// A field override: `{"json": value}`, or `{"error": "message", "extensions": {…}}`.
  private func fieldAnswer(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem)
    -> ManifestGraphQL.FieldAnswer
  {
    let fields = try object(
      node, path, known: ManifestKeys.graphQLField,
      what: "a field's answer ({\"json\": value} or {\"error\": \"message\"})")
    try requireAtMostOne(["json", "error"], in: fields, "a field answers with a value or with an error.")
    if let value = fields["json"] {
      if fields["extensions"] != nil {
        throw error(
          at: fields.keyOffset("extensions"), path,
          "\"extensions\" belongs to an error; remove it, or answer with {\"error\": \"message\", \"extensions\": {…}}."
        )
      }
      return .json(value.jsonValue)
    }
    guard let message = fields["error"] else {
      throw error(
        node, path,
        "a field's answer needs \"json\" (the value, such as {\"json\": {\"id\": \"user-1\"}}) or \"error\" (the message of the error it answers with)."
      )
    }
    var extensions: JSONValue?
    if let node = fields["extensions"] {
      guard case .object = node.value else {
        throw error(
          node, fields.path("extensions"), "expected the error's extensions (a JSON object), found \(node.kind).")
      }
      extensions = node.jsonValue
    }
    return .error(
      message: try nonEmptyString(message, fields.path("error"), what: "an error message"), extensions: extensions)
  }
}
