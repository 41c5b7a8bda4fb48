import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The JSON Schema shipped in `Schemas/` and the loader agree on every key, so they cannot drift.
@Suite struct ManifestSchemaTests {
  static let schemaURL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Schemas/doppel-manifest.schema.json")

  private func schema() throws -> [String: Any] {
    let data = try Data(contentsOf: Self.schemaURL)
    _ = try PositionedJSONParser.parse([UInt8](data))  // strict JSON, no trailing commas
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  }

  /// The value at a path of object keys and array indexes.
  private func value(_ root: Any, _ path: [Any]) throws -> Any {
    var current = root
    for step in path {
      if let key = step as? String {
        current = try #require((current as? [String: Any])?[key], "no \(key) in \(path)")
      } else if let index = step as? Int {
        let array = try #require(current as? [Any])
        current = array[index]
      }
    }
    return current
  }

  private func keys(_ root: Any, _ path: [Any]) throws -> Set<String> {
    Set(try #require(try value(root, path + ["properties"]) as? [String: Any]).keys)
  }

  private func strings(_ root: Any, _ path: [Any]) throws -> [String] {
    try #require(try value(root, path) as? [String])
  }

  @Test func isADraft202012Schema() throws {
    let schema = try schema()
    #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    #expect(schema["additionalProperties"] as? Bool == false)
  }

  @Test func listsTheKeysTheLoaderKnows() throws {
    let schema = try schema()
    #expect(try keys(schema, []) == Set(ManifestKeys.manifest))
    #expect(try keys(schema, ["$defs", "scenario"]) == Set(ManifestKeys.scenario))
    #expect(try keys(schema, ["$defs", "graphql"]) == Set(ManifestKeys.graphQLSchema))
    #expect(
      try keys(schema, ["$defs", "graphql", "properties", "fields", "additionalProperties", "oneOf", 0]).union(
        keys(schema, ["$defs", "graphql", "properties", "fields", "additionalProperties", "oneOf", 1]))
        == Set(ManifestKeys.graphQLField))
    #expect(try keys(schema, ["$defs", "stub"]) == Set(ManifestKeys.stub))
    #expect(try keys(schema, ["$defs", "cassette"]) == Set(ManifestKeys.cassette))
    #expect(try keys(schema, ["$defs", "cassetteMatching"]) == Set(ManifestKeys.cassetteMatching))
    #expect(try keys(schema, ["$defs", "request", "oneOf", 1]) == Set(ManifestKeys.request))
    #expect(try keys(schema, ["$defs", "singleResponse"]) == Set(ManifestKeys.sequenceItem))
    #expect(try keys(schema, ["$defs", "response", "oneOf", 1]) == ["sequence", "then"])
    #expect(try keys(schema, ["$defs", "singleResponse", "properties", "chunked"]) == Set(ManifestKeys.chunked))
    #expect(try keys(schema, ["$defs", "singleResponse", "properties", "redirect"]) == Set(ManifestKeys.redirect))
    #expect(try keys(schema, ["$defs", "request", "oneOf", 1, "properties", "graphql"]) == Set(ManifestKeys.graphQL))
    #expect(
      try keys(schema, ["$defs", "singleResponse", "properties", "events", "items"]) == Set(ManifestKeys.event))
    #expect(try keys(schema, ["$defs", "response", "oneOf", 2]) == ["proxy"])
    #expect(
      try keys(schema, ["$defs", "proxy", "oneOf", 1]) == Set(ManifestKeys.proxy))
    #expect(try keys(schema, ["$defs", "singleResponse", "properties", "failing"]) == Set(ManifestKeys.failing))
    #expect(
      try keys(schema, ["$defs", "singleResponse", "properties", "delay", "oneOf", 1]) == Set(ManifestKeys.randomDelay))
  }

  /// The admin API's description (`Schemas/doppel-admin.openapi.yaml`, YAML) spells a manifest
  /// request's keys out again for `POST /verify`: they are the loader's too. Read as text, by the
  /// document's indentation: Doppel's tests do not depend on a YAML parser.
  @Test func theAdminAPIListsTheRequestKeysTheLoaderKnows() throws {
    let url = Self.schemaURL.deletingLastPathComponent().appendingPathComponent("doppel-admin.openapi.yaml")
    let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(lines.firstIndex(of: "    ManifestRequest:"))
    let properties = try #require(lines[start...].firstIndex(of: "          properties:"))
    var keys: Set<String> = []
    for line in lines[(properties + 1)...] {
      let indent = line.prefix { $0 == " " }.count
      if indent <= 10 { break }
      if indent == 12, let colon = line.firstIndex(of: ":") {
        keys.insert(String(line[line.index(line.startIndex, offsetBy: 12)..<colon]))
      }
    }
    #expect(keys == Set(ManifestKeys.request))
  }

  @Test func listsTheValuesTheLoaderKnows() throws {
    let schema = try schema()
    #expect(
      try strings(schema, ["$defs", "response", "oneOf", 1, "properties", "then", "enum"]) == ManifestKeys.sequenceEnds)
    #expect(try strings(schema, ["$defs", "singleResponse", "properties", "error", "enum"]) == URLErrorCodeName.names)
    #expect(try strings(schema, ["properties", "unmatched", "oneOf", 0, "enum"]) == ManifestKeys.unmatchedPolicies)
    #expect(try strings(schema, ["$defs", "singleResponse", "properties", "fault", "enum"]) == ManifestKeys.faults)
  }
}
