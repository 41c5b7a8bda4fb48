import Foundation
import Testing

@_spi(DoppelInternals) @testable import DoppelToolkit

/// `doppel serve` and `doppel lint` tell an OpenAPI document, a GraphQL introspection result and a
/// manifest apart by the keys of the top-level object (and of the one under `data`), read
/// without reading the values.
@Suite struct TopLevelKeysTests {
  private func keys(_ text: String, nested: String? = "data") -> (keys: Set<String>, nestedKeys: Set<String>)? {
    TopLevelKeys.read(Data(text.utf8), nested: nested)
  }

  @Test func theTopLevelKeysAndTheKeysUnderData() {
    let found = keys(
      #"""
      {"stubs": [{"request": "GET /a", "response": {"json": {"openapi": "not this one", "s": "}]\"{["}}}],
       "data": {"__schema": {"types": []}, "more": [1, 2.5e3, true, null]},
       "open\u0061pi": "3.1.0", "n": -1, "t": true, "x": null}
      """#)
    #expect(found?.keys == ["stubs", "data", "openapi", "n", "t", "x"])
    #expect(found?.nestedKeys == ["__schema", "more"])
  }

  @Test func aByteOrderMarkAndWhiteSpaceBeforeTheObject() {
    let found = TopLevelKeys.read(Data([0xEF, 0xBB, 0xBF] + Array(" \n{\"openapi\": \"3.0.3\"}".utf8)))
    #expect(found?.keys == ["openapi"])
    #expect(found?.nestedKeys == [])
  }

  @Test(arguments: ["", "[]", "\"openapi\"", "{\"openapi\": ", "{\"a\": \"unended", "{\"a\": [1, 2"])
  func aDocumentThatIsNoObjectOrStopsHasNoKeys(_ text: String) {
    #expect(keys(text) == nil)
  }

  @Test func dataThatIsNoObjectHasNoKeysUnderIt() {
    #expect(keys(#"{"data": [{"__schema": 1}], "b": 2}"#)?.nestedKeys == [])
    #expect(keys(#"{"data": [{"__schema": 1}], "b": 2}"#)?.keys == ["data", "b"])
  }
}
