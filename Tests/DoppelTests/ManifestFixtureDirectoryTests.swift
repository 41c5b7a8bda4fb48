import Doppel
import Foundation
import Testing

/// The zero-configuration layout: `<host>/<path>` files served at those URLs.
@Suite struct ManifestFixtureDirectoryTests {
  /// A fixture directory with the given files, and a backend serving it.
  private func serve(_ files: [String: String]) throws -> (ScratchDirectory, Backend) {
    let scratch = try ScratchDirectory()
    for (path, text) in files { try scratch.write(path, text) }
    return (scratch, try Backend(fixtureDirectory: scratch.url, issueReporter: .ignore))
  }

  /// The body served for `url`, or the URLError code.
  private func body(_ backend: Backend, _ url: String) async -> String {
    await body(backend, .get, url)
  }

  /// The body served for a request, or the URLError code.
  private func body(_ backend: Backend, _ method: HTTPMethod, _ url: String) async -> String {
    do {
      return try await backend.answer(method, url).body
    } catch let error as URLError {
      return "URLError \(error.code.rawValue)"
    } catch {
      return "\(error)"
    }
  }

  @Test func servesFilesByHostAndPathOnAnySchemeAndPort() async throws {
    let (scratch, backend) = try serve([
      "api.example.com/v1/breeds.json": "breeds",
      "API.example.com/v1/cat.png": "png",
    ])
    defer { scratch.remove() }
    #expect(await body(backend, "https://api.example.com/v1/breeds.json") == "breeds")
    #expect(await body(backend, "http://api.example.com:8080/v1/breeds.json") == "breeds")
    #expect(await body(backend, "https://API.EXAMPLE.COM/v1/cat.png") == "png")
    #expect(await body(backend, "https://other.example.com/v1/breeds.json") == "URLError -1008")
    #expect(await body(backend, .post, "https://api.example.com/v1/breeds.json") == "URLError -1008")
    #expect(try await backend.answer("https://api.example.com/v1/breeds.json").contentType == "application/json")
    #expect(try await backend.answer("https://api.example.com/v1/cat.png").contentType == "image/png")
  }

  @Test func theExtensionIsOptionalWhenUnambiguous() async throws {
    let (scratch, backend) = try serve([
      "h.com/breeds.json": "json",
      "h.com/report.json": "report json",
      "h.com/report.csv": "report csv",
      "h.com/users.json": "users file",
      "h.com/users/index.json": "users index",
    ])
    defer { scratch.remove() }
    #expect(await body(backend, "https://h.com/breeds") == "json")
    #expect(await body(backend, "https://h.com/report") == "URLError -1008")
    #expect(await body(backend, "https://h.com/report.csv") == "report csv")
    #expect(await body(backend, "https://h.com/users") == "users index")
    #expect(await body(backend, "https://h.com/users.json") == "users file")
  }

  @Test func indexFilesServeTheirDirectory() async throws {
    let (scratch, backend) = try serve([
      "h.com/index.html": "home",
      "h.com/docs/index.txt": "docs",
    ])
    defer { scratch.remove() }
    #expect(await body(backend, "https://h.com/") == "home")
    #expect(await body(backend, "https://h.com") == "home")
    #expect(await body(backend, "https://h.com/index.html") == "home")
    #expect(await body(backend, "https://h.com/docs") == "docs")
    #expect(await body(backend, "https://h.com/docs/") == "docs")
    #expect(try await backend.answer("https://h.com/").contentType == "text/html; charset=utf-8")
  }

  @Test func aQueryInTheNameSelectsAVariant() async throws {
    let (scratch, backend) = try serve([
      "h.com/breeds.json": "all",
      "h.com/breeds@page=2.json": "page 2",
      "h.com/breeds@page=2&size=5.json": "page 2 of 5",
      "h.com/search@q=a%20b.json": "a b",
    ])
    defer { scratch.remove() }
    #expect(await body(backend, "https://h.com/breeds.json") == "all")
    #expect(await body(backend, "https://h.com/breeds.json?page=2") == "page 2")
    #expect(await body(backend, "https://h.com/breeds?page=2&t=1") == "page 2")
    #expect(await body(backend, "https://h.com/breeds?size=5&page=2") == "page 2 of 5")
    #expect(await body(backend, "https://h.com/breeds?page=3") == "all")
    #expect(await body(backend, "https://h.com/search?q=a%20b") == "a b")
  }

  @Test func aMethodPrefixAnswersThatMethod() async throws {
    let (scratch, backend) = try serve([
      "h.com/orders.json": "list",
      "h.com/POST.orders.json": "created",
      "h.com/cart/DELETE.index.json": "deleted",
      "h.com/post.json": "a file named post",
    ])
    defer { scratch.remove() }
    #expect(await body(backend, "https://h.com/orders") == "list")
    #expect(await body(backend, .post, "https://h.com/orders") == "created")
    #expect(await body(backend, .post, "https://h.com/orders.json") == "created")
    #expect(await body(backend, .delete, "https://h.com/cart") == "deleted")
    #expect(await body(backend, "https://h.com/cart") == "URLError -1008")
    #expect(await body(backend, "https://h.com/post") == "a file named post")
  }

  @Test func theAnyHostDirectoryAndPercentDecodedNames() async throws {
    let (scratch, backend) = try serve([
      "_/health.txt": "ok",
      "h.com/users/%40me.json": "me",
      ".DS_Store": "ignored",
      "h.com/.hidden.json": "ignored",
      "doppel.json": "{}",
    ])
    defer { scratch.remove() }
    #expect(await body(backend, "https://anything.example.com/health.txt") == "ok")
    #expect(await body(backend, "http://localhost:8080/health") == "ok")
    #expect(await body(backend, "https://h.com/users/@me") == "me")
    #expect(await body(backend, "https://h.com/.hidden.json") == "URLError -1008")
  }

  @Test func stubsAreNamedAndLocatedByTheirFile() throws {
    let (scratch, backend) = try serve(["h.com/a/b.json": "{}"])
    defer { scratch.remove() }
    let stub = try #require(backend.stubs.first)
    #expect(stub.name == "h.com/a/b.json")
    #expect(stub.location.description == "b.json:1")
    #expect(stub.location.filePath == scratch.url.appendingPathComponent("h.com/a/b.json").path)
    #expect(stub.matcher.description == "GET h.com/a/b.json")
  }

  @Test func aManifestCanNameAFixtureDirectoryForTheBaseOrAScenario() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try scratch.write("hosts/h.com/breeds.json", "base")
    try scratch.write("hosts/h.com/cats.json", "cats")
    try scratch.write("empty/h.com/breeds.json", "none")
    try scratch.write(
      "doppel.json",
      """
      {
        "fixtureDirectory": "hosts",
        "stubs": [{"request": "/cats.json", "response": {"text": "listed"}}],
        "scenarios": {"empty": {"fixtureDirectory": "empty"}}
      }
      """)
    let manifest = try Manifest.load(contentsOf: scratch.url)
    let base = try Backend(manifest: manifest, scenario: .base)
    #expect(try await base.answer("https://h.com/breeds").body == "base")
    #expect(try await base.answer("https://h.com/cats.json").body == "listed")
    let empty = try Backend(manifest: manifest, scenario: "empty")
    #expect(try await empty.answer("https://h.com/breeds").body == "none")
  }

  @Test func aDirectoryWithoutAManifestIsAFixtureDirectory() async throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    try scratch.write("h.com/a.txt", "a")
    let manifest = try Manifest.load(contentsOf: scratch.url)
    #expect(manifest.url.path == scratch.url.standardizedFileURL.path)
    #expect(try await Backend(manifest: manifest, scenario: .base).answer("https://h.com/a").body == "a")
  }

  @Test func errors() throws {
    let scratch = try ScratchDirectory()
    defer { scratch.remove() }
    let root = scratch.url.standardizedFileURL.path
    let missing = scratch.url.appendingPathComponent("missing")
    #expect(
      throws: DoppelError(
        "the fixture directory \(missing.path) does not exist. Create it, with one directory per host (\(missing.path)/api.example.com/breeds.json), or fix the path."
      )
    ) { try Manifest(fixtureDirectory: missing) }
    try scratch.write("breeds.json", "{}")
    #expect(
      throws: DoppelError(
        "the file \(root)/breeds.json is not inside a host directory. Move it to \(root)/<host>/breeds.json (for example api.example.com/breeds.json), or to \(root)/_/breeds.json to serve it on every host."
      )
    ) { try Manifest(fixtureDirectory: scratch.url) }
    #expect(
      throws: DoppelError(
        "\(root)/breeds.json is a file, not a fixture directory. Name the directory that holds the host directories.")
    ) { try Manifest(fixtureDirectory: scratch.url.appendingPathComponent("breeds.json")) }
    try FileManager.default.removeItem(at: scratch.url.appendingPathComponent("breeds.json"))
    try scratch.write("h.com/a@.json", "{}")
    #expect(
      throws: DoppelError(
        "the file name \"a@.json\" in \(root)/h.com has \"@\" but no query after it. Write the query as in a URL (breeds@page=2.json), or write a literal @ as %40."
      )
    ) { try Manifest(fixtureDirectory: scratch.url) }
  }

  @Test func aBadFixtureDirectoryInAManifestIsReportedAtItsKey() throws {
    #expect(
      manifestError(#"{"fixtureDirectory": "hosts"}"#)
        == "/project/Fixtures/doppel.json:1:22: fixtureDirectory: the fixture directory /project/Fixtures/hosts does not exist. Create it, with one directory per host (/project/Fixtures/hosts/api.example.com/breeds.json), or fix the path."
    )
  }
}
