import DoppelTesting
import Foundation
import Testing

/// The cost of a test through the trait, measured as a suite pays it: 2,000 parameterized cases,
/// each with its own backend (20 stubs, given by `.doppel`), 5 requests through
/// `Backend.current.session` and the trait's verification; against the same 2,000 cases each
/// making a fresh ephemeral session over a minimal `URLProtocol`.
///
/// A benchmark, not a test (it asserts nothing about time), in a package of its own so that the main
/// `swift test` never runs it. Run each side alone in release mode and compare the durations Swift
/// Testing prints:
///
///     swift test -c release --package-path Benchmarks/TraitCost --filter 'TestCostTests/throughTheTrait'
///     swift test -c release --package-path Benchmarks/TraitCost --filter 'TestCostTests/minimalURLProtocol\b'
///
/// Three more cases split the difference: the floor's work inside a scoping trait that does nothing
/// (what Swift Testing's trait machinery costs), inside `.doppel` with its 20 stubs (what the
/// trait costs without Doppel answering), and the floor without a URL cache (as Doppel's sessions
/// have none).
@Suite
struct TestCostTests {
  static let urls = (0..<20).map { "https://api.example.com/items/\($0)" }
  static let body = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0) })

  /// The URL request `request` of case `index` asks for.
  static func url(case index: Int, request: Int) -> URL {
    URL(string: urls[(index * 5 + request) % urls.count])!
  }

  @Test(
    .doppel { backend in
      for url in TestCostTests.urls { backend.stub(.get(url), .data(TestCostTests.body)) }
    },
    arguments: 0..<2_000)
  func throughTheTrait(index: Int) async throws {
    let session = Backend.current.session
    for request in 0..<5 {
      let (data, response) = try await session.data(from: Self.url(case: index, request: request))
      #expect((response as? HTTPURLResponse)?.statusCode == 200)
      #expect(data.count == 1024)
    }
  }

  @Test(arguments: 0..<2_000)
  func minimalURLProtocol(index: Int) async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [MinimalURLProtocol.self]
    let session = URLSession(configuration: configuration)
    for request in 0..<5 {
      let (data, response) = try await session.data(from: Self.url(case: index, request: request))
      #expect((response as? HTTPURLResponse)?.statusCode == 200)
      #expect(data.count == 1024)
    }
  }

  /// The floor without a URL cache, as Doppel's sessions have none: what the ephemeral
  /// configuration's `URLCache` (a lookup per request on background threads) does to the floor.
  @Test(arguments: 0..<2_000)
  func minimalURLProtocolWithoutAURLCache(index: Int) async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [MinimalURLProtocol.self]
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    for request in 0..<5 {
      let (data, response) = try await session.data(from: Self.url(case: index, request: request))
      #expect((response as? HTTPURLResponse)?.statusCode == 200)
      #expect(data.count == 1024)
    }
  }

  /// The floor's work inside a scoping trait that does nothing: what Swift Testing's trait
  /// machinery costs by itself.
  @Test(EmptyScope(), arguments: 0..<2_000)
  func minimalURLProtocolInAnEmptyTrait(index: Int) async throws {
    try await minimalURLProtocol(index: index)
  }

  /// The trait's backend and stubs, with the floor's session doing the requests: what the trait
  /// costs without Doppel answering.
  @Test(
    .doppel { backend in
      for url in TestCostTests.urls { backend.stub(.get(url), .data(TestCostTests.body)) }
    },
    arguments: 0..<2_000)
  func theTraitAloneWithTheFloorsRequests(index: Int) async throws {
    _ = Backend.current
    try await minimalURLProtocol(index: index)
  }
}

/// A scoping trait that only runs the test.
private struct EmptyScope: TestTrait, TestScoping {
  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await function()
  }
}

/// The least a `URLProtocol` stub can do: a prebuilt answer per URL, delivered inside
/// `startLoading`.
private final class MinimalURLProtocol: URLProtocol {
  static let answers: [String: HTTPURLResponse] = Dictionary(
    uniqueKeysWithValues: TestCostTests.urls.map { url in
      (
        url,
        HTTPURLResponse(
          url: URL(string: url)!, statusCode: 200, httpVersion: "HTTP/1.1",
          headerFields: ["Content-Type": "application/octet-stream", "Content-Length": "1024"])!
      )
    })

  override class func canInit(with request: URLRequest) -> Bool { true }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override func startLoading() {
    guard let client else { return }
    guard let response = Self.answers[request.url?.absoluteString ?? ""] else {
      client.urlProtocol(self, didFailWithError: URLError(.fileDoesNotExist))
      return
    }
    client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
    client.urlProtocol(self, didLoad: TestCostTests.body)
    client.urlProtocolDidFinishLoading(self)
  }

  override func stopLoading() {}
}
