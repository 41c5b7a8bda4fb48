// Only these two imports: `import DoppelTesting` alone must be enough to write URLSession code on
// Linux, where URLRequest and HTTPURLResponse live in FoundationNetworking.
import DoppelTesting
import Testing

@Suite struct ExportsTests {
  @Test(.doppel { $0.stub(.post("/orders"), .status(201)) })
  func urlSessionTypesNeedNoOtherImport() async throws {
    var request = URLRequest(url: URL(string: "https://api.example.com/orders")!)
    request.httpMethod = "POST"
    let session: URLSession = Backend.current.session
    let (_, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    #expect(http.statusCode == 201)
  }
}
