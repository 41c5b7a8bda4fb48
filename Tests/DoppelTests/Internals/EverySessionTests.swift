import Foundation
import TestSupport
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What `interceptProcessWide(covering: .everySession)` decides for each configuration, and what
/// stopping restores, driven without the Objective-C swizzle (which only Apple platforms have):
/// `EverySession.adjust(_:madeAs:)` is exactly what the swizzled getters call on each
/// configuration they return. Internal, because the swizzle's decision is not public API; the
/// public behaviour is in `ProcessWideTests` (and, on Apple platforms, `EverySessionAppleTests`).
/// Process-wide interception takes turns through `withProcessWideBackend`.
@Suite struct EverySessionTests {
  static let background =
    "URLSessionConfiguration.background(withIdentifier: \"com.example.upload\") was made while a backend intercepts every session, but a background session's transfers run in a system process that never consults a URLProtocol, so Doppel cannot answer them and they reach the network. In tests, give that client backend.configuration(basedOn: .default) instead of a background configuration, or point it at a stub server (withStubServer)."

  static func names(_ classes: [AnyClass]?) -> [String] { (classes ?? []).map { String(describing: $0) } }

  @Test func onlyABackendInterceptingEverySessionChangesConfigurations() {
    let every = ProcessWideCoverage.everySession
    #expect(EverySession.decision(for: .default, backend: 0, coverage: every) == .leave)
    #expect(EverySession.decision(for: .default, backend: 7, coverage: .shared) == .leave)
    #expect(EverySession.decision(for: .ephemeral, backend: 7, coverage: .shared) == .leave)
    #expect(EverySession.decision(for: .default, backend: 7, coverage: every) == .prepend)
    #expect(EverySession.decision(for: .ephemeral, backend: 7, coverage: every) == .prepend)
    #expect(
      EverySession.decision(for: .background(identifier: "com.example.upload"), backend: 7, coverage: every)
        == .report(Self.background))
    #expect(EverySession.decision(for: .background(identifier: "x"), backend: 7, coverage: .shared) == .leave)
    #expect(ProcessWideCoverage.shared.description == "shared")
    #expect(ProcessWideCoverage.everySession.description == "everySession")
  }

  /// Doppel's class goes first and only once; taking it out gives back the list as it was.
  @Test func theClassIsPutFirstOnceAndTakenOutExactly() {
    let original = URLSessionConfiguration.default.protocolClasses
    let once = EverySession.prepending(to: original)
    let twice = EverySession.prepending(to: once)
    #expect(Self.names(once) == ["EverySessionURLProtocol"] + Self.names(original))
    #expect(Self.names(twice) == Self.names(once))
    #expect(Self.names(EverySession.removing(from: twice)) == Self.names(original))
    #expect(Self.names(EverySession.prepending(to: nil)) == ["EverySessionURLProtocol"])
    #expect(EverySession.removing(from: nil).isEmpty)
  }

  /// The whole path but the swizzle: a configuration adjusted as a getter adjusts it is answered by
  /// the backend while it intercepts every session, by a later backend that does (an SDK's
  /// singleton session lives across tests), and by the network once none does; and a backend's
  /// own configuration made from it reaches that backend alone.
  @Test func anAdjustedConfigurationFollowsWhicheverBackendInterceptsEverySession() async throws {
    // Nothing listens on port 1 of loopback: the network's answer is a refused connection.
    let url = URL(string: "http://127.0.0.1:1/v1/events")!
    let other = quietBackend()
    other.stub(.get(url.absoluteString), .text("other backend"))
    let sdk = try await Backend.withProcessWideBackend(covering: .everySession, issueReporter: .ignore) { backend in
      backend.stub(.get(url.absoluteString), .text("first backend"))
      let configuration = EverySession.adjust(.default, madeAs: .default)
      #expect(Self.names(configuration.protocolClasses).first == "EverySessionURLProtocol")
      #expect(EverySessionURLProtocol.canInit(with: URLRequest(url: url)))
      let sdk = URLSession(configuration: configuration)
      #expect(await ProcessWideTests.get(url, with: sdk) == "200 first backend")
      // Another backend's configuration based on it drops Doppel's class: it reaches `other` only.
      let routed = other.configuration(basedOn: configuration)
      #expect(Self.names(routed.protocolClasses).filter { $0 == "EverySessionURLProtocol" }.isEmpty)
      #expect(await ProcessWideTests.get(url, with: URLSession(configuration: routed)) == "200 other backend")
      #expect(backend.requests.count == 1)
      return sdk
    }
    // Stopped: the getters' configurations are left as they are, and the class declines.
    let after = EverySession.adjust(.default, madeAs: .default)
    #expect(Self.names(after.protocolClasses) == Self.names(URLSessionConfiguration.default.protocolClasses))
    #expect(!EverySessionURLProtocol.canInit(with: URLRequest(url: url)))
    #expect(await ProcessWideTests.get(url, with: sdk) == "URLError \(URLError.Code.cannotConnectToHost.rawValue)")
    // A backend intercepting only URLSession.shared does not take it.
    try await Backend.withProcessWideBackend(issueReporter: .ignore) { backend in
      backend.stub(.get(url.absoluteString), .text("shared only"))
      #expect(!EverySessionURLProtocol.canInit(with: URLRequest(url: url)))
      #expect(backend.processWideCoverage == .shared)
    }
    try await Backend.withProcessWideBackend(covering: .everySession, issueReporter: .ignore) { later in
      later.stub(.get(url.absoluteString), .text("later backend"))
      #expect(later.processWideCoverage == .everySession)
      #expect(await ProcessWideTests.get(url, with: sdk) == "200 later backend")
    }
    #expect(other.requests.count == 1)
  }

  @Test func aBackgroundConfigurationIsReportedWithTheFix() async throws {
    let issues = IssueCollector()
    try await Backend.withProcessWideBackend(covering: .everySession, issueReporter: issues.reporter) { _ in
      let configuration = URLSessionConfiguration.default
      let before = Self.names(configuration.protocolClasses)
      EverySession.adjust(configuration, madeAs: .background(identifier: "com.example.upload"))
      #expect(Self.names(configuration.protocolClasses) == before)
    }
    #expect(issues.all.map(\.message) == [Self.background])
  }

  /// The swizzle exists only where there is an Objective-C runtime.
  @Test func theGettersAreSwizzledOnlyOnApplePlatforms() {
    #if canImport(ObjectiveC)
      #expect(ConfigurationGetters.install())
    #else
      #expect(!ConfigurationGetters.install())
    #endif
  }
}
