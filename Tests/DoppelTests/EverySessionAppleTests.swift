#if canImport(ObjectiveC)
  import Doppel
  import Foundation
  import Testing

  /// Apple platforms only (the macOS and iOS Simulator jobs of the CI workflow run these; Linux,
  /// which has no Objective-C runtime, cannot): `interceptProcessWide(covering: .everySession)`
  /// swizzles `URLSessionConfiguration`'s getters, so a client that makes its own session from
  /// `.default` or `.ephemeral`, as an SDK does, is answered by the backend; after stop it gets the
  /// network's answer again. The network is loopback port 1, where nothing listens: the refusal is
  /// what "the network" answers. Process-wide interception takes turns through
  /// `withProcessWideBackend`.
  @Suite struct EverySessionAppleTests {
    static let url = URL(string: "http://127.0.0.1:1/v1/config")!

    static func names(_ classes: [AnyClass]?) -> [String] { (classes ?? []).map { String(describing: $0) } }

    @Test(arguments: ["default", "ephemeral"])
    func anSDKsOwnSessionIsAnsweredAndGoesBackToTheNetworkAfterStop(configuration: String) async throws {
      let before = Self.names(URLSessionConfiguration.default.protocolClasses)
      let sdk = try await Backend.withProcessWideBackend(covering: .everySession, issueReporter: .ignore) { backend in
        backend.stub(.get(Self.url.absoluteString), .text("from the stub"))
        // What an SDK does inside the app: its own session, from a configuration it takes itself.
        let base: URLSessionConfiguration = configuration == "default" ? .default : .ephemeral
        base.httpAdditionalHeaders = ["X-SDK": "1"]
        let sdk = URLSession(configuration: base)
        #expect(await ProcessWideTests.get(Self.url, with: sdk) == "200 from the stub")
        #expect(backend.requests.count == 1)
        #expect(backend.requests.first?.headers["X-SDK"] == "1")
        return sdk
      }
      // Stopped: the getters give what they gave before, and the SDK's session meets the network.
      #expect(Self.names(URLSessionConfiguration.default.protocolClasses) == before)
      #expect(
        await ProcessWideTests.get(Self.url, with: sdk) == "URLError \(URLError.Code.cannotConnectToHost.rawValue)")
      #expect(
        await ProcessWideTests.get(Self.url, with: URLSession(configuration: .default))
          == "URLError \(URLError.Code.cannotConnectToHost.rawValue)")
    }

    /// `.shared` coverage (what `interceptProcessWide()` does) leaves the getters alone.
    @Test func sharedCoverageLeavesSDKSessionsToTheNetwork() async throws {
      try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
        backend.stub(.get(Self.url.absoluteString), .text("from the stub"))
        let sdk = URLSession(configuration: .default)
        #expect(
          await ProcessWideTests.get(Self.url, with: sdk) == "URLError \(URLError.Code.cannotConnectToHost.rawValue)")
        #expect(backend.requests.isEmpty)
      }
    }

    @Test func aBackgroundConfigurationIsReported() async throws {
      let issues = IssueCollector()
      try await Backend.withProcessWideBackend(covering: .everySession, issueReporter: issues.reporter) { _ in
        _ = URLSessionConfiguration.background(withIdentifier: "com.example.upload")
      }
      #expect(
        issues.all.map(\.message) == [
          "URLSessionConfiguration.background(withIdentifier: \"com.example.upload\") was made while a backend intercepts every session, but a background session's transfers run in a system process that never consults a URLProtocol, so Doppel cannot answer them and they reach the network. In tests, give that client backend.configuration(basedOn: .default) instead of a background configuration, or point it at a stub server (withStubServer)."
        ])
    }

    /// Another backend's sessions, made from `.ephemeral` too, keep their own class first.
    @Test func otherBackendsSessionsAreNotReached() async throws {
      let other = Backend(issueReporter: .ignore)
      other.stub(.get(Self.url.absoluteString), .text("other backend"))
      try await Backend.withProcessWideBackend(covering: .everySession, issueReporter: .ignore) { backend in
        backend.stub(.get(Self.url.absoluteString), .text("process-wide backend"))
        #expect(await ProcessWideTests.get(Self.url, with: other.session) == "200 other backend")
        #expect(
          await ProcessWideTests.get(Self.url, with: URLSession(configuration: other.configuration))
            == "200 other backend")
        #expect(backend.requests.isEmpty)
      }
    }
  }
#endif
