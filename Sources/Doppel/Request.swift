import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A request as a backend sees it: method, URL, headers and the full body bytes.
///
/// Every front door turns what arrives into a `Request`. The body is complete even when the caller
/// sent it as a stream (`URLRequest.httpBodyStream`), so matchers and the journal always see it.
public struct Request: Sendable, CustomStringConvertible {
  /// The method, for example `GET`.
  public let method: HTTPMethod
  /// The full URL.
  public let url: URL
  /// The header fields, in the order they were sent.
  public let headers: HTTPHeaders
  /// The body bytes, or `nil` when the request had no body.
  public let body: Data?
  /// Values captured by a path template such as `/users/{id}` in the stub that answered, keyed by
  /// name (`pathParameters["id"]`). Empty until a stub with a template matched.
  public internal(set) var pathParameters: [String: String] = [:]

  // Parsed once; matchers read these on every comparison.
  let scheme: String
  let host: String
  let port: Int?
  /// The percent-decoded path, `/` when the URL has none.
  public let path: String

  /// Creates a request.
  public init(method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = [:], body: Data? = nil) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    scheme = url.scheme?.lowercased() ?? ""
    host = url.host?.lowercased() ?? ""
    port = url.port
    let path = url.path
    self.path = path.isEmpty ? "/" : path
  }

  /// Creates a request from a `URLRequest`, reading the whole body from `httpBody` or, when that is
  /// `nil`, from `httpBodyStream`.
  public init(_ urlRequest: URLRequest) {
    var headers = HTTPHeaders()
    for (name, value) in (urlRequest.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key }) {
      headers.add(name, value)
    }
    self.init(
      method: HTTPMethod(urlRequest.httpMethod ?? "GET"),
      url: urlRequest.url ?? URL(string: "about:blank")!,
      headers: headers,
      body: urlRequest.httpBody ?? urlRequest.httpBodyStream.map(Self.readAll)
    )
  }

  /// The port the request goes to: the explicit one, or the scheme's default (80, 443).
  var effectivePort: Int? { port ?? Self.defaultPort(for: scheme) }

  static func defaultPort(for scheme: String) -> Int? {
    switch scheme {
    case "http", "ws": 80
    case "https", "wss": 443
    default: nil
    }
  }

  /// The query items, percent-decoded, in order; repeated names appear repeatedly.
  public var queryItems: [URLQueryItem] {
    URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
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
      throw DoppelError("\(method) \(url.absoluteString) has no body to decode as \(T.self).")
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
