import Doppel
import Foundation
import Testing

/// An error in a minified manifest (one long line) points at its column, counted in characters
/// after multi-byte ones.
@Suite struct MinifiedManifestErrorTests {
  @Test func errorsInAMinifiedManifestPointAfterMultiByteCharacters() {
    // One line, many stubs, and "é" (2 bytes) and "🐈" (4 bytes) before the fault: the column
    // counts each as one.
    let stubs = (0..<3000).map { #"{"name":"café 🐈 \#($0)","request":"/\#($0)","response":{}}"# }
    let json = #"{"stubs":["# + stubs.joined(separator: ",") + #",{"request":"/x","response":{"status":0}}]}"#
    let column = json.unicodeScalars.count - #"0}}]}"#.unicodeScalars.count + 1
    #expect(
      manifestError(json)
        == "/project/Fixtures/doppel.json:1:\(column): stubs[3000].response.status: expected an HTTP status from 100 to 599, found the number 0, which is too small."
    )
  }
}
