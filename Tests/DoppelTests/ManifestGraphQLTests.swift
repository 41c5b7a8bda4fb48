import Doppel
import Foundation
import TestSupport
import Testing

/// A manifest's `"graphql"` without DoppelGraphQL: its shape is checked when the manifest is
/// loaded, and loading it into a backend without the extension that serves it says how to.
/// (Serving it is tested in DoppelGraphQLTests.)
@Suite struct ManifestGraphQLTests {
  @Test func aManifestServingGraphQLNeedsTheExtension() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try scratch.write("schema.graphql", "type Query { hello: String }")
    let file = try scratch.write(
      "doppel.json",
      """
      {
        "stubs": [{"request": "/health", "response": {"text": "ok"}}],
        "graphql": {"schema": "schema.graphql"}
      }
      """)
    let manifest = try Manifest.load(contentsOf: file)
    let expected = DoppelError(
      "\(file.path):3:14: graphql: serving a GraphQL schema needs DoppelGraphQL. Add the DoppelGraphQL product (with the package's GraphQL trait), import DoppelGraphQL and pass extensions: [.graphQL] where the manifest is loaded, or remove \"graphql\"."
    )
    #expect(throws: expected) { try Backend(manifest: manifest, issueReporter: .ignore) }
    let backend = quietBackend()
    #expect(throws: expected) { try backend.addStubs(from: manifest) }
    #expect(backend.stubs.isEmpty)
  }

  /// A scenario's `graphql` replaces the base's; a scenario without one keeps the base's.
  @Test func aScenarioWithoutGraphQLKeepsTheBases() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try scratch.write("schema.graphql", "type Query { hello: String }")
    let file = try scratch.write(
      "doppel.json",
      #"{"graphql": {"schema": "schema.graphql"}, "scenarios": {"empty": {"graphql": {"schema": "schema.graphql", "listLength": 0}}, "slow": {}}}"#
    )
    let manifest = try Manifest.load(contentsOf: file)
    for (scenario, place) in [("empty", "1:78: scenarios.empty.graphql"), ("slow", "1:13: graphql")] {
      let message = #expect(throws: DoppelError.self) { try Backend(manifest: manifest, scenario: .named(scenario)) }?
        .message
      #expect(message?.hasPrefix("\(file.path):\(place): serving a GraphQL schema needs DoppelGraphQL.") == true)
    }
  }

  @Test(
    arguments: Example.list([
      (
        #"{"graphql": {"schem": "schema.graphql"}}"#,
        #"1:14: graphql: unknown key "schem". Did you mean "schema"? The keys of a GraphQL schema to serve are: schema, endpoint, seed, listLength, types, fields, scalars."#
      ),
      (
        #"{"graphql": {"endpoint": "/gql"}}"#,
        #"1:13: graphql: a served GraphQL schema needs "schema": the schema file relative to the manifest, such as "schema.graphql" (SDL) or "schema.json" (an introspection result)."#
      ),
      (
        #"{"graphql": {"schema": "../schema.graphql"}}"#,
        #"1:24: graphql.schema: "../schema.graphql" is outside the manifest's folder /project/Fixtures: ".." leads out of it. A manifest names files only inside its own folder; move the file into /project/Fixtures (or a folder in it) and name it relative to the manifest."#
      ),
      (
        #"{"graphql": {"schema": "s.graphql", "listLength": 5000}}"#,
        #"1:51: graphql.listLength: expected how many items each list has (0 to 1000), found the number 5000, which is too large."#
      ),
      (
        #"{"graphql": {"schema": "s.graphql", "endpoint": "graphql"}}"#,
        #"1:49: graphql.endpoint: Invalid URL "graphql" in a stub: it is neither an absolute URL (scheme://host/path) nor a path starting with "/". Write an absolute URL such as "https://api.example.com/breeds.json" or a path such as "/breeds.json"."#
      ),
      (
        #"{"graphql": {"schema": "s.graphql", "types": {"User": [1]}}}"#,
        #"1:55: graphql.types.User: expected the fields every object of this type starts from (a JSON object), found an array."#
      ),
      (
        #"{"graphql": {"schema": "s.graphql", "fields": {"Query.me": {"json": 1, "error": "no"}}}}"#,
        #"1:72: graphql.fields["Query.me"]: "json" and "error" cannot be used together: a field answers with a value or with an error."#
      ),
      (
        #"{"graphql": {"schema": "s.graphql", "fields": {"Query.me": {"text": "x"}}}}"#,
        #"1:61: graphql.fields["Query.me"]: unknown key "text". The keys of a field's answer ({"json": value} or {"error": "message"}) are: json, error, extensions."#
      ),
      (
        #"{"graphql": {"schema": "s.graphql", "fields": {"Query.me": {"json": 1, "extensions": {}}}}}"#,
        #"1:72: graphql.fields["Query.me"]: "extensions" belongs to an error; remove it, or answer with {"error": "message", "extensions": {…}}."#
      ),
      (
        #"{"scenarios": {"x": {"graphql": {"schema": ""}}}}"#,
        #"1:44: scenarios.x.graphql.schema: expected a schema file relative to the manifest, found an empty string."#
      ),
    ]))
  func shapeErrorsNameThePositionKeyAndFix(example: Example<String, String>) {
    let (json, expected) = (example.input, example.expected)
    #expect(manifestError(json) == "/project/Fixtures/doppel.json:\(expected)")
  }
}
