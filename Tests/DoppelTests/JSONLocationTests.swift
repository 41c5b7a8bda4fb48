import Doppel
import Foundation
import Testing

/// Where things are written in a JSON file, for the tool's messages.
struct JSONLocationTests {
  @Test func theLinesOfAHARDocumentsEntries() {
    let har = """
      {"log": {"version": "1.2", "entries": [
        {"request": 1},

        {"request": 2}, {"request": 3}
      ]}}
      """
    #expect(JSONLocation.entryLines(in: Data(har.utf8)) == [2, 4, 4])
    #expect(JSONLocation.entryLines(in: Data(#"{"entries": [{}, {}]}"#.utf8)) == [1, 1])
    #expect(JSONLocation.entryLines(in: Data("not JSON".utf8)).isEmpty)
  }
}
