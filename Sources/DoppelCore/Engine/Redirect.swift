@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// How a redirect turns into the next request, following the rules URLSession applies.
enum Redirect {
  /// The most redirects followed for one request before failing with
  /// `URLError(.httpTooManyRedirects)`.
  static let limit = 16

  /// Whether `status` is one of the redirects URLSession follows (given a usable `Location`).
  static func isRedirect(_ status: Int) -> Bool {
    switch status {
    case 301, 302, 303, 307, 308: true
    default: false
    }
  }

  /// The request to send after `answer`, or `nil` when `answer` is not a redirect to follow
  /// (another status, or no usable `Location`).
  ///
  /// - 301 and 302 turn `POST` into `GET` without a body; other methods are kept.
  /// - 303 turns every method but `HEAD` into `GET` without a body.
  /// - 307 and 308 keep the method and the body.
  static func next(after request: Request, answer: Delivery.Answer) -> Request? {
    guard isRedirect(answer.status) else { return nil }
    guard let location = answer.headers["Location"], !location.isEmpty,
      let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
      target.scheme != nil
    else { return nil }
    var method = request.method
    var body = request.body
    switch answer.status {
    case 301 where request.method == .post, 302 where request.method == .post:
      method = .get
      body = nil
    case 303 where request.method != .head:
      method = .get
      body = nil
    default:
      break
    }
    var headers = request.headers
    if body == nil {
      headers.remove("Content-Type")
      headers.remove("Content-Length")
    }
    headers.remove("Cookie")  // re-added from the cookie storage for the new URL
    if target.host?.lowercased() != request.url.host?.lowercased() { headers.remove("Authorization") }
    return Request(method: method, url: target, headers: headers, body: body)
  }
}
