import Foundation

/// One accepted connection: reads HTTP/1.1 requests one after another (keep-alive), hands each to
/// the handler, and writes the answers, until the peer closes, asks to close, or sends something
/// malformed (answered with a 4xx and closed).
struct Connection {
  let fd: Int32
  private var buffer = Data()

  /// The most a request head or a chunk-size line may take.
  static let headLimit = 64 * 1024
  /// The largest body accepted.
  static let bodyLimit = 256 * 1024 * 1024

  init(fd: Int32) { self.fd = fd }

  /// Why reading a request stopped.
  enum Stop: Error {
    /// The peer closed (or the server shut the socket down).
    case closed
    /// The request was malformed: answer with this status and reason, then close.
    case reject(Int, String)
  }

  /// A request and whether the connection stays open after its answer.
  struct Incoming {
    var request: TestHTTPServer.Request
    var keepAlive: Bool
    var isHead: Bool
  }

  /// Serves requests until the connection ends.
  mutating func run(_ answer: (TestHTTPServer.Request) -> TestHTTPServer.Response, waitForStop: () -> Void) {
    while true {
      let incoming: Incoming
      do {
        incoming = try readRequest()
      } catch {
        if case .reject(let status, let reason) = error {
          let response = TestHTTPServer.Response.text(
            reason + "\n", status: status, headers: [("Connection", "close")])
          _ = Socket.sendAll(fd, Self.encode(response, isHead: false, keepAlive: false))
        }
        return
      }
      let response = answer(incoming.request)
      let closeAsked = Self.hasToken("close", in: response.headers.filter { Self.same($0.name, "Connection") })
      let keepAlive = incoming.keepAlive && !closeAsked
      if let hold = response.hold {
        let bytes = Self.encode(response, isHead: incoming.isHead, keepAlive: keepAlive)
        let sent: Data
        switch hold {
        case .beforeHead: sent = Data()
        case .afterBodyBytes(let count):
          let headLength = bytes.range(of: Data("\r\n\r\n".utf8)).map { $0.upperBound - bytes.startIndex } ?? 0
          sent = bytes.prefix(headLength + max(0, count))
        }
        _ = Socket.sendAll(fd, sent)
        waitForStop()
        return
      }
      guard Socket.sendAll(fd, Self.encode(response, isHead: incoming.isHead, keepAlive: keepAlive)), keepAlive else {
        return
      }
    }
  }

  // MARK: Reading

  private mutating func readRequest() throws(Stop) -> Incoming {
    // Split on bytes: in a Swift string "\r\n" is one character, so splitting on "\n" would not.
    let head = try readHead()
    var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line in
      String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
    }
    // Robustness: ignore empty lines before the request line.
    while lines.first?.isEmpty == true { lines.removeFirst() }
    guard let requestLine = lines.first else { throw .reject(400, "Bad Request: no request line") }
    let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
      parts[0].allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" })
    else { throw .reject(400, "Bad Request: malformed request line") }
    let version = String(parts[2])
    guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
      throw .reject(version.hasPrefix("HTTP/") ? 505 : 400, "Bad Request: unsupported version \(version)")
    }
    var headers: [(name: String, value: String)] = []
    for line in lines.dropFirst() where !line.isEmpty {
      guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
        !line[..<colon].contains(where: { $0 == " " || $0 == "\t" })
      else { throw .reject(400, "Bad Request: malformed header line") }
      let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
      headers.append((name: String(line[..<colon]), value: value))
    }
    let connection = headers.filter { Self.same($0.name, "Connection") }
    let keepAlive =
      version == "HTTP/1.1"
      ? !Self.hasToken("close", in: connection) : Self.hasToken("keep-alive", in: connection)
    let body = try readBody(headers: headers)
    let method = String(parts[0])
    return Incoming(
      request: TestHTTPServer.Request(method: method, target: String(parts[1]), headers: headers, body: body),
      keepAlive: keepAlive, isHead: method == "HEAD")
  }

  /// The request head up to (not including) the empty line; the rest stays buffered.
  private mutating func readHead() throws(Stop) -> Data {
    var searchFrom = 0
    while true {
      if let end = Self.endOfHead(in: buffer, from: searchFrom) {
        guard end.head <= Self.headLimit else { throw .reject(431, "Request Header Fields Too Large") }
        let head = Data(buffer.prefix(end.head))
        buffer.removeSubrange(buffer.startIndex..<buffer.startIndex + end.next)
        return head
      }
      searchFrom = max(0, buffer.count - 3)
      guard buffer.count <= Self.headLimit else { throw .reject(431, "Request Header Fields Too Large") }
      guard Socket.receive(fd, into: &buffer) else { throw .closed }
    }
  }

  /// Where the head ends (`\n\n` or `\n\r\n`, after skipping leading empty lines is left to the
  /// caller): the head's length and the offset just past the empty line.
  private static func endOfHead(in data: Data, from start: Int) -> (head: Int, next: Int)? {
    let bytes = [UInt8](data)
    var index = start
    // Leading CRLFs are not the end of a head.
    var firstContent = 0
    while firstContent < bytes.count && (bytes[firstContent] == 13 || bytes[firstContent] == 10) {
      firstContent += 1
    }
    index = max(index, firstContent)
    while index < bytes.count {
      if bytes[index] == 10 {
        if index + 1 < bytes.count && bytes[index + 1] == 10 { return (index, index + 2) }
        if index + 2 < bytes.count && bytes[index + 1] == 13 && bytes[index + 2] == 10 { return (index, index + 3) }
      }
      index += 1
    }
    return nil
  }

  private mutating func readBody(headers: [(name: String, value: String)]) throws(Stop) -> Data {
    let encodings = headers.filter { Self.same($0.name, "Transfer-Encoding") }
    let lengths = headers.filter { Self.same($0.name, "Content-Length") }.map(\.value)
    let expectsContinue = headers.contains {
      Self.same($0.name, "Expect") && $0.value.lowercased() == "100-continue"
    }
    if !encodings.isEmpty {
      let codings = encodings.flatMap { $0.value.split(separator: ",") }.map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      }
      guard codings.last == "chunked" else {
        throw .reject(400, "Bad Request: unsupported Transfer-Encoding \(codings.joined(separator: ", "))")
      }
      if expectsContinue { sendContinue() }
      return try readChunked()
    }
    guard let first = lengths.first else { return Data() }
    guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.allSatisfy(\.isASCII),
      first.allSatisfy(\.isNumber), let length = Int(first)
    else { throw .reject(400, "Bad Request: invalid Content-Length") }
    guard length <= Self.bodyLimit else { throw .reject(413, "Content Too Large") }
    if expectsContinue && length > 0 { sendContinue() }
    return try readExactly(length)
  }

  private func sendContinue() {
    _ = Socket.sendAll(fd, Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
  }

  private mutating func readExactly(_ count: Int) throws(Stop) -> Data {
    while buffer.count < count {
      guard Socket.receive(fd, into: &buffer) else { throw .closed }
    }
    let data = Data(buffer.prefix(count))
    buffer.removeSubrange(buffer.startIndex..<buffer.startIndex + count)
    return data
  }

  private mutating func readLine() throws(Stop) -> String {
    while true {
      if let newline = buffer.firstIndex(of: 10) {
        var line = buffer[buffer.startIndex..<newline]
        if line.last == 13 { line = line.dropLast() }
        let text = String(decoding: line, as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex...newline)
        return text
      }
      guard buffer.count <= Self.headLimit else { throw .reject(400, "Bad Request: chunk line too long") }
      guard Socket.receive(fd, into: &buffer) else { throw .closed }
    }
  }

  private mutating func readChunked() throws(Stop) -> Data {
    var body = Data()
    while true {
      let line = try readLine()
      let sizeText = line.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
      guard !sizeText.isEmpty, sizeText.allSatisfy(\.isHexDigit), sizeText.count <= 15,
        let size = Int(sizeText, radix: 16)
      else { throw .reject(400, "Bad Request: malformed chunk size") }
      if size == 0 { break }
      guard body.count + size <= Self.bodyLimit else { throw .reject(413, "Content Too Large") }
      body.append(try readExactly(size))
      guard try readLine().isEmpty else { throw .reject(400, "Bad Request: chunk not followed by CRLF") }
    }
    // Trailer fields, up to the empty line.
    while try !readLine().isEmpty {}
    return body
  }

  // MARK: Writing

  /// The bytes of a response: status line, headers (with `Content-Length` or chunked framing, and
  /// `Connection: close` when the connection ends), and the body unless there must be none.
  static func encode(_ response: TestHTTPServer.Response, isHead: Bool, keepAlive: Bool) -> Data {
    var headers = response.headers
    let chunked = headers.contains {
      same($0.name, "Transfer-Encoding") && $0.value.lowercased().contains("chunked")
    }
    let bodyless = (100..<200).contains(response.status) || response.status == 204 || response.status == 304
    let framed = headers.contains { same($0.name, "Content-Length") || same($0.name, "Transfer-Encoding") }
    if !framed && !bodyless {
      headers.append((name: "Content-Length", value: String(response.body.count)))
    }
    if !keepAlive && !headers.contains(where: { same($0.name, "Connection") }) {
      headers.append((name: "Connection", value: "close"))
    }
    var text = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
    for field in headers { text += "\(field.name): \(field.value)\r\n" }
    text += "\r\n"
    var data = Data(text.utf8)
    guard !isHead && !bodyless else { return data }
    if chunked {
      if !response.body.isEmpty {
        data.append(Data((String(response.body.count, radix: 16) + "\r\n").utf8))
        data.append(response.body)
        data.append(Data("\r\n".utf8))
      }
      data.append(Data("0\r\n\r\n".utf8))
    } else {
      data.append(response.body)
    }
    return data
  }

  static func reason(_ status: Int) -> String {
    switch status {
    case 100: "Continue"
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
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
    case 413: "Content Too Large"
    case 422: "Unprocessable Content"
    case 429: "Too Many Requests"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    case 505: "HTTP Version Not Supported"
    default: "Status \(status)"
    }
  }

  static func same(_ a: String, _ b: String) -> Bool { a.caseInsensitiveCompare(b) == .orderedSame }

  /// Whether a comma-separated header (such as `Connection`) holds `token`.
  static func hasToken(_ token: String, in fields: [(name: String, value: String)]) -> Bool {
    fields.contains { field in
      field.value.split(separator: ",").contains {
        $0.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(token) == .orderedSame
      }
    }
  }
}
