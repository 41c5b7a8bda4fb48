import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Something wrong with one field of one HAR entry, found when its bodies are decoded.
package struct HAREntryProblem: Error, Sendable, Equatable {
  /// The field inside the entry: `response.content.encoding`.
  let field: String
  /// What is wrong and how to fix it.
  let reason: String

  /// `file:12:5: log.entries[3].response.content.encoding: reason`, `place` being `file:12:5` (or
  /// the file alone).
  package func message(place: String, index: Int) -> String {
    "\(place): log.entries[\(index)].\(field): \(reason)"
  }
}

extension HAREntry {
  /// An entry for a request and the response it got, as Doppel records it: headers sorted by name
  /// (keeping repeated ones in order), bodies as UTF-8 text when they are text and base64
  /// otherwise, and the fields HAR 1.2 requires filled in.
  ///
  /// - Throws: the response's error when its body cannot be read (a missing file).
  public init(request: Request, response: Response, startedAt: Date = Date(), duration: Double = 0) throws {
    let body = try response.bodyData()
    let headers = Self.sorted(response.headers)
    let compressed = headers.contains { $0.name.lowercased() == "content-encoding" }
    let text = Self.text(of: body)
    self.init(
      startedDateTime: Self.timestamp(startedAt), time: duration, request: HARRequest(request),
      response: HARResponse(
        status: response.status, statusText: HTTPReason.phrase(response.status), headers: headers,
        content: HARContent(
          size: body.count, mimeType: response.headers["Content-Type"] ?? response.body.contentType ?? "",
          text: body.isEmpty ? nil : text.text,
          encoding: text.encoding),
        redirectURL: response.headers["Location"] ?? "",
        extra: ["cookies": [], "headersSize": -1, "bodySize": compressed ? -1 : .number(Double(body.count))]),
      extra: Self.timings(duration))
  }

  /// An entry for a request that got no response: status `0` and the error's name in `_error`, as
  /// browsers record failed requests. Replaying it fails the request with the same `URLError`
  /// code.
  public init(request: Request, error: any Error, startedAt: Date = Date(), duration: Double = 0) {
    let name: String
    if let error = error as? URLError {
      name = URLErrorCodeName.all.first { $0.code == error.code }?.name ?? String(error.code.rawValue)
    } else {
      name = String(describing: error)
    }
    self.init(
      startedDateTime: Self.timestamp(startedAt), time: duration, request: HARRequest(request),
      response: HARResponse(
        status: 0, extra: ["cookies": [], "headersSize": -1, "bodySize": -1, "_error": .string(name)]),
      extra: Self.timings(duration))
  }

  /// The request this entry describes, with its decoded body.
  ///
  /// - Throws: ``DoppelError`` when the URL is invalid or the body cannot be decoded.
  public func makeRequest() throws -> Request {
    do {
      return try recordedRequest()
    } catch {
      throw DoppelError.cassette("HAR entry \(request.method) \(request.url): \(error.field): \(error.reason)")
    }
  }

  /// The response Doppel replays for this entry, for a request with `method`.
  ///
  /// HAR holds decoded bodies, so a recorded `Content-Encoding` (such as `gzip`) and
  /// `Transfer-Encoding` are dropped, and a `Content-Length` that no longer fits the body is left
  /// for Doppel to recompute (a `HEAD` response keeps it). HTTP/2 pseudo-headers (`:status`) are
  /// dropped. An entry with status `0` (a request that failed) replays as a `URLError`.
  ///
  /// - Throws: ``DoppelError`` when the body cannot be decoded or the status is not HTTP.
  public func makeResponse(for method: HTTPMethod = .get) throws -> Response {
    do {
      return try replayResponse(for: method)
    } catch {
      throw DoppelError.cassette("HAR entry \(request.method) \(request.url): \(error.field): \(error.reason)")
    }
  }

  // MARK: Internal

  func recordedURL() throws(HAREntryProblem) -> URL {
    guard let url = URL(string: request.url), url.scheme != nil, url.host != nil else {
      throw HAREntryProblem(
        field: "request.url",
        reason:
          "\"\(request.url)\" is not an absolute URL. Give the full URL, such as \"https://api.example.com/breeds\".")
    }
    return url
  }

  package func recordedRequest() throws(HAREntryProblem) -> Request {
    guard HTTPToken.isToken(request.method) else {
      throw HAREntryProblem(
        field: "request.method",
        reason:
          "\"\(request.method)\" is not an HTTP method: a method is one word of letters, digits or !#$%&'*+-.^_`|~, such as GET or POST. Fix the method."
      )
    }
    let url = try recordedURL()
    var headers = HTTPHeaders()
    for field in request.headers where !field.name.hasPrefix(":") { Self.add(field, to: &headers) }
    var body: Data?
    if let postData = request.postData {
      body = try HARBody.decode(postData.text, encoding: postData.encoding, field: "request.postData")
    }
    return Request(method: HTTPMethod(request.method), url: url, headers: headers, body: body)
  }

  package func replayResponse(for method: HTTPMethod) throws(HAREntryProblem) -> Response {
    let status = response.status
    if status == 0 { return .error(HARFailure.error(named: response.extra["_error"], url: request.url)) }
    guard (100...599).contains(status) else {
      throw HAREntryProblem(
        field: "response.status",
        reason: "\(status) is not an HTTP status. Use 100 to 599, or 0 for a request that got no response.")
    }
    let body =
      try HARBody.decode(response.content.text, encoding: response.content.encoding, field: "response.content")
      ?? Data()
    var headers = HTTPHeaders()
    for field in response.headers where !field.name.hasPrefix(":") { Self.add(field, to: &headers) }
    var reframed = false
    if let coding = headers["Content-Encoding"], coding.lowercased() != "identity" {
      headers.remove("Content-Encoding")
      reframed = true
    }
    if headers.contains("Transfer-Encoding") {
      headers.remove("Transfer-Encoding")
      reframed = true
    }
    if let length = headers["Content-Length"], method != .head, reframed || Int(length) != body.count {
      headers.remove("Content-Length")
    }
    let mimeType = response.content.mimeType
    if !headers.contains("Content-Type"), !body.isEmpty, !mimeType.isEmpty, mimeType != "x-unknown" {
      headers.add("Content-Type", mimeType)
    }
    return Response(status: status, headers: headers, body: body)
  }

  // MARK: Private

  /// Adds a recorded header: a value of several lines (how Chrome and the tools built on it
  /// write a header sent more than once, such as `Set-Cookie`) is one field per line, as it was
  /// on the wire; a header value cannot hold a line break. Other control characters (which some
  /// servers do send, in cookies of bot detection) are dropped, so that the answer can be sent.
  private static func add(_ field: HARNameValue, to headers: inout HTTPHeaders) {
    guard field.value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
      headers.add(field.name, field.value)
      return
    }
    for line in field.value.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
      let value = String(
        String.UnicodeScalarView(
          line.unicodeScalars.filter { ($0.value >= 0x20 || $0.value == 0x09) && $0.value != 0x7F }))
      if !value.isEmpty { headers.add(field.name, value) }
    }
  }

  private static func sorted(_ headers: HTTPHeaders) -> [HARNameValue] {
    headers.enumerated()
      .sorted { left, right in
        let a = left.element.name.lowercased()
        let b = right.element.name.lowercased()
        return a != b ? a < b : left.offset < right.offset
      }
      .map { HARNameValue(name: $0.element.name, value: $0.element.value) }
  }

  /// A body as HAR text: UTF-8 text when it is text, otherwise base64.
  static func text(of body: Data) -> (text: String, encoding: String?) {
    if !body.contains(0), let text = String(data: body, encoding: .utf8) { return (text, nil) }
    return (body.base64EncodedString(), "base64")
  }

  private static func timestamp(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
  }

  private static func timings(_ duration: Double) -> [String: JSONValue] {
    ["cache": [:], "timings": ["send": 0, "wait": .number(duration), "receive": 0]]
  }
}

extension HARRequest {
  /// The HAR form of a request: its URL, headers in order, query items, and body.
  public init(_ request: Request) {
    var postData: HARPostData?
    if let body = request.body, !body.isEmpty {
      let text = HAREntry.text(of: body)
      postData = HARPostData(
        mimeType: request.headers["Content-Type"] ?? "application/octet-stream", text: text.text,
        encoding: text.encoding)
    }
    self.init(
      method: request.method.rawValue, url: request.url.absoluteString,
      headers: request.headers.map { HARNameValue(name: $0.name, value: $0.value) },
      queryString: request.queryItems.map { HARNameValue(name: $0.name, value: $0.value ?? "") },
      postData: postData,
      extra: ["cookies": [], "headersSize": -1, "bodySize": .number(Double(request.body?.count ?? 0))])
  }
}

/// Decoding HAR body text.
enum HARBody {
  /// The bytes of `text` (`nil` when there is none), decoding base64 when `encoding` says so.
  static func decode(_ text: String?, encoding: String?, field: String) throws(HAREntryProblem) -> Data? {
    guard let text else { return nil }
    switch encoding?.lowercased() {
    case nil, "", "identity", "utf-8", "utf8":
      return Data(text.utf8)
    case "base64":
      let compact = text.filter { !$0.isWhitespace }
      guard let data = Data(base64Encoded: compact) else {
        throw HAREntryProblem(
          field: field + ".text",
          reason:
            "the text is not valid base64, though \"encoding\" is \"base64\". Fix the text, or remove \"encoding\" if the text is the body itself."
        )
      }
      return data
    default:
      throw HAREntryProblem(
        field: field + ".encoding",
        reason:
          "the body encoding \"\(encoding ?? "")\" is not supported. HAR bodies are plain text, or base64 with \"encoding\": \"base64\"; decode this body into one of those."
      )
    }
  }
}

/// The error a failed request (status `0`) replays as.
package enum HARFailure {
  static package func error(named name: JSONValue?, url: String) -> URLError {
    var code = URLError.Code.networkConnectionLost
    if case .string(let text)? = name {
      if let known = URLErrorCodeName.code(named: text) {
        code = known
      } else if let raw = Int(text), let known = URLErrorCodeName.all.first(where: { $0.code.rawValue == raw }) {
        code = known.code
      } else if let chrome = chromeCodes[text] {
        code = chrome
      }
    }
    return URLError.described(
      code, "The recorded request to \(url) got no response (\(describe(name))).", url: URL(string: url))
  }

  private static func describe(_ name: JSONValue?) -> String {
    if case .string(let text)? = name { return text }
    return "no error recorded"
  }

  /// What Chromium writes in `_error` for the common failures.
  private static let chromeCodes: [String: URLError.Code] = [
    "net::ERR_CONNECTION_REFUSED": .cannotConnectToHost,
    "net::ERR_NAME_NOT_RESOLVED": .cannotFindHost,
    "net::ERR_INTERNET_DISCONNECTED": .notConnectedToInternet,
    "net::ERR_TIMED_OUT": .timedOut,
    "net::ERR_CONNECTION_TIMED_OUT": .timedOut,
    "net::ERR_CONNECTION_RESET": .networkConnectionLost,
    "net::ERR_ABORTED": .cancelled,
  ]
}

/// Reason phrases for the statuses HAR files usually hold.
enum HTTPReason {
  static func phrase(_ status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 101: "Switching Protocols"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Found"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 409: "Conflict"
    case 410: "Gone"
    case 412: "Precondition Failed"
    case 413: "Content Too Large"
    case 415: "Unsupported Media Type"
    case 422: "Unprocessable Content"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: ""
    }
  }
}
