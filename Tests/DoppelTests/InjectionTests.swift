import Doppel
import Foundation
import Testing

/// An app's own protocol for what loads data: `URLSession`'s own `data(for:delegate:)`, so
/// `URLSession` conforms as it is, and a test conforms an adapter over `respond(to:)`.
private protocol AppDataLoading: Sendable {
  func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse)
}

extension AppDataLoading {
  func data(for request: URLRequest) async throws -> (Data, URLResponse) {
    try await data(for: request, delegate: nil)
  }
}

extension URLSession: AppDataLoading {}

/// The adapter a test target writes: the app's protocol, answered in memory by a backend.
private struct InMemoryLoader: AppDataLoading {
  let backend: Backend

  func data(for request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws -> (Data, URLResponse) {
    try await backend.respond(to: request)
  }
}

/// Code that takes a protocol or a closure instead of a `URLSession`, answered in memory by the
/// same backend, stubs, journal and diagnostics.
@Suite struct InjectionTests {
  /// Client code written against the app's protocol.
  fileprivate struct ProtocolClient {
    let loader: any AppDataLoading

    func text(_ url: String, method: String = "GET", body: String? = nil) async throws -> (Int, String) {
      var request = URLRequest(url: URL(string: url)!)
      request.httpMethod = method
      request.httpBody = body.map { Data($0.utf8) }
      let (data, response) = try await loader.data(for: request)
      return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }
  }

  /// Client code written against a closure.
  struct ClosureClient {
    let load: @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)

    func text(_ url: String) async throws -> (Int, String) {
      let (data, response) = try await load(URLRequest(url: URL(string: url)!))
      return (response.statusCode, String(decoding: data, as: UTF8.self))
    }
  }

  /// The ways into one backend, as the same kind of function: its session, the app's protocol
  /// over `respond(to:)`, and the closure.
  enum Door: String, CaseIterable, CustomTestStringConvertible {
    case session, adapter, handler

    var testDescription: String { rawValue }

    func get(_ backend: Backend, _ url: String) async throws -> (Int, String) {
      switch self {
      case .session: try await ProtocolClient(loader: backend.session).text(url)
      case .adapter: try await ProtocolClient(loader: InMemoryLoader(backend: backend)).text(url)
      case .handler: try await ClosureClient(load: backend.handler).text(url)
      }
    }
  }

  @Test(arguments: Door.allCases)
  func answersWithTheStubsAndJournalsTheRequest(door: Door) async throws {
    let backend = Backend()
    let stub = backend.stub(.get("https://api.example.com/breeds"), .text("Abyssinian", status: 203)).expect(times: 1)
    #expect(try await door.get(backend, "https://api.example.com/breeds") == (203, "Abyssinian"))
    #expect(stub.callCount == 1)
    #expect(backend.journal.count == 1)
    #expect(backend.journal.first?.isMatched == true)
    #expect(backend.lastRequest?.url.absoluteString == "https://api.example.com/breeds")
    #expect(backend.verify().isEmpty)
  }

  @Test(arguments: Door.allCases)
  func unmatchedRequestsFailWithTheSameNearMissReport(door: Door) async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let line = #line + 1
    backend.stub(.get("https://api.example.com/breeds"), .ok)
    let error = await #expect(throws: URLError.self) { try await door.get(backend, "https://api.example.com/breed") }
    let report = """
      No stub matched GET https://api.example.com/breed
      Closest stubs:
        1. InjectionTests.swift:\(line)  GET https://api.example.com/breeds
             ✓ method GET
             ✓ scheme https
             ✓ host   api.example.com
             ✗ path   expected "/breeds", got "/breed"
      Add a stub for this request, or fix the closest one. This one answers it (in Swift, or in a manifest):
        backend.stub(.get("https://api.example.com/breed"), .status(200))
        {"request":"GET https://api.example.com/breed","response":{"status":200}}
      """
    #expect(error?.code == .resourceUnavailable)
    #expect(error?.localizedDescription == report)
    #expect(issues.all.map(\.message) == [report])
    #expect(backend.unmatchedRequests.count == 1)
    #expect(backend.verify().map(\.message) == [report])
  }

  @Test(arguments: Door.allCases)
  func stubbedErrorsReachTheCaller(door: Door) async throws {
    let backend = Backend()
    backend.stub(.get("/offline"), .error(.notConnectedToInternet))
    let error = await #expect(throws: URLError.self) { try await door.get(backend, "https://x.com/offline") }
    #expect(error?.code == .notConnectedToInternet)
  }

  @Test func theInMemoryDoorsSeeBodiesAndHeaders() async throws {
    let backend = Backend()
    backend.stub(.post("/orders") && .jsonBody(["sku": "A1"]), .status(201))
    func order() -> URLRequest {
      var request = URLRequest(url: URL(string: "https://x.com/orders")!)
      request.httpMethod = "POST"
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.httpBodyStream = InputStream(data: Data(#"{"sku": "A1"}"#.utf8))
      return request
    }
    let (_, response) = try await backend.respond(to: order())
    #expect(response.statusCode == 201)
    let (_, handled) = try await backend.handler(order())
    #expect(handled.statusCode == 201)
    #expect(backend.requests.map(\.bodyText) == [#"{"sku": "A1"}"#, #"{"sku": "A1"}"#])
    #expect(backend.requests.first?.headers["Content-Type"] == "application/json")
  }

  @Test func manyConcurrentRequestsThroughTheInMemoryDoors() async throws {
    let backend = Backend()
    backend.stub(.get("/n/{id}")) { request in .text(request.pathParameters["id"] ?? "") }
    let loader = InMemoryLoader(backend: backend)
    let handler = backend.handler
    let bodies = try await withThrowingTaskGroup(of: String.self) { group in
      for index in 0..<100 {
        group.addTask {
          let request = URLRequest(url: URL(string: "https://x.com/n/\(index)")!)
          let data = index.isMultiple(of: 2) ? try await loader.data(for: request).0 : try await handler(request).0
          return String(decoding: data, as: UTF8.self)
        }
      }
      return try await group.reduce(into: Set<String>()) { $0.insert($1) }
    }
    #expect(bodies == Set((0..<100).map(String.init)))
    #expect(backend.journal.count == 100)
  }
}
