import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What every contender serves and is asked for: `stubCount` URLs, each answered with the same
/// 1 KB body, and request `i` going to URL `i % stubCount`.
struct Workload: Sendable {
  /// The size of every response body, in bytes.
  static let bodySize = 1024

  let stubCount: Int
  /// `https://api.example.com/items/0` … `/items/<stubCount - 1>`.
  let urls: [String]
  /// One prebuilt `GET` request per URL, so building requests costs no contender anything.
  let requests: [URLRequest]
  /// The body every URL answers with.
  let body: Data

  init(stubCount: Int) {
    self.stubCount = stubCount
    urls = (0..<stubCount).map { "https://api.example.com/items/\($0)" }
    requests = urls.map { URLRequest(url: URL(string: $0)!) }
    body = Data((0..<Self.bodySize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
  }

  /// The request number `index` sends.
  @inline(__always)
  func request(_ index: Int) -> URLRequest { requests[index % stubCount] }

  /// The prebuilt response a floor hands back for `url`: what Doppel would answer (status 200,
  /// `Content-Type` and `Content-Length`), built once instead of per request.
  func floorResponse(for url: String) -> HTTPURLResponse {
    HTTPURLResponse(
      url: URL(string: url)!, statusCode: 200, httpVersion: "HTTP/1.1",
      headerFields: [
        "Content-Type": "application/octet-stream", "Content-Length": String(Self.bodySize),
      ])!
  }

  /// Whether an answer is the expected one: status 200 and a body of the right size.
  static func isCorrect(_ data: Data, _ response: URLResponse) -> Bool {
    guard let http = response as? HTTPURLResponse else { return false }
    return http.statusCode == 200 && data.count == bodySize
  }
}
