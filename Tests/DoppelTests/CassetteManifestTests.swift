import Doppel
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A cassette written as a manifest (what `doppel convert` writes) answers what the cassette
/// answers, entry by entry.
@Suite struct CassetteManifestTests {
  /// What a backend answers `request`: the status, `Content-Type` and body, or the error's code.
  static func answer(_ backend: Backend, _ entry: HAREntry) async throws -> String {
    let recorded = try entry.makeRequest()
    var request = URLRequest(url: recorded.url)
    request.httpMethod = recorded.method.rawValue
    request.httpBody = recorded.body
    for field in recorded.headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
    do {
      let (data, response) = try await backend.respond(to: request)
      return
        "\(response.statusCode) \(response.value(forHTTPHeaderField: "Content-Type") ?? "-") \(data.base64EncodedString())"
    } catch let error as URLError {
      return "error \(error.code.rawValue)"
    }
  }

  /// Converts `cassette` into a temporary folder, and returns the manifest's URL.
  static func write(_ cassette: Cassette, inlineLimit: Int = CassetteManifest.defaultInlineLimit) throws -> (
    URL, CassetteManifest
  ) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-convert-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent("api.json")
    let converted = try CassetteManifest(
      cassette: cassette, source: "api.har", bodyFolder: CassetteManifest.bodyFolder(forManifest: url),
      inlineLimit: inlineLimit)
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("api-fixtures"), withIntermediateDirectories: true)
    for file in converted.bodyFiles { try file.data.write(to: folder.appendingPathComponent(file.name)) }
    try converted.manifest.write(to: url)
    return (url, converted)
  }

  /// Replays `cassette` and its manifest side by side, and expects the same answer to every entry.
  static func expectSameAnswers(_ cassette: Cassette, inlineLimit: Int = CassetteManifest.defaultInlineLimit)
    async throws -> CassetteManifest
  {
    let (url, converted) = try write(cassette, inlineLimit: inlineLimit)
    let fromManifest = try Backend(manifest: Manifest.load(contentsOf: url), scenario: .base, issueReporter: .ignore)
    let fromCassette = Backend(issueReporter: .ignore)
    try fromCassette.replay(Redaction.default.redact(cassette))
    for (index, entry) in cassette.entries.enumerated() {
      let expected = try await answer(fromCassette, entry)
      let actual = try await answer(fromManifest, entry)
      #expect(actual == expected, "entries[\(index)] \(entry.request.method) \(entry.request.url)")
    }
    return converted
  }

  @Test func aBrowserExportAnswersAsItsCassette() async throws {
    let cassette = try Cassette(data: Data(HARFixtures.browserExport.utf8), file: "export.har")
    let converted = try await Self.expectSameAnswers(cassette)
    // The same request twice is one stub with a sequence.
    let text = String(decoding: converted.manifest, as: UTF8.self)
    #expect(text.contains("\"sequence\""))
    #expect(converted.stubCount < cassette.entries.count)
  }

  @Test func eachKindOfEntryAnswersAsInTheCassette() async throws {
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
    let long = String(repeating: "Abyssinian, Bengal. ", count: 300)
    var cookies = Response.text("hi")
    cookies.headers.add("Set-Cookie", "a=1")
    cookies.headers.add("Set-Cookie", "b=2")
    let base = "https://api.example.com"
    func entry(_ method: HTTPMethod = .get, _ path: String, _ response: Response) throws -> HAREntry {
      try HAREntry(request: Request(method: method, url: URL(string: base + path)!), response: response)
    }
    let cassette = Cassette(entries: [
      try entry(.get, "/items?page=2", .json(["page 2"])),
      try entry(.get, "/items", .json(["page 1"])),
      try entry(.get, "/items?page=2&sort=name", .json(["sorted"])),
      try entry(.get, "/counter", .text("1")),
      try entry(.get, "/counter", .text("2")),
      try entry(.get, "/logo.png", .data(png, contentType: "image/png")),
      try entry(.get, "/long.txt", .text(long)),
      try entry(.post, "/orders", .json(["id": 7], status: 201, headers: ["Location": "/orders/7"])),
      try entry(.delete, "/orders/7", .status(204)),
      try entry(.get, "/cookies", cookies),
      try entry(.get, "/a%20b/caf%C3%A9", .text("encoded")),
      HAREntry(
        request: Request(url: URL(string: base + "/offline")!), error: URLError(.notConnectedToInternet)),
    ])
    let converted = try await Self.expectSameAnswers(cassette)
    #expect(converted.stubCount == 11)
    #expect(converted.bodyFiles.map(\.name) == ["api-fixtures/005-logo.png.png", "api-fixtures/006-long.txt.txt"])
    #expect(converted.bodyFiles[0].data == png)
    // Every body in a file, and the same answers.
    let allInFiles = try await Self.expectSameAnswers(cassette, inlineLimit: 0)
    #expect(allInFiles.bodyFiles.count == 10)
  }

  @Test func secretsAreRedactedAsInACassette() async throws {
    let secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
    let cassette = Cassette(entries: [
      try HAREntry(
        request: Request(
          url: URL(string: "https://api.example.com/me?access_token=\(secret)")!,
          headers: ["Authorization": "Bearer \(secret)"]),
        response: .json(["name": "Ada", "api_key": secret], headers: ["Set-Cookie": "session=\(secret)"]))
    ])
    let (url, converted) = try Self.write(cassette)
    let text = String(decoding: converted.manifest, as: UTF8.self)
    #expect(!text.contains(secret))
    #expect(text.contains(Redaction.marker))
    // The request still matches with any token, as the redacted cassette's does.
    let backend = try Backend(manifest: Manifest.load(contentsOf: url), scenario: .base, issueReporter: .ignore)
    let (data, response) = try await backend.respond(
      to: URLRequest(url: URL(string: "https://api.example.com/me?access_token=other")!))
    #expect(response.statusCode == 200)
    #expect(!String(decoding: data, as: UTF8.self).contains(secret))
  }

  @Test func anEntryThatCannotBeReplayedIsNamed() throws {
    var entry = try HAREntry(request: Request(url: URL(string: "https://api.example.com/x")!), response: .text("x"))
    entry.request.url = "/relative"
    #expect {
      try CassetteManifest(
        cassette: Cassette(entries: [entry]), source: "api.har", bodyFolder: "api-fixtures")
    } throws: { error in
      "\(error)".contains(
        #"api.har: log.entries[0].request.url: "/relative" is not an absolute URL. Give the full URL, such as "https://api.example.com/breeds"."#
      )
    }
  }
}
