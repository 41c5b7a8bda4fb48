@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A request as a backend sees it: method, URL, headers and the full body bytes.
///
/// Every front door turns what arrives into a `Request`. The body is complete even when the caller
/// sent it as a stream (`URLRequest.httpBodyStream`), so matchers and the journal always see it.
public struct Request: Sendable, CustomStringConvertible {
  /// The parts fixed when the request is made, shared by every copy: copying a request costs one
  /// reference, however many headers and body bytes it carries.
  private final class Storage: Sendable {
    let method: HTTPMethod
    let url: URL
    let headers: HTTPHeaders
    let body: Data?
    let scheme: String
    let host: String
    let port: Int?
    let path: String
    /// `url.absoluteString` when the URL stands alone (no base URL): two requests with the same key
    /// have equal URLs, so an answer built for one can serve the other.
    let answerKey: String?

    init(method: HTTPMethod, url: URL, headers: HTTPHeaders, body: Data?) {
      self.method = method
      self.url = url
      self.headers = headers
      self.body = body
      let string = url.absoluteString
      answerKey = url.baseURL == nil ? string : nil
      let parts = URLParts(url, absoluteString: string)
      scheme = parts.scheme
      host = parts.host
      port = parts.port
      path = parts.path
    }

    /// `other` with another method: the URL's parts are not worked out again.
    init(_ other: Storage, method: HTTPMethod) {
      self.method = method
      url = other.url
      headers = other.headers
      body = other.body
      answerKey = other.answerKey
      scheme = other.scheme
      host = other.host
      port = other.port
      path = other.path
    }

    init(method: HTTPMethod, target: Target, headers: HTTPHeaders, body: Data?) {
      self.method = method
      self.url = target.url
      self.headers = headers
      self.body = body
      answerKey = target.answerKey
      scheme = target.parts.scheme
      host = target.parts.host
      port = target.parts.port
      path = target.parts.path
    }
  }

  /// A URL and the parts a request reads from it, worked out once: a front door that sees the
  /// same URLs again and again (the stub server) keeps these and makes its requests from them.
  package final class Target: Sendable {
    /// The URL.
    package let url: URL
    let answerKey: String?
    let parts: URLParts

    /// Works out the parts of `url`.
    package init(_ url: URL) {
      self.url = url
      let string = url.absoluteString
      answerKey = url.baseURL == nil ? string : nil
      parts = URLParts(url, absoluteString: string)
    }
  }

  private let storage: Storage

  /// The method, for example `GET`.
  public var method: HTTPMethod { storage.method }
  /// The full URL.
  public var url: URL { storage.url }
  /// The header fields, in the order they were sent.
  public var headers: HTTPHeaders { storage.headers }
  /// The body bytes, or `nil` when the request had no body.
  public var body: Data? { storage.body }
  /// Values captured by a path template such as `/users/{id}` in the stub that answered, keyed by
  /// name (`pathParameters["id"]`). Empty until a stub with a template matched.
  public internal(set) var pathParameters: [String: String] = [:]

  // Parsed once; matchers read these on every comparison.
  /// The scheme, lowercased.
  package var scheme: String { storage.scheme }
  /// The host, lowercased; empty when the URL has none.
  package var host: String { storage.host }
  /// The explicit port, or `nil` when the URL names none.
  var port: Int? { storage.port }
  /// The percent-decoded path, `/` when the URL has none.
  public var path: String { storage.path }
  /// The URL's absolute string when it has no base URL, else `nil`: what a reused answer is
  /// compared by (two strings read from the same `URL` compare without reading their bytes).
  var answerKey: String? { storage.answerKey }

  /// Creates a request.
  public init(method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = [:], body: Data? = nil) {
    storage = Storage(method: method, url: url, headers: headers, body: body)
  }

  /// Creates a request for a URL whose parts were worked out before.
  package init(method: HTTPMethod, target: Target, headers: HTTPHeaders, body: Data?) {
    storage = Storage(method: method, target: target, headers: headers, body: body)
  }

  /// Creates a request from a `URLRequest`, reading the whole body from `httpBody` or, when that is
  /// `nil`, from `httpBodyStream`.
  public init(_ urlRequest: URLRequest) {
    var headers = HTTPHeaders()
    if let fields = urlRequest.allHTTPHeaderFields, !fields.isEmpty {
      for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
        headers.add(name, value)
      }
    }
    self.init(
      method: HTTPMethod.parsing(urlRequest.httpMethod),
      url: urlRequest.url ?? URL(string: "about:blank")!,
      headers: headers,
      body: urlRequest.httpBody ?? urlRequest.httpBodyStream.map(Self.readAll)
    )
  }

  /// The same request (URL, headers, body and path parameters) with another method.
  func with(method: HTTPMethod) -> Request {
    var copy = Request(storage: Storage(storage, method: method))
    copy.pathParameters = pathParameters
    return copy
  }

  private init(storage: Storage) {
    self.storage = storage
  }

  /// The same request with `pathParameters` set.
  func with(pathParameters: [String: String]) -> Request {
    var copy = self
    copy.pathParameters = pathParameters
    return copy
  }

  /// The port the request goes to: the explicit one, or the scheme's default (80, 443).
  package var effectivePort: Int? { port ?? Self.defaultPort(for: scheme) }

  static package func defaultPort(for scheme: String) -> Int? {
    switch scheme {
    case "http", "ws": 80
    case "https", "wss": 443
    default: nil
    }
  }

  /// The query items, percent-decoded, in order; repeated names appear repeatedly.
  public var queryItems: [URLQueryItem] {
    // Most URLs have no query: no need to parse the URL again to find none.
    guard (answerKey ?? url.absoluteString).utf8.contains(UInt8(ascii: "?")) else { return [] }
    return URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
  }

  /// The body decoded as UTF-8 text, or `nil` when there is no body or it is not UTF-8.
  public var bodyText: String? { body.flatMap { String(data: $0, encoding: .utf8) } }

  /// Decodes the body as JSON.
  ///
  /// - Throws: ``DoppelError`` when there is no body, or the decoder's error when it does not decode.
  public func decodeJSON<T: Decodable>(
    _ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
  ) throws -> T {
    guard let body else {
      throw DoppelError.usage("\(method) \(url.absoluteString) has no body to decode as \(T.self).")
    }
    return try decoder.decode(T.self, from: body)
  }

  /// `METHOD URL`, for example `GET https://api.example.com/breeds.json`.
  public var description: String { "\(method) \(url.absoluteString)" }

  private static func readAll(_ stream: InputStream) -> Data {
    var data = Data()
    stream.open()
    defer { stream.close() }
    let size = 16 * 1024
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
    defer { buffer.deallocate() }
    while true {
      let count = stream.read(buffer, maxLength: size)
      if count <= 0 { break }
      data.append(buffer, count: count)
    }
    return data
  }
}

extension Request {
  /// The error URLSession gives a `GET` that carries a body, which it refuses before sending
  /// anything (on Linux and on Apple platforms alike), or `nil` for any other request. The
  /// URLSession and in-memory doors refuse it the same way, so a test fails where the app would.
  var refusedBodyOnGet: URLError? {
    guard method == .get, let body, !body.isEmpty else { return nil }
    return URLError.described(
      .dataLengthExceedsMaximum,
      "\(self) has a body, and URLSession refuses a GET with a body (URLError.dataLengthExceedsMaximum) without sending it. Send the data in the query, or use POST.",
      url: url)
  }
}
