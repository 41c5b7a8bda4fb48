import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import Testing

/// A `GET` request value for matcher tests.
func request(_ url: String, headers: HTTPHeaders = [:], body: String? = nil) -> Request {
  request(.get, url, headers: headers, body: body)
}

/// A request value for matcher tests.
func request(
  _ method: HTTPMethod = .get, _ url: String, headers: HTTPHeaders = [:], body: String? = nil
) -> Request {
  Request(method: method, url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) })
}

/// Collects what a backend reports.
final class IssueCollector: Sendable {
  private let issues = Locked<[DoppelIssue]>([])
  var reporter: IssueReporter { IssueReporter { [issues] issue in issues.withLock { $0.append(issue) } } }
  var all: [DoppelIssue] { issues.withLock { $0 } }
}

/// Whether the tests run on swift-corelibs-foundation (Linux), for tests whose expectation differs
/// on Apple platforms: each states both.
let onCorelibsFoundation: Bool = {
  #if canImport(FoundationNetworking)
    true
  #else
    false
  #endif
}()

extension Backend {
  /// Sends a request through this backend's session.
  func send(
    _ method: HTTPMethod = .get, _ url: String, headers: [String: String] = [:], body: Data? = nil
  ) async throws -> (body: String, response: HTTPURLResponse) {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = method.rawValue
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let (data, response) = try await session.data(for: request)
    return (String(decoding: data, as: UTF8.self), try #require(response as? HTTPURLResponse))
  }

  /// The status a request gets, or the URLError code it fails with.
  func outcome(_ method: HTTPMethod = .get, _ url: String, body: String? = nil) async -> String {
    do {
      let (text, response) = try await send(method, url, body: body.map { Data($0.utf8) })
      return "\(response.statusCode) \(text)"
    } catch let error as URLError {
      return "URLError \(error.code.rawValue)"
    } catch {
      return "error \(error)"
    }
  }
}

/// Expects `body` to throw a `URLError` with `code`.
func expectURLError(
  _ code: URLError.Code, sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
  do {
    try await body()
    Issue.record("expected URLError \(code.rawValue), got no error", sourceLocation: sourceLocation)
  } catch let error as URLError {
    #expect(error.code == code, sourceLocation: sourceLocation)
  } catch {
    Issue.record("expected URLError \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
  }
}
