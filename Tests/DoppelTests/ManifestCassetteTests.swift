import Doppel
import Foundation
import TestSupport
import Testing

/// Cassettes listed in a manifest, with their matching rules and timings.
@Suite(.timeLimit(.minutes(2))) struct ManifestCassetteTests {
  /// A folder holding `recordings/feed.har` (two GETs of /feed with tokens in the query, and a
  /// POST with a JSON body).
  static func folder() throws -> ScratchDirectory {
    let folder = try ScratchDirectory()
    let entries = try [
      HAREntry(
        request: Request(url: URL(string: "https://api.example.com/feed?token=a&ts=1")!), response: .text("feed 1"),
        duration: 1500),
      HAREntry(
        request: Request(url: URL(string: "https://api.example.com/feed?token=b&ts=2")!), response: .text("feed 2")),
      HAREntry(
        request: Request(
          method: .post, url: URL(string: "https://api.example.com/orders")!,
          body: Data(#"{"sku":"A1","meta":{"sentAt":1}}"#.utf8)), response: .text("ordered")),
    ]
    try Cassette(entries: entries).save(to: folder.url.appendingPathComponent("recordings/feed.har"))
    return folder
  }

  static func load(_ folder: ScratchDirectory, _ json: String) throws -> Manifest {
    try Manifest.load(contentsOf: folder.write("doppel.json", json))
  }

  static func error(_ folder: ScratchDirectory, _ json: String) -> String {
    do {
      _ = try load(folder, json)
      return "loaded"
    } catch {
      return (error as? DoppelError)?.message.replacingOccurrences(of: folder.path, with: "<folder>") ?? "\(error)"
    }
  }

  @Test func aManifestReplaysItsCassettesWithTheirRules() async throws {
    let folder = try Self.folder()
    defer { folder.remove() }
    let manifest = try Self.load(
      folder,
      """
      {
        "cassettes": [
          {"file": "recordings/feed.har", "matching": {"methodAndPath": true, "ignoringJSONFields": ["/meta/sentAt"]}}
        ],
        "stubs": [{"request": "POST /orders", "response": {"status": 409}}],
        "scenarios": {
          "strict": {"cassettes": ["recordings/feed.har"]}
        }
      }
      """)
    let backend = try Backend(manifest: manifest, scenario: .base, issueReporter: .ignore)
    #expect(try await backend.answer("http://localhost:8080/feed?token=z").body == "feed 1")
    #expect(try await backend.answer("https://api.example.com/feed").body == "feed 2")
    #expect(try await backend.answer("https://api.example.com/feed").body == "feed 2")
    // The manifest's own stubs come after its cassettes, so they win.
    #expect(try await backend.answer(.post, "https://api.example.com/orders", body: #"{"sku":"A1"}"#).status == 409)
    #expect(backend.stubs.map(\.name) == ["recordings/feed.har entries[0, 1]", "recordings/feed.har entries[2]", nil])
    #expect(backend.stubs[0].location.description.hasSuffix("doppel.json:3"))

    // A scenario's cassette, with the default rule, is layered over the base stubs.
    let strict = try Backend(manifest: manifest, scenario: .named("strict"), issueReporter: .ignore)
    #expect(try await strict.answer("https://api.example.com/feed?ts=2&token=b").body == "feed 2")
    #expect(try await strict.answer("https://api.example.com/feed?ts=2&token=b").body == "feed 2")
  }

  @Test func timingsAreReplayedOnTheBackendsClockWhenAskedFor() async throws {
    let folder = try Self.folder()
    defer { folder.remove() }
    let manifest = try Self.load(
      folder,
      #"{"cassettes": [{"file": "recordings/feed.har", "matching": {"ignoringAllQueryItems": true}, "timings": true}]}"#
    )
    let clock = ManualClock()
    let backend = try Backend(manifest: manifest, scenario: .base, issueReporter: .ignore, clock: clock)
    let done = Flag()
    let load = Task {
      let answer = try await backend.answer("https://api.example.com/feed")
      done.set()
      return answer.body
    }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(1499))
    #expect(!done.isSet)
    clock.advance(by: .milliseconds(1))
    #expect(try await load.value == "feed 1")
  }

  @Test(
    arguments: Example.list([
      (
        #"{"cassettes": [{"file": "recordings/feed.har", "matching": {"methodAndPth": true}}]}"#,
        #"doppel.json:1:61: cassettes[0].matching: unknown key "methodAndPth". Did you mean "methodAndPath"? The keys of a cassette's matching are: methodAndPath, ignoringQueryItems, ignoringAllQueryItems, comparingHeaders, ignoringHeaders, comparingBody, ignoringJSONFields."#
      ),
      (
        #"{"cassettes": [{"fle": "recordings/feed.har"}]}"#,
        #"doppel.json:1:17: cassettes[0]: unknown key "fle". Did you mean "file"? The keys of a cassette are: file, matching, timings."#
      ),
      (
        #"{"cassettes": [{"matching": {}}]}"#,
        #"doppel.json:1:16: cassettes[0]: a cassette needs "file": the HAR file's path relative to the manifest, such as "recordings/breeds.har"."#
      ),
      (
        #"{"cassettes": [{"file": "recordings/feed.har", "timings": "yes"}]}"#,
        #"doppel.json:1:59: cassettes[0].timings: expected true or false, found the string "yes"."#
      ),
      (
        #"{"cassettes": [{"file": "recordings/feed.har", "matching": {"ignoringQueryItems": "ts"}}]}"#,
        #"doppel.json:1:83: cassettes[0].matching.ignoringQueryItems: expected an array of names, found the string "ts"."#
      ),
      (
        #"{"cassettes": [{"file": "recordings/feed.har", "matching": {"ignoringHeaders": ["Date", ""]}}]}"#,
        #"doppel.json:1:89: cassettes[0].matching.ignoringHeaders[1]: expected a name, found an empty string."#
      ),
      (
        #"{"cassettes": [{"file": "recordings/feed.har", "matching": {"methodAndPath": true, "ignoringQueryItems": ["ts"]}}]}"#,
        #"doppel.json:1:84: cassettes[0].matching: "methodAndPath" and "ignoringQueryItems" cannot be used together: each says which query items are compared ("methodAndPath" ignores them all). Keep one."#
      ),
      (
        #"{"cassettes": [{"file": "recordings/feed.har", "matching": {"ignoringJSONFields": ["/a~2b"]}}]}"#,
        #"doppel.json:1:84: cassettes[0].matching.ignoringJSONFields[0]: "/a~2b" is not a JSON Pointer: "~" must be followed by 0 (for ~) or 1 (for /). Write ~0 for a ~ in a name, ~1 for a /."#
      ),
      (
        #"{"cassettes": ["recordings/nope.har"]}"#,
        #"doppel.json:1:16: cassettes[0]: there is no cassette at <folder>/recordings/nope.har. Give the HAR file's path relative to the manifest's folder, or an absolute path."#
      ),
      (
        #"{"cassettes": [3]}"#,
        #"doppel.json:1:16: cassettes[0]: expected a cassette: a HAR file path such as "breeds.har", or an object such as {"file": "breeds.har", "matching": {"methodAndPath": true}}; found the number 3."#
      ),
      (
        #"{"cassettes": {"file": "recordings/feed.har"}}"#,
        #"doppel.json:1:15: cassettes: expected an array of cassettes (HAR file paths, or objects such as {"file": "breeds.har"}), found an object."#
      ),
    ]))
  func badCassetteEntriesAreErrorsWithTheirPlace(example: Example<String, String>) throws {
    let (json, message) = (example.input, example.expected)
    let folder = try Self.folder()
    defer { folder.remove() }
    #expect(Self.error(folder, json) == "<folder>/" + message)
  }

  @Test func aCassetteThatCannotBeReplayedNamesTheManifestAndTheEntry() throws {
    let folder = try Self.folder()
    defer { folder.remove() }
    var entry = try HAREntry(request: Request(url: URL(string: "https://api.example.com/slow")!), response: .text("x"))
    entry.extra["timings"] = ["send": 0, "wait": -3, "receive": 0]
    try Cassette(entries: [entry]).save(to: folder.url.appendingPathComponent("slow.har"))
    #expect(Self.error(folder, #"{"cassettes": ["slow.har"]}"#) == "loaded")
    #expect(
      Self.error(folder, #"{"cassettes": [{"file": "slow.har", "timings": true}]}"#) == """
        <folder>/doppel.json:1:25: cassettes[0].file: the cassette slow.har cannot be replayed:
        slow.har: log.entries[0].timings.wait: -3 milliseconds is out of range. A recorded time is from 0 to 86400000 milliseconds (24 hours), or -1 when the phase did not happen; fix it, or replay without timings.
        """)
  }

}
