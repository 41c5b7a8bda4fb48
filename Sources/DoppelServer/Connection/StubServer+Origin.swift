#if Server
  import Foundation

  extension StubServer {
    /// The scheme, host and port a request is matched as.
    ///
    /// A client talking to the server sends `Host: 127.0.0.1:8080`, while stubs are usually written
    /// for the real backend (`GET https://api.example.com/breeds.json`). The origin decides which
    /// URL the backend sees, so the same stubs answer in process and over HTTP. Stubs written as a
    /// path alone (`.get("/breeds.json")`) match on any host, whatever the origin.
    public struct Origin: Sendable, CustomStringConvertible {
      enum Kind: Sendable {
        case automatic
        case asSent
        case fixed(scheme: String, authority: String)
      }

      let kind: Kind

      /// The default: a request whose `Host` names a host that stubs are written for is matched
      /// as that host (with the stub's scheme and port); otherwise, when the stubs name exactly one
      /// origin, as that origin; otherwise as sent. A request in absolute form
      /// (`GET http://api.example.com/x HTTP/1.1`, as a client configured with the server as its
      /// HTTP proxy sends) is always matched as its URL.
      public static let automatic = Origin(kind: .automatic)

      /// Every request as sent: the server's scheme (`http://`, or `https://` with
      /// ``Configuration/tls``) followed by its `Host` header.
      public static let asSent = Origin(kind: .asSent)

      /// Every request as if sent to `url`'s scheme, host and port (its path is ignored):
      /// `.fixed(URL(string: "https://api.example.com")!)`.
      public static func fixed(_ url: URL) -> Origin {
        let scheme = url.scheme?.lowercased() ?? "http"
        var authority = url.host ?? "localhost"
        if authority.contains(":") && !authority.hasPrefix("[") { authority = "[\(authority)]" }
        if let port = url.port { authority += ":\(port)" }
        return Origin(kind: .fixed(scheme: scheme, authority: authority))
      }

      /// `automatic`, `as sent`, or the fixed origin.
      public var description: String {
        switch kind {
        case .automatic: "automatic"
        case .asSent: "as sent"
        case .fixed(let scheme, let authority): "\(scheme)://\(authority)"
        }
      }
    }
  }
#endif
