import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A response ready to hand to a caller: final headers and body bytes, or the failure.
enum Delivery: Sendable {
  case success(Answer)
  case failure(any Error)

  struct Answer: Sendable {
    let url: URL
    let status: Int
    let headers: HTTPHeaders
    let body: Data
    /// The `HTTPURLResponse` for these parts, when one was built already.
    var prebuilt: UncheckedSendable<HTTPURLResponse>?

    init(url: URL, status: Int, headers: HTTPHeaders, body: Data, prebuilt: HTTPURLResponse? = nil) {
      self.url = url
      self.status = status
      self.headers = headers
      self.body = body
      self.prebuilt = prebuilt.map(UncheckedSendable.init)
    }

    var httpURLResponse: HTTPURLResponse {
      prebuilt?.value ?? Self.build(url: url, status: status, headers: headers)
    }

    static func build(url: URL, status: Int, headers: HTTPHeaders) -> HTTPURLResponse {
      HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
        ?? HTTPURLResponse(url: url, statusCode: 500, httpVersion: "HTTP/1.1", headerFields: [:])!
    }
  }

  /// Reads the body, fills in `Content-Type` and `Content-Length`, and drops the body of a
  /// response to `HEAD` (keeping its length), as an HTTP server does.
  static func make(_ response: Response, for request: Request) -> Delivery {
    if let failure = response.failure { return .failure(failure) }
    guard (100...599).contains(response.status) else {
      return .failure(
        DoppelError(
          "A stub answered with status \(response.status), which is not an HTTP status. Use a status from 100 to 599, or .error(...) for a failure."
        ))
    }
    let prepared: ResponseCache.Prepared
    if let cached = response.cache.prepared {
      prepared = cached
    } else {
      let body: Data
      do {
        body = try response.bodyData()
      } catch {
        return .failure(error)
      }
      var headers = response.headers
      if !headers.contains("Content-Type"), let type = response.body.contentType, !body.isEmpty {
        headers.add("Content-Type", type)
      }
      // A server sends no length for 1xx, 204 and 304 responses (RFC 9110 §8.6).
      let bodiless = response.status < 200 || response.status == 204 || response.status == 304
      if !bodiless && !headers.contains("Content-Length") && !headers.contains("Transfer-Encoding") {
        headers.add("Content-Length", String(body.count))
      }
      prepared = ResponseCache.Prepared(headers: headers, body: body)
      // File bodies are read again for every request, so an edited fixture is served as edited.
      if case .data = response.body.source { response.cache.prepared = prepared }
    }
    let noBody = request.method == .head || response.status == 204 || response.status == 304
    let build = { Answer.build(url: request.url, status: response.status, headers: prepared.headers) }
    let urlResponse: HTTPURLResponse
    if case .data = response.body.source {
      urlResponse = response.cache.urlResponse(for: request.url, build: build)
    } else {
      urlResponse = build()
    }
    return .success(
      Answer(
        url: request.url, status: response.status, headers: prepared.headers, body: noBody ? Data() : prepared.body,
        prebuilt: urlResponse))
  }
}

/// What delivering a response computed: its final headers and body, and the last
/// `HTTPURLResponse` built from them (building one costs microseconds on Linux).
final class ResponseCache: @unchecked Sendable {
  // Safe: every stored property is read and written under `lock`.
  struct Prepared {
    let headers: HTTPHeaders
    let body: Data
  }

  private let lock = NSLock()
  private var storedPrepared: Prepared?
  private var last: (url: URL, response: HTTPURLResponse)?

  var prepared: Prepared? {
    get { lock.withLock { storedPrepared } }
    set { lock.withLock { storedPrepared = newValue } }
  }

  /// The response for `url`: the one built last time when the URL is the same, else a new one.
  func urlResponse(for url: URL, build: () -> HTTPURLResponse) -> HTTPURLResponse {
    if let last = lock.withLock({ last }), last.url == url { return last.response }
    let response = build()
    lock.withLock { last = (url, response) }
    return response
  }
}
