import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The manifest reader's `matching` object, key by key against the Swift builder of the same name
/// (`Cassette.Matching` is compared as a value, which only the reader itself returns).
@Suite struct ManifestMatchingKeyTests {
  @Test func everyMatchingKeyReadsAsTheSwiftBuilderOfTheSameName() throws {
    func read(_ json: String) throws -> Cassette.Matching {
      let reader = ManifestReader(url: manifestURL, bytes: Array(json.utf8))
      let node = try PositionedJSONParser.parse(Array(json.utf8))
      return try reader.matching(node, .root)
    }
    #expect(try read("{}") == .methodAndURL)
    #expect(try read(#"{"methodAndPath": true}"#) == .methodAndPath)
    #expect(try read(#"{"methodAndPath": false}"#) == .methodAndURL)
    #expect(try read(#"{"ignoringAllQueryItems": true}"#) == .ignoringAllQueryItems)
    #expect(try read(#"{"ignoringQueryItems": ["ts"]}"#) == .ignoringQueryItems(["ts"]))
    #expect(try read(#"{"comparingHeaders": ["Accept"]}"#) == .comparingHeaders(["Accept"]))
    #expect(
      try read(#"{"comparingHeaders": ["X-Id"], "ignoringHeaders": ["Date", "X-Id"]}"#)
        == .ignoringHeaders(["Date", "X-Id"]).comparingHeaders(["X-Id"]))
    #expect(try read(#"{"comparingBody": true}"#) == .comparingBody)
    #expect(
      try read(#"{"ignoringJSONFields": ["nonce", "/meta/sentAt"]}"#)
        == .ignoringJSONFields(["/nonce", "/meta/sentAt"]))
  }
}
