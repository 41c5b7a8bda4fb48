import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The URL a proxy stub forwards to: the upstream with the request's path and query appended.
@Suite struct ProxyTargetTests {
  @Test func theTargetAppendsPathAndQueryToTheUpstream() {
    func target(_ upstream: String, _ url: String) -> String? {
      Proxy(upstream: URL(string: upstream)!, recorder: nil)
        .target(for: request(url))?.absoluteString
    }
    #expect(target("https://api.example.com", "http://localhost:8080/a/b?x=1") == "https://api.example.com/a/b?x=1")
    #expect(target("https://api.example.com/v2/", "http://h/a%20b?q=%2F") == "https://api.example.com/v2/a%20b?q=%2F")
    #expect(target("https://api.example.com:8443/v2", "http://h/") == "https://api.example.com:8443/v2/")
  }
}
