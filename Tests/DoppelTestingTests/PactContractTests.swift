import DoppelTesting
import Foundation
import Testing

/// Where the contract tests write their pact: the folder `DOPPEL_PACT_DIR` names (`.ci/pact/run`
/// sets it, then verifies the files against a provider with Pact's own verifier), or a new
/// temporary folder.
enum ContractFolder {
  static let url: URL = {
    if let folder = ProcessInfo.processInfo.environment["DOPPEL_PACT_DIR"], !folder.isEmpty {
      return URL(fileURLWithPath: folder, isDirectory: true)
    }
    return FileManager.default.temporaryDirectory.appendingPathComponent("doppel-pacts-\(UUID().uuidString)")
  }()
}

/// A client of the breeds API, as an app has one.
struct BreedsClient {
  let session: URLSession
  let base = URL(string: "https://api.example.com")!

  func breeds(page: Int) async throws -> [[String: String]] {
    let (data, _) = try await session.data(from: base.appendingPathComponent("breeds").appending(page: page))
    return try JSONDecoder().decode([[String: String]].self, from: data)
  }

  func breed(_ id: String) async throws -> [String: String] {
    let (data, _) = try await session.data(from: base.appendingPathComponent("breeds/\(id)"))
    return try JSONDecoder().decode([String: String].self, from: data)
  }

  func image(_ path: String) async throws -> String {
    let (data, _) = try await session.data(from: base.appendingPathComponent("images/\(path)"))
    return String(decoding: data, as: UTF8.self)
  }

  func order(sku: String, quantity: Int, requestID: String) async throws -> (status: Int, order: [String: String]) {
    var request = URLRequest(url: base.appendingPathComponent("orders"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue(requestID, forHTTPHeaderField: "X-Request-ID")
    request.setValue("Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345", forHTTPHeaderField: "Authorization")
    let body: [String: JSONValue] = ["sku": .string(sku), "quantity": .number(Double(quantity)), "giftWrap": false]
    request.httpBody = try JSONEncoder().encode(body)
    let (data, response) = try await session.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    return (status, try JSONDecoder().decode([String: String].self, from: data))
  }
}

extension URL {
  fileprivate func appending(page: Int) -> URL {
    var components = URLComponents(url: self, resolvingAgainstBaseURL: false)!
    components.queryItems = [URLQueryItem(name: "page", value: String(page))]
    return components.url!
  }
}

/// BreedsApp's tests against stubs of the breeds API, each adding what it relied on to the
/// contract `BreedsApp-BreedsAPI.json`, which `.ci/pact/run` verifies against
/// `.ci/pact/provider.py`, the provider.
@Suite struct PactContractTests {
  @Test(
    .doppel(pact: "BreedsApp-BreedsAPI", pactDirectory: ContractFolder.url) {
      $0.stub(
        .get("/breeds") && .query(["page": "1"]),
        .json([["id": "abys", "name": "Abyssinian"], ["id": "beng", "name": "Bengal"]]))
    })
  func listsTheFirstPageOfBreeds() async throws {
    let breeds = try await BreedsClient(session: Backend.current.session).breeds(page: 1)
    #expect(breeds.map { $0["name"] } == ["Abyssinian", "Bengal"])
  }

  @Test(
    .doppel(pact: "BreedsApp-BreedsAPI", pactDirectory: ContractFolder.url) {
      $0.stub(
        .get("/breeds/{id}"),
        Response.json(raw: #"{"id": "{{path.id}}", "lastSeen": "{{now}}"}"#).templated(), name: "a breed")
    })
  func showsABreed() async throws {
    let breed = try await BreedsClient(session: Backend.current.session).breed("beng")
    #expect(breed["id"] == "beng")
    #expect(breed["lastSeen"] != nil)
  }

  @Test(
    .doppel(pact: "BreedsApp-BreedsAPI", pactDirectory: ContractFolder.url) {
      $0.stub(.method(.get) && .path(glob: "/images/**/*.png"), .text("PNG"), name: "a breed's picture")
    })
  func loadsAPicture() async throws {
    let picture = try await BreedsClient(session: Backend.current.session).image("beng/large/1.png")
    #expect(picture == "PNG")
  }

  @Test(
    .doppel(pact: "BreedsApp-BreedsAPI", pactDirectory: ContractFolder.url) {
      $0.stub(
        .post("/orders") && .header("X-Request-ID", regex: "^[0-9a-f]{8}$")
          && .jsonBody(containing: ["sku": "abys-kitten", "quantity": 1]),
        .json(["id": "o-1", "status": "placed", "receipt_token": "rt-test-0000"], status: 201), name: "an order")
      $0.stub(.delete("/orders/{id}"), .status(204), name: "a cancelled order")
    })
  func placesAnOrder() async throws {
    let placed = try await BreedsClient(session: Backend.current.session)
      .order(sku: "abys-kitten", quantity: 1, requestID: "0a1b2c3d")
    #expect(placed.status == 201)
    #expect(placed.order["status"] == "placed")
  }
}
