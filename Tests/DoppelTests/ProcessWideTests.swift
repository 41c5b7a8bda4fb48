import Doppel
import Foundation
import TestHTTPServer
import TestSupport
import Testing

/// Process-wide interception inside an ordinary `swift test` process: sessions (including
/// `URLSession.shared`) already exist and have been used, XCTest and Swift Testing tests share the
/// process, and other tests run in parallel with their own backends. Every request stays on
/// loopback; a `TestHTTPServer` shows which requests reached a real server.
@Suite struct ProcessWideTests {
  static let busy =
    "Another Backend already intercepts process-wide. Call stopInterceptingProcessWide() on it first, or use Backend.withProcessWideBackend { … }, which waits its turn."

  /// A loopback server that counts what reaches it.
  static func startServer() throws -> TestHTTPServer {
    try TestHTTPServer.start { _ in .text("from the server") }
  }

  /// GETs `url` through `session`: "STATUS BODY", or the URLError code.
  static func get(_ url: URL, with session: URLSession) async -> String {
    do {
      let (data, response) = try await session.data(from: url)
      return "\((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))"
    } catch let error as URLError {
      return "URLError \(error.code.rawValue)"
    } catch {
      return "error \(error)"
    }
  }

  @Test func urlSessionSharedIsAnsweredEvenAfterItAndOtherSessionsWereUsed() async throws {
    let server = try Self.startServer()
    defer { server.stop() }
    let url = server.baseURL.appending(path: "breeds.json")
    // Tests that use URLSession.shared take turns: withProcessWideBackend waits for the others.
    try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
      backend.stub(.get(url.absoluteString), .text("from the stub"))
      backend.stopInterceptingProcessWide()
      // What a test process looks like by now: sessions exist, URLSession.shared has reached a server.
      _ = quietBackend().session
      #expect(await Self.get(url, with: URLSession(configuration: .ephemeral)) == "200 from the server")
      #expect(await Self.get(url, with: .shared) == "200 from the server")
      #expect(server.requests.count == 2)
      let classesBefore = (URLSession.shared.configuration.protocolClasses ?? []).map(ObjectIdentifier.init)

      try backend.interceptProcessWide()
      #expect(backend.isInterceptingProcessWide)
      #expect(await Self.get(url, with: .shared) == "200 from the stub")
      #expect(backend.requests.count == 1)
      #expect(server.requests.count == 2)

      // Stopped: URLSession.shared uses the network again, with the classes it had.
      backend.stopInterceptingProcessWide()
      #expect(await Self.get(url, with: .shared) == "200 from the server")
      #expect(server.requests.count == 3)
      #expect((URLSession.shared.configuration.protocolClasses ?? []).map(ObjectIdentifier.init) == classesBefore)
    }
  }

  @Test func anUnmatchedRequestOfTheSharedSessionFailsInsteadOfReachingTheNetwork() async throws {
    let server = try Self.startServer()
    defer { server.stop() }
    let issues = IssueCollector()
    try await Backend.withProcessWideBackend(issueReporter: issues.reporter) { _ in
      let outcome = await Self.get(server.baseURL.appending(path: "cats.json"), with: .shared)
      #expect(outcome == "URLError \(URLError.Code.resourceUnavailable.rawValue)")
    }
    #expect(server.requests.isEmpty)
    #expect(
      issues.all.first?.message.hasPrefix("No stub matched GET \(server.baseURL.absoluteString)/cats.json") == true)
  }

  @Test func otherBackendsSessionsAreNotAffected() async throws {
    let url = "https://api.example.com/breeds.json"
    let other = quietBackend()
    other.stub(.get(url), .text("other backend"))
    try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
      backend.stub(.get(url), .text("process-wide backend"))
      #expect(await Self.get(URL(string: url)!, with: other.session) == "200 other backend")
      #expect(await Self.get(URL(string: url)!, with: .shared) == "200 process-wide backend")
      #expect(other.requests.count == 1)
      #expect(backend.requests.count == 1)
    }
  }

  @Test func aSessionMadeFromTheSharedConfigurationIsCoveredUntilInterceptionStops() async throws {
    let server = try Self.startServer()
    defer { server.stop() }
    let url = server.baseURL.appending(path: "breeds.json")
    let copied = try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
      backend.stub(.get(url.absoluteString), .text("from the stub"))
      let session = URLSession(configuration: URLSession.shared.configuration)
      #expect(await Self.get(url, with: session) == "200 from the stub")
      return session
    }
    #expect(server.requests.isEmpty)
    // Stopped: the copy uses the network again, even while another backend intercepts.
    try await Backend.withProcessWideBackend(issueReporter: .ignore) { later in
      later.stub(.get(url.absoluteString), .text("from a later backend"))
      #expect(await Self.get(url, with: copied) == "200 from the server")
      #expect(later.requests.isEmpty)
    }
    #expect(server.requests.count == 1)
  }

  @Test func onlyOneBackendInterceptsAtATime() async throws {
    try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
      let second = quietBackend()
      #expect(throws: DoppelError(Self.busy)) { try second.interceptProcessWide() }
      #expect(!second.isInterceptingProcessWide)
      second.stopInterceptingProcessWide()  // not the one intercepting: does nothing
      #expect(backend.isInterceptingProcessWide)
      try backend.interceptProcessWide()  // again: nothing changes
      #expect(backend.isInterceptingProcessWide)
    }
  }

  #if canImport(FoundationNetworking)
    /// On Linux, a session the code under test makes from `.default` or `.ephemeral` lists the
    /// built-in HTTP handler first, so Doppel cannot answer it; while a backend intercepts, its
    /// requests are stopped before they reach the network and reported, each with the fix.
    /// (Were the guard broken, these hosts under the reserved `.test` domain would not resolve.)
    /// On Apple platforms nothing stops them: URLSession reads no proxy variables there, and the
    /// README says such a session reaches the network.
    @Test(arguments: ["default", "ephemeral"])
    func sessionsMadeFromDefaultOrEphemeralAreStoppedAndReportedOnLinux(configuration: String) async throws {
      let issues = IssueCollector()
      let base: URLSessionConfiguration = configuration == "default" ? .default : .ephemeral
      let sdkSession = URLSession(configuration: base)
      try await Backend.withProcessWideBackend(issueReporter: issues.reporter) { backend in
        backend.stub(.get("http://api.sdk.doppel.test/breeds.json"), .text("from the stub"))
        #expect(
          await Self.get(URL(string: "http://api.sdk.doppel.test/breeds.json")!, with: sdkSession)
            == "URLError \(URLError.Code.badServerResponse.rawValue)")
        #expect(
          await Self.get(URL(string: "https://secure.sdk.doppel.test/v1/me")!, with: URLSession(configuration: base))
            == "URLError \(URLError.Code.unknown.rawValue)")
        #expect(backend.requests.isEmpty)
      }
      #expect(
        issues.all.map(\.message) == [
          "GET http://api.sdk.doppel.test/breeds.json was stopped before it reached the network: it came from a URLSession Doppel does not serve (one made from URLSessionConfiguration.default or .ephemeral, as a third-party SDK makes its own) while a backend intercepts process-wide. Give that client backend.configuration(basedOn:) so its requests reach the backend (see \"Clients that make their own sessions\" in Getting Started).",
          "An HTTPS request to secure.sdk.doppel.test:443 was stopped before it reached the network: it came from a URLSession Doppel does not serve (one made from URLSessionConfiguration.default or .ephemeral, as a third-party SDK makes its own) while a backend intercepts process-wide. Give that client backend.configuration(basedOn:) so its requests reach the backend (see \"Clients that make their own sessions\" in Getting Started).",
        ])
    }

    /// On Linux, with `.everySession`, an SDK's own `.default` or `.ephemeral` session is answered
    /// for plain HTTP through the network guard (libcurl sends the whole request to its proxy),
    /// journalled like any request, body included; HTTPS, a tunnel the guard cannot look into, is
    /// still stopped and reported, with what to do instead. (The `.test` hosts would not resolve
    /// were the guard broken.)
    @Test(arguments: ["default", "ephemeral"])
    func onLinuxEverySessionAnswersPlainHTTPOfAnSDKsOwnSession(configuration: String) async throws {
      let issues = IssueCollector()
      let base: URLSessionConfiguration = configuration == "default" ? .default : .ephemeral
      let sdkSession = URLSession(configuration: base)
      try await Backend.withProcessWideBackend(covering: .everySession, issueReporter: issues.reporter) { backend in
        backend.stub(.get("http://api.sdk.doppel.test/breeds.json"), .json(["siamese"], status: 200))
        backend.stub(.post("http://api.sdk.doppel.test/events"), .status(202))
        #expect(
          await Self.get(URL(string: "http://api.sdk.doppel.test/breeds.json")!, with: sdkSession)
            == #"200 ["siamese"]"#)
        var post = URLRequest(url: URL(string: "http://api.sdk.doppel.test/events")!)
        post.httpMethod = "POST"
        post.httpBody = Data(#"{"event":"launch"}"#.utf8)
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await sdkSession.data(for: post)
        #expect((response as? HTTPURLResponse)?.statusCode == 202)
        #expect(
          await Self.get(URL(string: "https://secure.sdk.doppel.test/v1/me")!, with: sdkSession)
            == "URLError \(URLError.Code.unknown.rawValue)")
        #expect(
          backend.requests.map { "\($0.method) \($0.url.absoluteString)" } == [
            "GET http://api.sdk.doppel.test/breeds.json", "POST http://api.sdk.doppel.test/events",
          ])
        #expect(backend.requests.last?.bodyText == #"{"event":"launch"}"#)
        #expect(backend.requests.last?.headers["Content-Type"] == "application/json")
      }
      #expect(
        issues.all.map(\.message) == [
          "An HTTPS request to secure.sdk.doppel.test:443 was stopped before it reached the network: on Linux, Doppel answers the sessions code makes itself from URLSessionConfiguration.default or .ephemeral for plain http:// only (libcurl sends HTTPS to its proxy as a CONNECT tunnel Doppel cannot look into). Give that client backend.configuration(basedOn:) so its requests reach the backend (see \"Clients that make their own sessions\" in Getting Started)."
        ])
    }

    /// Loopback stays direct while a backend intercepts, so local servers in tests keep working;
    /// and the proxy variables are put back when interception stops. (Linux only: on Apple
    /// platforms interception sets no proxy variables.)
    @Test func loopbackStaysDirectAndTheEnvironmentIsPutBack() async throws {
      let server = try Self.startServer()
      defer { server.stop() }
      let url = server.baseURL.appending(path: "breeds.json")
      func proxyVariables() -> [String?] {
        let names: [String] = ["http_proxy", "https_proxy", "no_proxy"]
        return names.map { name in getenv(name).map { String(cString: $0) } }
      }
      try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
        backend.stopInterceptingProcessWide()
        let before = proxyVariables()
        try backend.interceptProcessWide()
        #expect(proxyVariables()[0]?.hasPrefix("http://127.0.0.1:") == true)
        #expect(await Self.get(url, with: URLSession(configuration: .ephemeral)) == "200 from the server")
        #expect(backend.requests.isEmpty)
        backend.stopInterceptingProcessWide()
        #expect(proxyVariables() == before.map { $0 ?? "" })
      }
      #expect(server.requests.count == 1)
    }
  #endif

  /// The Getting Started recipe: a client that makes its own sessions from a configuration it is
  /// given (as Alamofire's `Session(configuration:)` does) is routed through
  /// `configuration(basedOn:)`, and nothing reaches the server.
  @Test func aClientThatMakesItsOwnSessionsIsRoutedThroughConfigurationBasedOn() async throws {
    let server = try Self.startServer()
    defer { server.stop() }
    let url = server.baseURL.appending(path: "breeds.json")
    let backend = quietBackend()
    backend.stub(.get(url.absoluteString), .text("from the stub"))

    let configuration = URLSessionConfiguration.default
    configuration.httpAdditionalHeaders = ["X-SDK": "1"]
    let client = ThirdPartyClient(configuration: backend.configuration(basedOn: configuration))
    #expect(try await client.get(url) == "from the stub")
    #expect(server.requests.isEmpty)
    #expect(backend.requests.count == 1)
  }
}

/// Stands in for a third-party SDK: it takes a configuration and makes its own session from it.
final class ThirdPartyClient: Sendable {
  let session: URLSession
  init(configuration: URLSessionConfiguration = .default) { session = URLSession(configuration: configuration) }
  func get(_ url: URL) async throws -> String {
    String(decoding: try await session.data(from: url).0, as: UTF8.self)
  }
}
