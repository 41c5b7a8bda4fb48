import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// `URLParts` splits plain URLs itself for speed; whatever it reports must be what `URL` reports.
@Suite("URL parts")
struct URLPartsTests {
  static let urls = [
    "https://api.example.com/breeds.json",
    "https://api.example.com",
    "https://api.example.com/",
    "https://API.Example.COM/Breeds.json",
    "HTTPS://api.example.com/a",
    "http://localhost:8080/users/42?expand=true#top",
    "http://127.0.0.1:80/",
    "http://host:0080/x",
    "https://api.example.com/a/b/",
    "https://api.example.com/a//",
    "https://api.example.com//",
    "https://api.example.com/caf%C3%A9",
    "https://api.example.com/a%2Fb",
    "https://api.example.com/a;params",
    "https://user:secret@api.example.com/private",
    "http://[::1]:8080/v6",
    "https://api.example.com?query=only",
    "https://api.example.com#fragment",
    "https://api.example.com/path with spaces",
    "https://münchen.example/straße",
    "https://xn--mnchen-3ya.example/x",
    "https://api.example.com:/empty-port",
    "file:///tmp/fixture.json",
    "mailto:someone@example.com",
    "about:blank",
    "custom-scheme+v1.2://host_name.local/a",
    "https://api.example.com/a/../b",
    "https://api.example.com/~user/é",
  ]

  @Test("the fast split agrees with URL for every kind of URL", arguments: urls)
  func agreesWithFoundation(_ string: String) throws {
    guard let url = URL(string: string) else { return }  // nothing to compare: URL rejects it
    #expect(URLParts(url) == URLParts.foundation(url), "\(string)")
  }

  @Test("a request reads its parts from the URL")
  func requestParts() {
    let request = Request(url: URL(string: "https://API.example.com:8443/Users/42/?q=1")!)
    #expect(request.scheme == "https")
    #expect(request.host == "api.example.com")
    #expect(request.port == 8443)
    #expect(request.path == "/Users/42")
  }
}
