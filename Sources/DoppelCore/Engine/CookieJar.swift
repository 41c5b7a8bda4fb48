@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A session's cookie storage and policy, as the URLSession front door sees them: stored cookies
/// go out as a `Cookie` header, and `Set-Cookie` in stubbed responses is stored, as a server's
/// would be.
struct CookieJar: @unchecked Sendable {
  // Safe: HTTPCookieStorage is documented as thread-safe; the policy values are copied.
  let storage: HTTPCookieStorage
  let acceptPolicy: HTTPCookie.AcceptPolicy

  /// The request with the stored cookies for its URL, unless it already carries a `Cookie` header
  /// (on Linux URLSession adds them itself before the stub sees the request).
  func addingCookies(to request: Request) -> Request {
    guard !request.headers.contains("Cookie"), let cookies = storage.cookies(for: request.url), !cookies.isEmpty
    else { return request }
    var headers = request.headers
    for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) { headers.add(name, value) }
    var copy = Request(method: request.method, url: request.url, headers: headers, body: request.body)
    copy.pathParameters = request.pathParameters
    return copy
  }

  /// Stores the cookies an answer sets, respecting the accept policy.
  func store(from answer: Delivery.Answer) {
    guard answer.setsCookies, acceptPolicy != .never else { return }
    let values = answer.headers.values(for: "Set-Cookie")
    guard !values.isEmpty else { return }
    var cookies: [HTTPCookie] = []
    for value in values {
      cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: answer.url)
    }
    storage.setCookies(cookies, for: answer.url, mainDocumentURL: nil)
  }
}
