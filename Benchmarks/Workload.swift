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
  /// Prebuilt `GET` requests, so building requests costs no contender anything: one per URL, or
  /// more (see ``init(stubCount:requestObjects:)``), request `i` going to URL `i % stubCount`.
  let requests: [URLRequest]
  /// The body every URL answers with.
  let body: Data

  init(stubCount: Int) {
    self.init(stubCount: stubCount, requestObjects: stubCount)
  }

  /// A workload whose requests are `requestObjects` distinct `URLRequest` values (each with its own
  /// `URL`), cycling over the `stubCount` URLs. With 1 stub and as many request objects as a
  /// 100,000-stub workload has, the requests are as cold in the CPU's caches on both sides of a
  /// stub-count comparison, which then measures what the stubs cost and not what the request
  /// objects do.
  init(stubCount: Int, requestObjects: Int) {
    self.stubCount = stubCount
    let urls = (0..<stubCount).map { "https://api.example.com/items/\($0)" }
    self.urls = urls
    requests = (0..<max(requestObjects, stubCount)).map { URLRequest(url: URL(string: urls[$0 % stubCount])!) }
    body = Data((0..<Self.bodySize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
  }

  /// The request number `index` sends.
  @inline(__always)
  func request(_ index: Int) -> URLRequest { requests[index % requests.count] }

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
