import Doppel
import Foundation
import TestHTTPServer
import TestSupport
import Testing

/// A stub that forwards to a real server (here a loopback one), through the URLSession door and in
/// memory, optionally recording what it got.
@Suite(.timeLimit(.minutes(1))) struct ProxyTests {
  static func echo(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
    .text(
      "\(request.method) \(request.target) \(request.bodyText)",
      headers: [("X-Upstream", "yes"), ("Set-Cookie", "session=s3cr3t-upstream-cookie-value")])
  }

  @Test func oneEndpointIsRealWhileTheRestIsStubbed() async throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let backend = quietBackend()
    backend.stub(.any, .text("stubbed"))
    let weather = backend.stub(
      .get("https://api.example.com/weather/{city}"),
      .proxy(to: URL(string: server.baseURL.absoluteString + "/v2/")!))
    let (body, response) = try await backend.send(
      .get, "https://api.example.com/weather/paris?units=metric",
      headers: ["X-Custom": "kept", "Proxy-Authorization": "Basic eA=="])
    #expect(body == "GET /v2/weather/paris?units=metric ")
    #expect(response.statusCode == 200)
    #expect(response.value(forHTTPHeaderField: "X-Upstream") == "yes")
    #expect(try await backend.send(.get, "https://api.example.com/me").body == "stubbed")
    let received = try #require(server.requests.first)
    #expect(server.requests.count == 1)
    #expect(received.header("Host") == "127.0.0.1:\(server.port)")
    #expect(received.header("X-Custom") == "kept")
    #expect(received.header("Proxy-Authorization") == nil)
    #expect(weather.callCount == 1)
    #expect(backend.journal.first?.stub === weather)

    let (data, _) = try await backend.respond(
      to: URLRequest(url: URL(string: "https://api.example.com/weather/oslo")!))
    #expect(String(decoding: data, as: UTF8.self) == "GET /v2/weather/oslo ")
  }

  @Test func aProxiedExchangeIsRecordedRedactedAndReplays() async throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-proxy-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cassette = directory.appendingPathComponent("weather.har")
    let backend = quietBackend()
    backend.stub(.post("https://api.example.com/orders"), .proxy(to: server.baseURL, recordingTo: cassette))
    let secret = "Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.token-value-1234567890"
    let (body, _) = try await backend.send(
      .post, "https://api.example.com/orders", headers: ["Authorization": secret], body: Data("sku=A1".utf8))
    #expect(body == "POST /orders sku=A1")
    #expect(server.requests.first?.header("Authorization") == secret)

    let text = try String(contentsOf: cassette, encoding: .utf8)
    #expect(!text.contains("token-value-1234567890"))
    #expect(!text.contains("s3cr3t-upstream-cookie-value"))
    #expect(text.contains(Redaction.marker))
    let loaded = try Cassette.load(from: cassette)
    #expect(loaded.entries.count == 1)
    #expect(loaded.entries.first?.request.url == "\(server.baseURL.absoluteString)/orders")
    #expect(loaded.entries.first?.response.status == 200)
  }

  @Test func anUnreachableUpstreamFailsWithTheURLError() async throws {
    let backend = quietBackend()
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    backend.stub(.get("https://api.example.com/down"), .proxy(to: URL(string: "http://127.0.0.1:9")!))
    await expectURLError(.cannotConnectToHost) { _ = try await backend.send(.get, "https://api.example.com/down") }
  }

  @Test func aBadUpstreamIsAProblemOfTheStub() {
    let collector = IssueCollector()
    let backend = Backend(issueReporter: collector.reporter)
    backend.stub(.get("/a"), .proxy(to: URL(string: "file:///etc/hosts")!))
    #expect(
      collector.all.map(\.message) == [
        #"Invalid stub: The proxy upstream "file:///etc/hosts" is not an absolute http or https URL. Write it as https://api.example.com (a path prefix may follow)."#
      ])
  }
}
