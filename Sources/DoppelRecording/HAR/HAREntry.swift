import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// One exchange in a HAR log: a request and the response it got.
public struct HAREntry: Sendable, Equatable {
  /// When the request started, as ISO 8601 text (`2024-05-01T10:00:00.000Z`).
  public var startedDateTime: String
  /// How long the exchange took, in milliseconds.
  public var time: Double
  /// The request.
  public var request: HARRequest
  /// The response.
  public var response: HARResponse
  /// Other fields (`cache`, `timings`, `pageref`, `serverIPAddress`, `_initiator`…).
  public var extra: [String: JSONValue]

  /// Creates an entry.
  public init(
    startedDateTime: String, time: Double = 0, request: HARRequest, response: HARResponse,
    extra: [String: JSONValue] = [:]
  ) {
    self.startedDateTime = startedDateTime
    self.time = time
    self.request = request
    self.response = response
    self.extra = extra
  }
}

/// The request of a HAR entry.
public struct HARRequest: Sendable, Equatable {
  /// The method, such as `GET`.
  public var method: String
  /// The absolute URL, query included.
  public var url: String
  /// The protocol version, such as `HTTP/1.1`.
  public var httpVersion: String
  /// The header fields, in order; a name may repeat.
  public var headers: [HARNameValue]
  /// The query items, in order.
  public var queryString: [HARNameValue]
  /// The body, if the request had one.
  public var postData: HARPostData?
  /// Other fields (`cookies`, `headersSize`, `bodySize`…).
  public var extra: [String: JSONValue]

  /// Creates a request.
  public init(
    method: String, url: String, httpVersion: String = "HTTP/1.1", headers: [HARNameValue] = [],
    queryString: [HARNameValue] = [], postData: HARPostData? = nil, extra: [String: JSONValue] = [:]
  ) {
    self.method = method
    self.url = url
    self.httpVersion = httpVersion
    self.headers = headers
    self.queryString = queryString
    self.postData = postData
    self.extra = extra
  }
}

/// The response of a HAR entry.
public struct HARResponse: Sendable, Equatable {
  /// The status code; `0` for a request that got no response (browsers record failed requests so).
  public var status: Int
  /// The reason phrase, such as `OK`.
  public var statusText: String
  /// The protocol version, such as `HTTP/1.1`.
  public var httpVersion: String
  /// The header fields, in order; a name may repeat.
  public var headers: [HARNameValue]
  /// The body.
  public var content: HARContent
  /// The `Location` of a redirect, or `""`.
  public var redirectURL: String
  /// Other fields (`cookies`, `headersSize`, `bodySize`, `_error`…).
  public var extra: [String: JSONValue]

  /// Creates a response.
  public init(
    status: Int, statusText: String = "", httpVersion: String = "HTTP/1.1", headers: [HARNameValue] = [],
    content: HARContent = HARContent(), redirectURL: String = "", extra: [String: JSONValue] = [:]
  ) {
    self.status = status
    self.statusText = statusText
    self.httpVersion = httpVersion
    self.headers = headers
    self.content = content
    self.redirectURL = redirectURL
    self.extra = extra
  }
}

/// A response body in HAR: decoded text (after any `Content-Encoding` such as gzip was undone),
/// or base64 when `encoding` is `"base64"`.
public struct HARContent: Sendable, Equatable {
  /// The decoded body's size in bytes.
  public var size: Int
  /// The media type, such as `application/json`.
  public var mimeType: String
  /// The body, as text or (with ``encoding`` `"base64"`) base64; `nil` when it was not captured.
  public var text: String?
  /// `"base64"` when ``text`` is base64, otherwise `nil`.
  public var encoding: String?
  /// Other fields (`compression`, `comment`…).
  public var extra: [String: JSONValue]

  /// Creates a body.
  public init(
    size: Int = 0, mimeType: String = "", text: String? = nil, encoding: String? = nil,
    extra: [String: JSONValue] = [:]
  ) {
    self.size = size
    self.mimeType = mimeType
    self.text = text
    self.encoding = encoding
    self.extra = extra
  }
}

/// A request body in HAR.
public struct HARPostData: Sendable, Equatable {
  /// The media type, such as `application/json`.
  public var mimeType: String
  /// The body as text; Doppel writes binary bodies as base64 with ``encoding`` `"base64"` (an
  /// extension of HAR 1.2, which has no binary request bodies).
  public var text: String?
  /// `"base64"` when ``text`` is base64, otherwise `nil`.
  public var encoding: String?
  /// Other fields (`params`, `comment`…).
  public var extra: [String: JSONValue]

  /// Creates a body.
  public init(mimeType: String, text: String?, encoding: String? = nil, extra: [String: JSONValue] = [:]) {
    self.mimeType = mimeType
    self.text = text
    self.encoding = encoding
    self.extra = extra
  }
}

/// A header field or query item in HAR: `{"name": …, "value": …}`.
public struct HARNameValue: Sendable, Equatable {
  /// The name.
  public var name: String
  /// The value.
  public var value: String
  /// Other fields (`comment`…).
  public var extra: [String: JSONValue]

  /// Creates a pair.
  public init(name: String, value: String, extra: [String: JSONValue] = [:]) {
    self.name = name
    self.value = value
    self.extra = extra
  }
}

// MARK: - Coding

extension HAREntry: Codable {
  private static let known: Set<String> = ["startedDateTime", "time", "request", "response"]

  /// Decodes the entry, keeping unknown fields.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    startedDateTime = try container.optional("startedDateTime") ?? ""
    time = try container.optional("time") ?? 0
    request = try container.required("request")
    response = try container.required("response")
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the entry with its unknown fields.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(startedDateTime, for: "startedDateTime")
    try container.encode(JSONValue.number(time), for: "time")
    try container.encode(request, for: "request")
    try container.encode(response, for: "response")
    try container.encode(extra: extra, known: Self.known)
  }
}

extension HARRequest: Codable {
  private static let known: Set<String> = ["method", "url", "httpVersion", "headers", "queryString", "postData"]

  /// Decodes the request, keeping unknown fields. `method` and `url` are required.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    method = try container.required("method")
    url = try container.required("url")
    httpVersion = try container.optional("httpVersion") ?? "HTTP/1.1"
    headers = try container.optional("headers") ?? []
    queryString = try container.optional("queryString") ?? []
    postData = try container.optional("postData")
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the request with its unknown fields.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(method, for: "method")
    try container.encode(url, for: "url")
    try container.encode(httpVersion, for: "httpVersion")
    try container.encode(headers, for: "headers")
    try container.encode(queryString, for: "queryString")
    try container.encodeIfPresent(postData, for: "postData")
    try container.encode(extra: extra, known: Self.known)
  }
}

extension HARResponse: Codable {
  private static let known: Set<String> = [
    "status", "statusText", "httpVersion", "headers", "content", "redirectURL",
  ]

  /// Decodes the response, keeping unknown fields. `status` is required.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    status = try container.required("status")
    statusText = try container.optional("statusText") ?? ""
    httpVersion = try container.optional("httpVersion") ?? "HTTP/1.1"
    headers = try container.optional("headers") ?? []
    content = try container.optional("content") ?? HARContent()
    redirectURL = try container.optional("redirectURL") ?? ""
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the response with its unknown fields.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(status, for: "status")
    try container.encode(statusText, for: "statusText")
    try container.encode(httpVersion, for: "httpVersion")
    try container.encode(headers, for: "headers")
    try container.encode(content, for: "content")
    try container.encode(redirectURL, for: "redirectURL")
    try container.encode(extra: extra, known: Self.known)
  }
}

extension HARContent: Codable {
  private static let known: Set<String> = ["size", "mimeType", "text", "encoding"]

  /// Decodes the body, keeping unknown fields.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    size = try container.optional("size") ?? 0
    mimeType = try container.optional("mimeType") ?? ""
    text = try container.optional("text")
    encoding = try container.optional("encoding")
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the body with its unknown fields.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(size, for: "size")
    try container.encode(mimeType, for: "mimeType")
    try container.encodeIfPresent(text, for: "text")
    try container.encodeIfPresent(encoding, for: "encoding")
    try container.encode(extra: extra, known: Self.known)
  }
}

extension HARPostData: Codable {
  private static let known: Set<String> = ["mimeType", "text", "encoding"]

  /// Decodes the body, keeping unknown fields.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    mimeType = try container.optional("mimeType") ?? ""
    text = try container.optional("text")
    encoding = try container.optional("encoding")
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the body with its unknown fields.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(mimeType, for: "mimeType")
    try container.encodeIfPresent(text, for: "text")
    try container.encodeIfPresent(encoding, for: "encoding")
    try container.encode(extra: extra, known: Self.known)
  }
}

extension HARNameValue: Codable {
  private static let known: Set<String> = ["name", "value"]

  /// Decodes the pair, keeping unknown fields.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    name = try container.required("name")
    value = try container.optional("value") ?? ""
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the pair with its unknown fields.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(name, for: "name")
    try container.encode(value, for: "value")
    try container.encode(extra: extra, known: Self.known)
  }
}
