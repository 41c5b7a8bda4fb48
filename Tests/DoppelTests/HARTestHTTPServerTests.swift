import Foundation
import TestHTTPServer
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The loopback server the recording tests (and the differential tests) rely on.
@Suite struct TestHTTPServerTests {
  static func echo(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
    .text("\(request.method) \(request.target) \(request.bodyText)")
  }

  @Test func answersAGetAndRecordsIt() async throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let session = URLSession(configuration: .ephemeral)
    var request = URLRequest(url: server.baseURL.appendingPathComponent("breeds"))
    request.url = URL(string: "\(server.baseURL.absoluteString)/breeds?page=2&sort=name")
    request.setValue("yes", forHTTPHeaderField: "X-Test")
    let (data, response) = try await session.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    #expect(String(decoding: data, as: UTF8.self) == "GET /breeds?page=2&sort=name ")
    #expect(http.statusCode == 200)
    #expect(http.value(forHTTPHeaderField: "Content-Length") == "29")
    #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
    let received = try #require(server.requests.first)
    #expect(server.requests.count == 1)
    #expect(received.method == "GET")
    #expect(received.target == "/breeds?page=2&sort=name")
    #expect(received.path == "/breeds")
    #expect(received.header("x-test") == "yes")
    #expect(received.header("HOST") == "127.0.0.1:\(server.port)")
    #expect(received.body.isEmpty)
    #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
  }

  @Test func readsAPostBody() async throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    var request = URLRequest(url: server.baseURL.appendingPathComponent("orders"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    let body = #"{"sku":"A1","quantity":2}"#
    request.httpBody = Data(body.utf8)
    let (data, _) = try await URLSession(configuration: .ephemeral).data(for: request)
    #expect(String(decoding: data, as: UTF8.self) == "POST /orders \(body)")
    #expect(server.requests.first?.body == Data(body.utf8))
    #expect(server.requests.first?.header("Content-Type") == "application/json")
  }

  @Test func readsALargeBody() async throws {
    let server = try TestHTTPServer.start { .text(String($0.body.count)) }
    defer { server.stop() }
    var request = URLRequest(url: server.baseURL.appendingPathComponent("upload"))
    request.httpMethod = "PUT"
    let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0) })
    request.httpBody = body
    let (data, _) = try await URLSession(configuration: .ephemeral).data(for: request)
    #expect(String(decoding: data, as: UTF8.self) == "300000")
    #expect(server.requests.first?.body.count == body.count)
    #expect(server.requests.first?.body == body, "the received body differs")
  }

  @Test func keepsTheConnectionAliveAcrossRequests() async throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let session = URLSession(configuration: .ephemeral)
    var answers: [String] = []
    for index in 0..<30 {
      let url = URL(string: "\(server.baseURL.absoluteString)/n/\(index)")!
      answers.append(String(decoding: try await session.data(from: url).0, as: UTF8.self))
    }
    #expect(answers == (0..<30).map { "GET /n/\($0) " })
    #expect(server.requests.map(\.target) == (0..<30).map { "/n/\($0)" })
    #expect(server.connectionCount == 1)
  }

  @Test func uploadsAChunkedStream() async throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    var request = URLRequest(url: server.baseURL.appendingPathComponent("stream"))
    request.httpMethod = "POST"
    let body = Data(String(repeating: "chunk-", count: 5_000).utf8)
    request.httpBodyStream = InputStream(data: body)
    let (data, _) = try await URLSession(configuration: .ephemeral).data(for: request)
    #expect(data.count == 13 + body.count)
    #expect(data == Data("POST /stream ".utf8) + body, "the echoed body differs")
    let received = try #require(server.requests.first)
    #expect(received.body.count == body.count)
    #expect(received.body == body, "the received body differs")
    #expect(received.header("Transfer-Encoding") == "chunked")
  }

  @Test func roundTripsStatusAndHeaders() async throws {
    let server = try TestHTTPServer.start { _ in
      TestHTTPServer.Response(
        status: 201,
        headers: [("Location", "/orders/7"), ("X-Request-Id", "abc"), ("Content-Type", "application/json")],
        body: Data(#"{"id":7}"#.utf8))
    }
    defer { server.stop() }
    var request = URLRequest(url: server.baseURL.appendingPathComponent("orders"))
    request.httpMethod = "POST"
    request.httpBody = Data("{}".utf8)
    let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    #expect(http.statusCode == 201)
    #expect(http.value(forHTTPHeaderField: "Location") == "/orders/7")
    #expect(http.value(forHTTPHeaderField: "x-request-id") == "abc")
    #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json")
    #expect(String(decoding: data, as: UTF8.self) == #"{"id":7}"#)
  }

  @Test func headGetsTheLengthButNoBody() async throws {
    let server = try TestHTTPServer.start { _ in .text("twelve bytes") }
    defer { server.stop() }
    var request = URLRequest(url: server.baseURL.appendingPathComponent("file"))
    request.httpMethod = "HEAD"
    let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
    #expect(data.isEmpty)
    #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == "12")
    let raw = try server.exchange("HEAD /file HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(raw.hasSuffix("\r\n\r\n"))
    #expect(!raw.contains("twelve"))
  }

  @Test func answersPipelinedRequestsInOrderOnOneConnection() throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let raw = try server.exchange(
      "GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET /c HTTP/1.1\r\n\r\n"
    )
    #expect(
      raw == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 7\r\n\r\nGET /a "
        + "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 11\r\n\r\nPOST /b abc"
        + "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 7\r\n\r\nGET /c ")
    #expect(server.connectionCount == 1)
  }

  @Test func decodesAChunkedBodyWithExtensionsAndTrailers() throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let raw = try server.exchange(
      "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: 1\r\n\r\n"
    )
    #expect(raw.hasSuffix("\r\n\r\nPUT /c hello world"))
    #expect(server.requests.first?.bodyText == "hello world")
  }

  @Test func honoursConnectionClose() throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let raw = try server.exchange("GET /a HTTP/1.1\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\n\r\n")
    #expect(raw.hasSuffix("Connection: close\r\n\r\nGET /a "))
    #expect(server.requests.map(\.target) == ["/a"])
    let closing = try TestHTTPServer.start { _ in .text("bye", headers: [("Connection", "close")]) }
    defer { closing.stop() }
    #expect(try closing.exchange("GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n").hasSuffix("\r\n\r\nbye"))
    #expect(closing.requests.count == 1)
    let http10 = try server.exchange("GET /old HTTP/1.0\r\n\r\nGET /ignored HTTP/1.0\r\n\r\n")
    #expect(http10.hasSuffix("Connection: close\r\n\r\nGET /old "))
  }

  @Test func answersExpectContinueBeforeTheBody() throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let raw = try server.exchange("POST /e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok")
    #expect(raw.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"))
    #expect(raw.hasSuffix("POST /e ok"))
  }

  @Test(
    arguments: Example.list([
      ("NONSENSE\r\n\r\n", "400 Bad Request", "Bad Request: malformed request line"),
      ("GET / HTTP/2.0\r\n\r\n", "505 HTTP Version Not Supported", "Bad Request: unsupported version HTTP/2.0"),
      ("GET / HTTP/1.1\r\nno colon here\r\n\r\n", "400 Bad Request", "Bad Request: malformed header line"),
      ("POST / HTTP/1.1\r\nContent-Length: -4\r\n\r\n", "400 Bad Request", "Bad Request: invalid Content-Length"),
      (
        "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "400 Bad Request",
        "Bad Request: invalid Content-Length"
      ),
      (
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "400 Bad Request",
        "Bad Request: malformed chunk size"
      ),
      (
        "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", "400 Bad Request",
        "Bad Request: unsupported Transfer-Encoding gzip"
      ),
    ]))
  func answersAMalformedRequestWith400AndCloses(example: Example<String, (String, String)>) throws {
    let (raw, (status, reason)) = (example.input, example.expected)
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let answer = try server.exchange(raw + "GET /after HTTP/1.1\r\n\r\n")
    #expect(
      answer
        == "HTTP/1.1 \(status)\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"
        + "Content-Length: \(reason.utf8.count + 1)\r\n\r\n\(reason)\n")
    #expect(server.requests.isEmpty)
    // The server is still up.
    #expect(try server.exchange("GET /ok HTTP/1.1\r\n\r\n").hasSuffix("GET /ok "))
  }

  @Test func answersATooLargeHeadWith431() throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let huge = "GET / HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n"
    let answer = try server.exchange(huge)
    #expect(answer.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(answer.prefix(200))")
  }

  @Test func sendsAChunkedResponseWhenTheHandlerAsksForIt() throws {
    let server = try TestHTTPServer.start { _ in
      TestHTTPServer.Response(headers: [("Transfer-Encoding", "chunked")], body: Data("streamed".utf8))
    }
    defer { server.stop() }
    #expect(
      try server.exchange("GET / HTTP/1.1\r\n\r\n")
        == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\nstreamed\r\n0\r\n\r\n")
  }

  @Test func stopIsIdempotentAndRefusesNewConnections() async throws {
    let server = try TestHTTPServer.start(Self.echo)
    let session = URLSession(configuration: .ephemeral)
    let url = server.baseURL.appendingPathComponent("x")
    _ = try await session.data(from: url)  // leaves a kept-alive connection open
    server.stop()
    server.stop()
    do {
      _ = try await session.data(from: url)
      Issue.record("expected the request to fail after stop()")
    } catch let error as URLError {
      #expect([.cannotConnectToHost, .networkConnectionLost].contains(error.code))
    }
    #expect(throws: TestHTTPServer.StartError.self) { try server.exchange("GET / HTTP/1.1\r\n\r\n") }
  }

  @Test func servesConcurrentClients() async throws {
    let server = try TestHTTPServer.start(Self.echo)
    defer { server.stop() }
    let answers = try await withThrowingTaskGroup(of: String.self) { group in
      for index in 0..<16 {
        group.addTask {
          let session = URLSession(configuration: .ephemeral)
          let url = URL(string: "\(server.baseURL.absoluteString)/c/\(index)")!
          return String(decoding: try await session.data(from: url).0, as: UTF8.self)
        }
      }
      return try await group.reduce(into: Set<String>()) { $0.insert($1) }
    }
    #expect(answers == Set((0..<16).map { "GET /c/\($0) " }))
    #expect(server.requests.count == 16)
  }
}
