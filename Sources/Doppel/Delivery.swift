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

    var httpURLResponse: HTTPURLResponse {
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
    if !headers.contains("Content-Length") && !headers.contains("Transfer-Encoding") {
      headers.add("Content-Length", String(body.count))
    }
    let delivered = request.method == .head || response.status == 204 || response.status == 304 ? Data() : body
    return .success(Answer(url: request.url, status: response.status, headers: headers, body: delivered))
  }
}
