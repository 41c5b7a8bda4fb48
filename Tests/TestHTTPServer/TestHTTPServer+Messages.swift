import Foundation

extension TestHTTPServer {
  /// A request as the server received it.
  public struct Request: Sendable, CustomStringConvertible {
    /// The method, as sent (`GET`, `POST`…).
    public let method: String
    /// The request target as sent: the path with its query, such as `/breeds?page=2`.
    public let target: String
    /// The header fields in the order they were sent, names as sent.
    public let headers: [(name: String, value: String)]
    /// The body, decoded from chunked framing when it was chunked; empty when there was none.
    public let body: Data

    /// Creates a request.
    public init(method: String, target: String, headers: [(name: String, value: String)], body: Data) {
      self.method = method
      self.target = target
      self.headers = headers
      self.body = body
    }

    /// The first value of the header field `name`, compared case-insensitively, or `nil`.
    public func header(_ name: String) -> String? {
      headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of the header field `name`, compared case-insensitively, in order.
    public func headerValues(_ name: String) -> [String] {
      headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The path part of ``target``, without the query.
    public var path: String {
      String(target.prefix { $0 != "?" })
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// `METHOD target`.
    public var description: String { "\(method) \(target)" }
  }

  /// What the handler answers.
  ///
  /// The server adds `Content-Length` unless the headers hold `Content-Length` or
  /// `Transfer-Encoding`; with `Transfer-Encoding: chunked` it sends ``body`` in chunked framing.
  /// A `Connection: close` header closes the connection after the response.
  public struct Response: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, in order; a name may repeat.
    public var headers: [(name: String, value: String)]
    /// The body (not sent for `HEAD` requests and 1xx, 204 and 304 answers).
    public var body: Data
    /// Where the server stops sending and holds the connection open until ``TestHTTPServer/stop()``:
    /// `nil` (the default) sends everything.
    public var hold: Hold?

    /// A point in a response where the server stops sending, for timeouts and cancellations.
    public enum Hold: Sendable {
      /// Nothing is sent: the request waits for a response that never comes.
      case beforeHead
      /// The head and the first bytes of the body (as framed on the wire) are sent, then nothing.
      case afterBodyBytes(Int)
    }

    /// Creates a response.
    public init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data()) {
      self.status = status
      self.headers = headers.map { (name: $0.0, value: $0.1) }
      self.body = body
    }

    /// UTF-8 text, with `Content-Type: text/plain; charset=utf-8` unless `headers` has a
    /// `Content-Type`.
    public static func text(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> Response {
      var all = headers
      if !headers.contains(where: { $0.0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
        all.append(("Content-Type", "text/plain; charset=utf-8"))
      }
      return Response(status: status, headers: all, body: Data(text.utf8))
    }

    /// The first value of the header field `name`, compared case-insensitively, or `nil`.
    public func header(_ name: String) -> String? {
      headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
  }

  /// Why the server could not start.
  public struct StartError: Error, CustomStringConvertible {
    /// What failed and the system's reason.
    public let description: String
  }
}
