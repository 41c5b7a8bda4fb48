import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The RFC 6901 pointers behind `Cassette.Matching.ignoringJSONFields(_:)`: an internal helper
/// whose escapes (`~0`, `~1`) are hard to reach one by one through a cassette.
@Suite struct JSONPointerTests {
  @Test func jsonPointersFollowRFC6901() throws {
    let value = try JSONValue(
      parsing: Data(#"{"a/b":1,"m~n":2,"items":[{"id":1,"name":"x"},{"id":2}],"keep":true}"#.utf8))
    let removed = JSONPointer.removing(
      ["/a~1b", "m~n", "/items/0/id", "/items/7", "/missing/deeper"].map { JSONPointer.normalized($0) }, from: value)
    #expect(removed == (try JSONValue(parsing: Data(#"{"items":[{"name":"x"},{"id":2}],"keep":true}"#.utf8))))
    #expect(JSONPointer.normalized("a/b") == "/a~1b")
  }
}
