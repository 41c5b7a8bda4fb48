#if Server
  import Doppel
  import Foundation

  /// The parts of an admin request's head the trust model looks at.
  struct AdminRequestHead: Sendable {
    var method: String
    var target: String
    /// The `Host` header's value, or `nil` when there is none.
    var host: String?
    var origins: [String] = []
    var fetchSites: [String] = []
    var authorizations: [String] = []
    var contentType: String?
    /// Whether the request has a body (of at least one byte).
    var hasBody = false
    /// The port the connection came in on.
    var localPort: Int?
  }

  extension AdminController {
    /// The refusal of `head` by the trust model (see ``StubServer/AdminAPI``), or `nil` when the
    /// admin API may answer it: a loopback or allowed `Host`, no foreign `Origin`, no
    /// `Sec-Fetch-Site` from another site, the token when there is one, and a JSON body.
    ///
    /// - Parameter requiringToken: `false` for the dashboard's own files (the page, its script and
    ///   its stylesheet), which hold no data: a browser loads them without the token, and the page
    ///   asks for it when the admin API answers 401.
    func refusal(of head: AdminRequestHead, requiringToken: Bool = true) -> Answer? {
      guard let (status, message) = check(head, requiringToken: requiringToken) else { return nil }
      settings.onRefusal?("Refused \(head.method) \(head.target) (\(status)): \(message)")
      var answer = Answer(status: status, body: ["error": .string(message)])
      if status == 401 { answer.headers = [("WWW-Authenticate", #"Bearer realm="doppel admin API""#)] }
      return answer
    }

    private func check(_ head: AdminRequestHead, requiringToken: Bool) -> (status: Int, message: String)? {
      guard let hostValue = head.host else {
        return (
          403,
          "the admin API answers only requests whose Host is a loopback name or address, and this request has no Host header. Send one, such as Host: 127.0.0.1\(head.localPort.map { ":\($0)" } ?? "") (every HTTP/1.1 client does)."
        )
      }
      guard let host = Self.hostName(hostValue), allows(host: host) else {
        let shown = Self.hostName(hostValue) ?? hostValue
        return (
          403,
          "the admin API answers only requests whose Host is a loopback name or address (localhost, 127.0.0.1, [::1]) or one the server allows (got \(shown)); start doppel serve with --allow-host \(shown) (StubServer.AdminAPI.allowedHosts) to allow it."
        )
      }
      for origin in head.origins where !allows(origin: origin, port: head.localPort) {
        if origin.trimmingCharacters(in: .whitespaces) == "null" {
          return (
            403,
            "the admin API refuses requests from web pages, and this one carries Origin: null: it comes from a sandboxed page (such as one a stub serves: the server sandboxes those so that they cannot reach the admin API), a file or a redirect. Drive the admin API from a test or a script (DoppelRemote, curl), which send no Origin."
          )
        }
        return (
          403,
          "the admin API refuses requests from web pages, and this one carries Origin: \(origin), which is not this server's own origin (\(scheme)://\(host)\(head.localPort.map { ":\($0)" } ?? "")). Drive the admin API from a test or a script (DoppelRemote, curl), which send no Origin; to let a browser app read the stubs, start doppel serve with --cors \(origin)."
        )
      }
      // A fetch-metadata field is a list (RFC 8941): `same-origin, cross-site` is judged by its most
      // hostile member, as are several fields.
      for site in head.fetchSites.flatMap({ $0.split(separator: ",") }) {
        let value = site.trimmingCharacters(in: .whitespaces).lowercased()
        guard value == "cross-site" || value == "same-site" else { continue }
        return (
          403,
          "the admin API refuses requests a browser sends for another site (Sec-Fetch-Site: \(value)). Drive the admin API from a test or a script (DoppelRemote, curl), not from a web page."
        )
      }
      if let token = settings.token, requiringToken {
        let sent = head.authorizations.compactMap(Self.bearerToken)
        guard !sent.isEmpty else {
          return (
            401,
            "the admin API needs its token, and this request sends none. Send Authorization: Bearer <token> with the token the server was started with (doppel serve --admin-token, StubServer.AdminAPI.token; DoppelRemote's token:)."
          )
        }
        guard sent.count == 1, Self.sameBytes(sent[0], token) else {
          return (
            401,
            "the admin API's token does not match the one this request sends. Send Authorization: Bearer <token> with the token the server was started with (doppel serve --admin-token, StubServer.AdminAPI.token; DoppelRemote's token:)."
          )
        }
      }
      if head.hasBody {
        let type = head.contentType ?? ""
        let media = type.split(separator: ";", maxSplits: 1).first.map {
          $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard media == "application/json" else {
          return (
            415,
            "the admin API accepts only JSON bodies, and this request's Content-Type is \(type.isEmpty ? "missing" : type). Send the body with Content-Type: application/json (a web page cannot send that to another origin without the browser asking first)."
          )
        }
      }
      return nil
    }

    /// Whether the admin API answers requests whose `Host` names `host` (lowercased, IPv6 in
    /// brackets, no port).
    func allows(host: String) -> Bool {
      Self.isLoopback(host) || settings.allowedHosts.contains { Self.normalized($0) == host }
    }

    /// Whether `origin` is one of this server's own: `http://<allowed host>:<port>`, or
    /// `https://…` when the server speaks TLS.
    func allows(origin: String, port: Int?) -> Bool {
      guard let components = URLComponents(string: origin), components.scheme?.lowercased() == scheme,
        components.path.isEmpty, components.query == nil, components.user == nil,
        let authority = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first,
        let host = Self.hostName(String(authority)), allows(host: host)
      else { return false }
      return (components.port ?? (scheme == "https" ? 443 : 80)) == port
    }

    /// The host of a `Host` header's value (`127.0.0.1:8080`, `[::1]:80`, `LocalHost`),
    /// lowercased and without its port; `nil` when it is not one.
    static func hostName(_ value: String) -> String? {
      let value = value.trimmingCharacters(in: .whitespaces).lowercased()
      var host = Substring(value)
      var port: Substring?
      if value.hasPrefix("[") {
        guard let close = value.firstIndex(of: "]") else { return nil }
        host = value[...close]
        let rest = value[value.index(after: close)...]
        if !rest.isEmpty {
          guard rest.hasPrefix(":") else { return nil }
          port = rest.dropFirst()
        }
      } else if let colon = value.lastIndex(of: ":") {
        host = value[..<colon]
        port = value[value.index(after: colon)...]
      }
      if let port, port.isEmpty || port.count > 5 || !port.allSatisfy(\.isASCII) || Int(port) == nil { return nil }
      return host.isEmpty ? nil : String(host)
    }

    /// `localhost`, a name ending in `.localhost` (RFC 6761: browsers resolve them to loopback
    /// themselves, so no DNS answer can point them elsewhere), `127.x.y.z` and `[::1]`.
    static func isLoopback(_ host: String) -> Bool {
      if host == "localhost" || host.hasSuffix(".localhost") { return true }
      if host == "[::1]" || host == "[0:0:0:0:0:0:0:1]" { return true }
      let parts = host.split(separator: ".", omittingEmptySubsequences: false)
      guard parts.count == 4, parts[0] == "127" else { return false }
      return parts.allSatisfy { part in
        !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && Int(part)! <= 255
      }
    }

    /// An allowed host as written by the user, in the form ``hostName(_:)`` gives.
    static func normalized(_ host: String) -> String {
      let host = host.trimmingCharacters(in: .whitespaces).lowercased()
      return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// The token of an `Authorization: Bearer <token>` value.
    private static func bearerToken(_ value: String) -> String? {
      let parts = value.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
      guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
      return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// Whether `a` and `b` hold the same bytes, in a time that depends on their lengths only,
    /// not on where they differ.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
      let left = Array(a.utf8)
      let right = Array(b.utf8)
      var difference = UInt8(left.count == right.count ? 0 : 1)
      for index in 0..<max(left.count, right.count) {
        let x = index < left.count ? left[index] : 0
        let y = index < right.count ? right[index] : 0
        difference |= x ^ y
      }
      return difference == 0
    }
  }
#endif
