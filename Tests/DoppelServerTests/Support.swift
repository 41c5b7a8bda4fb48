#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import TestSupport
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif
  #if canImport(Glibc)
    import Glibc
  #endif

  /// A URLSession on the real HTTP stack (no URLProtocol of Doppel's anywhere).
  let realSession = URLSession(configuration: .ephemeral)

  extension StubServer {
    /// `baseURL` + `path` (which starts with `/` and may hold a query).
    func url(_ path: String) -> URL { URL(string: baseURL.absoluteString + path)! }
  }

  /// Sends a request through the real URLSession stack.
  func fetch(
    _ url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
  ) async throws -> (body: String, response: HTTPURLResponse) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let (data, response) = try await realSession.data(for: request)
    return (String(decoding: data, as: UTF8.self), try #require(response as? HTTPURLResponse))
  }

  /// Runs blocking work on a thread of its own, so that the cooperative pool is never blocked.
  ///
  /// The result goes through a lock as well as the continuation, so that ThreadSanitizer sees
  /// what the work wrote (a new connection's descriptor) happen before the caller reads it: it
  /// does not always see the continuation's own hand-over from a thread of Foundation's.
  func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    let outcome = Outcome<T>()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      Thread.detachNewThread {
        outcome.set(Result { try work() })
        continuation.resume()
      }
    }
    return try outcome.get()
  }

  /// The result of ``blocking(_:)``'s work, handed over under a lock.
  private final class Outcome<T: Sendable>: @unchecked Sendable {
    // Why `@unchecked` is safe: `result` is only read or written while `lock` is held.
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ result: Result<T, any Error>) {
      lock.lock()
      defer { lock.unlock() }
      self.result = result
    }

    func get() throws -> T {
      lock.lock()
      defer { lock.unlock() }
      guard let result else { throw CancellationError() }
      return try result.get()
    }
  }

  #if canImport(Glibc)
    /// A plain TCP connection to the server, for sending what no HTTP client would.
    final class RawConnection: Sendable {
      private let descriptor: Int32
      private let isClosed = Flag()

      enum End: Equatable, Sendable {
        /// The server closed the connection (FIN).
        case closed
        /// The server reset the connection (RST).
        case reset
        /// Nothing more arrived for the read timeout, the connection still open.
        case timedOut
      }

      struct SocketError: Error, CustomStringConvertible {
        let description: String
      }

      private init(descriptor: Int32) { self.descriptor = descriptor }

      /// Connects to 127.0.0.1:`port`; reads give up after `timeout` seconds of silence. The
      /// default is for an answer that must come: 30 s, since under ThreadSanitizer on two busy
      /// cores a plain request once waited past 10 s. A test that expects silence sets a short
      /// bound itself (``setReadTimeout(_:)``).
      static func connect(port: Int, timeout: Int = 30) async throws -> RawConnection {
        try await blocking {
          let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
          guard descriptor >= 0 else { throw SocketError(description: "socket: errno \(errno)") }
          var time = timeval(tv_sec: timeout, tv_usec: 0)
          setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
          var address = sockaddr_in()
          address.sin_family = sa_family_t(AF_INET)
          address.sin_port = in_port_t(UInt16(port).bigEndian)
          address.sin_addr.s_addr = inet_addr("127.0.0.1")
          let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
              Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
          }
          guard result == 0 else {
            _ = Glibc.close(descriptor)
            throw SocketError(description: "connect: errno \(errno)")
          }
          return RawConnection(descriptor: descriptor)
        }
      }

      /// Makes reads give up after `timeout` of silence (a bounded wait, in place of sleeping).
      func setReadTimeout(_ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
      }

      /// Sends bytes; a connection the server already closed is not an error here.
      func send(_ bytes: [UInt8]) async throws {
        let descriptor = descriptor
        try await blocking {
          var offset = 0
          while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
              Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
              if errno == EPIPE || errno == ECONNRESET { return }
              throw SocketError(description: "send: errno \(errno)")
            }
            offset += sent
          }
        }
      }

      func send(_ text: String) async throws { try await send(Array(text.utf8)) }

      /// Reads until the server closes, resets, or goes quiet.
      func readUntilEnd() async throws -> (bytes: [UInt8], end: End) {
        let descriptor = descriptor
        return try await blocking {
          var bytes: [UInt8] = []
          var buffer = [UInt8](repeating: 0, count: 65_536)
          while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
              bytes += buffer[..<count]
            } else if count == 0 {
              return (bytes, .closed)
            } else if errno == ECONNRESET {
              return (bytes, .reset)
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
              return (bytes, .timedOut)
            } else {
              throw SocketError(description: "recv: errno \(errno)")
            }
          }
        }
      }

      /// Reads a response's head, up to and with the blank line; `nil` when the connection ends or
      /// goes quiet first.
      func readHead() async throws -> [UInt8]? {
        let descriptor = descriptor
        return try await blocking { Self.head(from: descriptor) }
      }

      /// The head `readHead()` reads, read on the calling thread.
      private static func head(from descriptor: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while !bytes.ends(with: [13, 10, 13, 10]) {
          guard recv(descriptor, &byte, 1, 0) == 1 else { return nil }
          bytes.append(byte)
        }
        return bytes
      }

      /// Reads one response with a `Content-Length` body: its head as text and its body.
      func readResponse() async throws -> (head: String, body: String)? {
        let descriptor = descriptor
        return try await blocking {
          guard let bytes = Self.head(from: descriptor) else { return nil }
          let head = String(decoding: bytes, as: UTF8.self)
          let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
          var body = [UInt8](repeating: 0, count: length)
          var received = 0
          while received < length {
            let count = body.withUnsafeMutableBytes {
              recv(descriptor, $0.baseAddress! + received, length - received, 0)
            }
            guard count > 0 else { break }
            received += count
          }
          return (head, String(decoding: body[..<received], as: UTF8.self))
        }
      }

      /// Reads exactly `count` bytes; `nil` when the connection ends or goes quiet first.
      func read(exactly count: Int) async throws -> [UInt8]? {
        let descriptor = descriptor
        return try await blocking {
          var bytes = [UInt8](repeating: 0, count: count)
          var received = 0
          while received < count {
            let got = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + received, count - received, 0) }
            guard got > 0 else { return nil }
            received += got
          }
          return bytes
        }
      }

      /// Reads and drops `count` bytes, keeping none of them: `false` when the connection ends or
      /// goes quiet first.
      func skip(_ count: Int) async throws -> Bool {
        let descriptor = descriptor
        return try await blocking {
          var buffer = [UInt8](repeating: 0, count: 65_536)
          var remaining = count
          while remaining > 0 {
            let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, min($0.count, remaining), 0) }
            guard got > 0 else { return false }
            remaining -= got
          }
          return true
        }
      }

      /// Reads whole server-sent events (each up to a blank line) until one contains `text`: what
      /// arrived up to the end of that event, or `nil` when the connection ends or goes quiet
      /// first. Reads a byte at a time, so that nothing after that event is consumed.
      func readEvents(until text: String) async throws -> String? {
        let descriptor = descriptor
        return try await blocking {
          var bytes: [UInt8] = []
          var eventStart = 0
          var byte: UInt8 = 0
          while recv(descriptor, &byte, 1, 0) == 1 {
            bytes.append(byte)
            guard bytes.ends(with: [10, 10]) else { continue }
            if String(decoding: bytes[eventStart...], as: UTF8.self).contains(text) {
              return String(decoding: bytes, as: UTF8.self)
            }
            eventStart = bytes.count
          }
          return nil
        }
      }

      /// Closes the connection (once).
      func close() {
        if !isClosed.testAndSet() { _ = Glibc.close(descriptor) }
      }

      deinit { close() }
    }
  #endif

  extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
      count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
  }

  /// The first line of an HTTP response: `HTTP/1.1 200 OK`.
  func statusLine(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
  }

  /// Text a parameterized test sends as it is (a raw request, a header with a line break), shown in
  /// the run's output on one line with its control characters escaped (`GET / HTTP/1.1\r\n…`):
  /// printed raw, its lines (`Content-Length: nope`) would read like the run's own.
  struct RawText: Sendable, ExpressibleByStringLiteral, CustomTestStringConvertible, CustomTestArgumentEncodable {
    let text: String

    init(stringLiteral text: String) { self.text = text }

    /// The text itself, which names the case when a tool runs one case again.
    func encodeTestArgument(to encoder: some Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(text)
    }

    var testDescription: String {
      let escaped = text.unicodeScalars.map { scalar in
        switch scalar {
        case "\r": "\\r"
        case "\n": "\\n"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F: "\\u{\(String(scalar.value, radix: 16))}"
        default: String(scalar)
        }
      }
      return "\"" + escaped.joined() + "\""
    }
  }
#endif
