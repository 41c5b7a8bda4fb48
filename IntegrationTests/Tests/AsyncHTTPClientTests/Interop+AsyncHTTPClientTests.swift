import AsyncHTTPClient
import Doppel
import DoppelServer
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The stub server read by AsyncHTTPClient, a second HTTP client that is not URLSession.
@Suite(.timeLimit(.minutes(1))) struct AsyncHTTPClientInteropTests {
  struct Breed: Codable, Equatable {
    let name: String
  }

  @Test func asyncHTTPClientGetsAStubbedResponse() async throws {
    let backend = quietBackend()
    backend.stub(.get("/breeds.json"), .text("hello", status: 201, headers: ["X-One": "1", "X-One": "2"]))
    try await withStubServer(backend) { server in
      let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: server.url("/breeds.json").absoluteString), timeout: .seconds(10))
      #expect(response.status == .created)
      #expect(response.headers["X-One"] == ["1", "2"])
      #expect(response.headers["Content-Length"] == ["5"])
      let body = try await response.body.collect(upTo: 1 << 20)
      #expect(String(buffer: body) == "hello")
    }
  }

  @Test func uploadsReachTheMatchersAndTheJournal() async throws {
    let backend = quietBackend()
    backend.stub(.post("/orders") && .jsonBody(["sku": "A1"]), .status(201))
    backend.stub(.put("/files/big") && .header("Content-Type", "application/octet-stream"), .status(204))
    let big = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    try await withStubServer(backend) { server in
      var order = URLRequest(url: server.url("/orders"))
      order.httpMethod = "POST"
      order.setValue("application/json", forHTTPHeaderField: "Content-Type")
      let (_, created) = try await realSession.upload(for: order, from: Data(#"{"sku":"A1"}"#.utf8))
      #expect((created as? HTTPURLResponse)?.statusCode == 201)

      var upload = HTTPClientRequest(url: server.url("/files/big").absoluteString)
      upload.method = .PUT
      upload.headers.add(name: "Content-Type", value: "application/octet-stream")
      upload.body = .bytes(ByteBuffer(bytes: big))
      let response = try await HTTPClient.shared.execute(upload, timeout: .seconds(10))
      #expect(response.status == .noContent)
    }
    #expect(backend.requests.map(\.method) == [.post, .put])
    #expect(backend.requests[1].body == big)
  }

  @Test func chunkedUploadsArriveWhole() async throws {
    let backend = quietBackend()
    backend.stub(.post("/stream")) { request in .text("got \(request.body?.count ?? 0)") }
    try await withStubServer(backend) { server in
      var upload = HTTPClientRequest(url: server.url("/stream").absoluteString)
      upload.method = .POST
      let pieces = (0..<10).map { ByteBuffer(repeating: UInt8(65 + $0), count: 1_000) }
      upload.body = .stream(pieces.async, length: .unknown)
      let response = try await HTTPClient.shared.execute(upload, timeout: .seconds(10))
      #expect(String(buffer: try await response.body.collect(upTo: 1 << 20)) == "got 10000")
    }
  }

  @Test func redirectsAreFollowedByTheClient() async throws {
    let backend = quietBackend()
    backend.stub(.get("/old"), .redirect(to: "/new", status: 301))
    backend.stub(.get("/new"), .text("moved here"))
    try await withStubServer(backend) { server in
      let (body, response) = try await fetch(server.url("/old"))
      #expect(body == "moved here")
      #expect(response.url?.path == "/new")

      let client = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: server.url("/old").absoluteString), timeout: .seconds(10))
      #expect(String(buffer: try await client.body.collect(upTo: 1 << 20)) == "moved here")
    }
    // Each hop is a request of its own over HTTP: the server does not follow redirects itself.
    #expect(backend.requests.map(\.path) == ["/old", "/new", "/old", "/new"])
  }

  @Test func headRequestsGetTheLengthWithoutABody() async throws {
    let backend = quietBackend()
    backend.stub(.head("/file") || .get("/file"), .text("twelve bytes"))
    try await withStubServer(backend) { server in
      var head = HTTPClientRequest(url: server.url("/file").absoluteString)
      head.method = .HEAD
      let response = try await HTTPClient.shared.execute(head, timeout: .seconds(10))
      #expect(response.headers["Content-Length"] == ["12"])
      #expect(try await response.body.collect(upTo: 1 << 20).readableBytes == 0)
      // The connection is still in step for the next request.
      let next = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: server.url("/file").absoluteString), timeout: .seconds(10))
      #expect(String(buffer: try await next.body.collect(upTo: 1 << 20)) == "twelve bytes")
    }
  }

  @Test func manyConcurrentRequestsOnKeptAliveConnections() async throws {
    let backend = quietBackend()
    for index in 0..<100 { backend.stub(.get("/items/\(index)"), .text("item \(index)")) }
    try await withStubServer(backend) { server in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<200 {
          group.addTask {
            let response = try await HTTPClient.shared.execute(
              HTTPClientRequest(url: server.url("/items/\(index % 100)").absoluteString), timeout: .seconds(20))
            let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(body == "item \(index % 100)")
          }
        }
        try await group.waitForAll()
      }
    }
    #expect(backend.requests.count == 200)
  }

  @Test func theServerListensOnIPv6Loopback() async throws {
    let backend = quietBackend()
    backend.stub(.get("/six"), .text("six"))
    let server: StubServer
    do {
      server = try await StubServer.start(serving: backend, host: "::1")
    } catch {
      return  // no IPv6 on this machine
    }
    #expect(server.baseURL.absoluteString.hasPrefix("http://[::1]:"))
    let response = try await HTTPClient.shared.execute(
      HTTPClientRequest(url: server.url("/six").absoluteString), timeout: .seconds(10))
    #expect(String(buffer: try await response.body.collect(upTo: 1024)) == "six")
    await server.shutdown()
  }
}

extension Array where Element: Sendable {
  /// The elements as an async sequence.
  fileprivate var async: AsyncStream<Element> {
    AsyncStream { continuation in
      for element in self { continuation.yield(element) }
      continuation.finish()
    }
  }
}
