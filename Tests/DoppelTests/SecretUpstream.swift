import Doppel
import Foundation
import TestHTTPServer
import TestSupport

/// An upstream on 127.0.0.1 that hands out every kind of secret real APIs do, the way they do.
enum SecretUpstream {
  static let password = "pw-Hunter2-0001"
  static let clientSecret = "cs-Secret-0002"
  static let deviceToken = "dt-Token-0003"
  static let accessToken = "at-Access-0004"
  static let token = "tk-Token-0005"
  static let idToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.c2lnbmF0dXJlLTAwMDY"
  static let sessionToken = "st-Session-0007"
  static let apiKey = "ak-Api-0008"
  static let sessionHeader = "hs-Header-0009"
  static let refreshHeader = "hr-Refresh-0010"
  static let sessionID = "qs-Query-0011"
  static let myToken = "qm-Query-0012"
  static let urlToken = "ut-Url-0013"
  static let formPassword = "fp-Form-0014"
  static let bearer = "bt-Bearer-0016x"
  static let authorization = "ah-Auth-0017"
  static let cookie = "ck-Cookie-0018"
  static let setCookie = "sc-SetCookie-0019"
  static let keys = [
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_51H8abcdefGHIJKLmnop0015",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
    "AKIAIOSFODNN7EXAMPLE", "AIzaSyA-1234567890abcdefghijklmnopqrstu", "xoxb-123456789012-abcdefghijkl",
  ]

  /// Every secret string, none of which may reach a file.
  static let all =
    [
      password, clientSecret, deviceToken, accessToken, token, idToken, sessionToken, apiKey, sessionHeader,
      refreshHeader, sessionID, myToken, urlToken, formPassword, bearer, authorization, cookie, setCookie,
    ] + keys

  static func start() throws -> TestHTTPServer {
    try TestHTTPServer.start { request in
      switch (request.method, request.path) {
      case ("POST", "/login"):
        return .text(
          #"""
          {"access_token": "\#(accessToken)", "token": "\#(token)", "id_token": "\#(idToken)",
           "session_token": "\#(sessionToken)", "expires_in": 3600, "token_type": "Bearer",
           "user": {"name": "Ann", "settings": {"api_key": "\#(apiKey)", "theme": "dark"}},
           "links": {"next": "https://cdn.example.com/file?token=\#(urlToken)&size=2"}}
          """#,
          headers: [
            ("Content-Type", "application/json"), ("X-Session-Token", sessionHeader),
            ("X-Refresh-Token", refreshHeader), ("Set-Cookie", "sid=\(setCookie); Path=/; HttpOnly"),
          ])
      case ("GET", "/items"):
        return .text("items for session \(sessionID)", headers: [("Content-Type", "text/plain")])
      case ("POST", "/form"):
        let password = request.bodyText.split(separator: "&").first { $0.hasPrefix("password=") }?.dropFirst(9) ?? ""
        return .text("Welcome ann, you sent \(password)", headers: [("Content-Type", "text/plain")])
      case ("GET", "/keys"):
        return .text(
          "keys: " + keys.joined(separator: " ") + "; call with Bearer \(bearer)",
          headers: [("Content-Type", "text/plain"), ("X-Google", keys[5])])
      default:
        return .text("profile of \(request.path)", headers: [("Content-Type", "text/plain")])
      }
    }
  }

  /// Sends one request of each kind through `backend`; `secret` replaces each secret the client
  /// sends (the upstream's own secrets come back as they are).
  static func exercise(_ backend: Backend, _ base: String, secret: (String) -> String = { $0 }) async throws {
    _ = try await backend.send(
      .post, "\(base)/login",
      headers: [
        "Content-Type": "application/json", "Authorization": "Bearer \(secret(authorization))",
        "Cookie": "sid=\(secret(cookie))",
      ],
      body: Data(
        #"{"username": "ann", "password": "\#(secret(password))", "client_secret": "\#(secret(clientSecret))", "device": {"name": "phone", "token": "\#(secret(deviceToken))"}}"#
          .utf8))
    _ = try await backend.send(
      .get, "\(base)/items?session_id=\(secret(sessionID))&mytoken=\(secret(myToken))&page=1",
      headers: ["X-Session-Token": secret(sessionHeader)])
    _ = try await backend.send(
      .post, "\(base)/form", headers: ["Content-Type": "application/x-www-form-urlencoded"],
      body: Data("user=ann&password=\(secret(formPassword))".utf8))
    _ = try await backend.send(.get, "\(base)/keys")
    // The access token echoed in a path, the token in a header that is not secret by name.
    _ = try await backend.send(
      .get, "\(base)/users/\(secret(accessToken))/profile", headers: ["X-Trace": secret(token)])
  }
}
