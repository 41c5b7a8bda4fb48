import Foundation
import TestSupport
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// A stub's literal conditions (method, path, scheme, host, port) flattened for the fast path
/// (`StubHandle.evaluate`): every literal of a kind must pass, and the fast path agrees with the
/// matcher itself.
@Suite struct LiteralMatchingTests {
  @Test func everyLiteralOfAKindMustPass() {
    let backend = quietBackend()
    let both = backend.stub(.get("https://a.com/x") && .method(.post), .ok)
    let twoPaths = backend.stub(.path("/x") && .path("/y"), .ok)
    #expect(!both.matcher.matches(request(.get, "https://a.com/x")))
    #expect(!both.matcher.matches(request(.post, "https://a.com/x")))
    #expect(both.evaluate(request(.get, "https://a.com/x")) == nil)
    #expect(both.evaluate(request(.post, "https://a.com/x")) == nil)
    #expect(twoPaths.evaluate(request("https://a.com/x")) == nil)
    #expect(twoPaths.evaluate(request("https://a.com/y")) == nil)
  }

  @Test(arguments: [
    ("https://a.com/x", "https://a.com/x", true),
    ("https://a.com/x", "https://a.com:443/x", true),
    ("https://a.com/x", "https://a.com:8443/x", false),
    ("https://a.com/x", "http://a.com/x", false),
    ("http://a.com/x", "http://a.com:80/x", true),
    ("http://a.com/x", "http://a.com:8080/x", false),
    ("http://a.com:8080/x", "http://a.com:8080/x", true),
    ("http://a.com:8080/x", "http://a.com/x", false),
    ("ws://a.com/x", "ws://a.com/x", true),
    ("ws://a.com/x", "ws://a.com:81/x", false),
    ("https://a.com/x", "https://b.com/x", false),
    ("https://a.com/x", "https://A.COM/x", true),
  ])
  func schemeHostAndPortAreCompared(stub url: String, request target: String, matches: Bool) {
    let backend = quietBackend()
    let stub = backend.stub(.get(url), .ok)
    #expect((stub.evaluate(request(target)) != nil) == matches)
    #expect(stub.matcher.matches(request(target)) == matches)
  }
}
