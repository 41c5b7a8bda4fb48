import CatFancyKit
import Doppel
import Foundation
import Testing

// What the documentation's snippets refer to without declaring it. The types are the CatFancy
// example's (Examples/CatFancy): Breed, Breeds, BreedListModel, BreedListState, BreedRequester. The
// values below stand for the reader's own, or for what an earlier snippet of the same page made.

extension Breed {
  /// A few breeds, for stubs and expectations.
  static let all = [
    Breed(
      name: "Abyssinian", knownFor: "a ticked coat and boundless curiosity", popularity: 7,
      photoURL: URL(fileURLWithPath: "/photos/abyssinian.jpg"), infoURL: URL(fileURLWithPath: "/info/abyssinian"),
      credit: "test", license: "CC0", description: "test"),
    Breed(
      name: "Sphynx", knownFor: "having almost no fur at all", popularity: 6,
      photoURL: URL(fileURLWithPath: "/photos/sphynx.jpg"), infoURL: URL(fileURLWithPath: "/info/sphynx"),
      credit: "test", license: "CC0", description: "test"),
  ]
}

/// The body of the breeds endpoint, as the server sends it.
let breeds = Breeds(breeds: Breed.all)

/// One breed.
let breed = Breed.all[0]

/// The breeds endpoint the snippets stub.
let breedsURL = URL(string: "https://api.example.com/breeds.json")!

/// A user, for closure stubs.
struct User: Codable, Sendable {
  var id: String
}

/// The signed-in user.
let me = User(id: "me")

/// A file served as a body.
let report = URL(fileURLWithPath: "/tmp/report.pdf")

/// Where the reader's manifest, cassettes and tests are.
let manifestURL = URL(fileURLWithPath: "/tmp/App/Fixtures/doppel.json")
let cassetteURL = URL(fileURLWithPath: "/tmp/App/Tests/AppTests/__Cassettes__/BreedTests/breeds.har")
let testsFolder = URL(fileURLWithPath: "/tmp/App/Tests/AppTests")

/// The app's OpenAPI document.
let apiURL = URL(fileURLWithPath: "/tmp/App/api.yaml")

/// The app's GraphQL schema.
let schemaURL = URL(fileURLWithPath: "/tmp/App/schema.graphql")

/// A GraphQL request, as the app sends it.
let graphQLRequest = URLRequest(url: URL(string: "https://api.example.com/graphql")!)

/// The manifest an earlier snippet loaded.
var manifest: Manifest {
  get throws { try CatFancyBackend.manifest() }
}

/// The backend an earlier snippet made.
let backend = Backend()

/// The CatFancy example's model as the snippets use it: `BreedListModel(session:)` fetches
/// `breedsURL` (https://api.example.com/breeds.json), the endpoint the snippets stub as
/// `/breeds.json`, where CatFancy's own model fetches from its S3 folder (`/CatFancy/breeds.json`).
/// Declared here, it stands in for CatFancyKit's in every snippet.
final class BreedListModel: Sendable {
  let base: CatFancyKit.BreedListModel

  init(session: URLSession, url: URL = breedsURL) {
    base = CatFancyKit.BreedListModel(session: session, url: url)
  }

  var state: BreedListState { base.state }
  var breeds: [Breed] { base.breeds }
  func load() async { await base.load() }
}

/// The model an earlier snippet made.
let model = BreedListModel(session: backend.session, url: breedsURL)

/// A client of the breeds API that takes a base URL, as code talking to the stub server would.
struct BreedClient {
  var baseURL: URL
  var session = URLSession.shared

  func breeds() async throws -> Breeds {
    let (data, _) = try await session.data(from: baseURL.appendingPathComponent("breeds.json"))
    return try JSONDecoder().decode(Breeds.self, from: data)
  }
}

/// Stands in for a UI test's `XCUIApplication` (XCUITest exists on Apple platforms only).
struct UITestApplication {
  func launch() {}
}

/// The app a UI test drives.
let app = UITestApplication()

/// What a compile-only block's `@Test` and `@Suite` attributes become (see
/// `DocSnippets.compileOnly(_:)`): functions that type-check the attributes' arguments as the
/// macros would, so the block compiles as written without declaring a test that `swift test` would
/// list as skipped.
enum CompileOnlySnippet {
  static func test(_ traits: any TestTrait...) {}
  static func test(_ displayName: String, _ traits: any TestTrait...) {}
  static func test<C: Collection & Sendable>(_ traits: any TestTrait..., arguments: C) {}
  static func test<C: Collection & Sendable>(_ displayName: String, _ traits: any TestTrait..., arguments: C) {}
  static func suite(_ traits: any SuiteTrait...) {}
  static func suite(_ displayName: String, _ traits: any SuiteTrait...) {}
}
