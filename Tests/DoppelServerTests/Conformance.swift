#if Server
  import Doppel
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// A way into Doppel (or into a real server) that a conformance case is sent through.
  enum Door: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `backend.makeSession(...)`: Doppel's URLProtocol inside URLSession.
    case urlSession
    /// `backend.respond(to:)`, the in-memory door behind `handler`.
    case inMemory
    /// The stub server (DoppelServer), read by URLSession's own HTTP stack.
    case stubServer
    /// A real HTTP server on loopback (TestHTTPServer) serving the same answers, read by URLSession.
    case realServer

    var testDescription: String { rawValue }
  }

  /// What a route answers. Text in headers and bodies may hold the placeholders `{base}` (scheme
  /// and authority of the door's main host), `{other}` (another host), `{host}`, `{otherhost}`
  /// (authorities) and `{hostname}` (the main host's name alone), replaced for each door.
  enum Reply: Sendable {
    /// A fixed answer.
    case fixed(status: Int, headers: [(String, String)], body: Data)
    /// 200 `text/plain` describing the request as received: method, target, host, some headers, body.
    case echo
    /// 304 with the ETag when `If-None-Match` names `etag`, otherwise 200 with the ETag and `body`.
    case conditional(etag: String, headers: [(String, String)], body: String)
    /// No answer at all: the request waits until it times out or is cancelled.
    case never
    /// The head and the first `bytes` bytes of `body`, then nothing more.
    case stalls(body: Data, afterBytes: Int)
  }

  /// A stub definition: which requests (method, or any; percent-decoded path) and the answer.
  struct Route: Sendable {
    var method: String?
    var path: String
    var reply: Reply
  }

  /// One request a case sends.
  struct Step: Sendable {
    var method = "GET"
    /// A path with query (`/a?b=c`), or an absolute URL starting with a placeholder (`{other}/a`).
    var target: String
    var headers: [(String, String)] = []
    var body: Data?
    var cachePolicy: URLRequest.CachePolicy?
    /// The request's `timeoutInterval`, in seconds.
    var timeout: TimeInterval?
    /// Cancel the task as soon as the first body bytes arrive.
    var cancelsMidBody = false
  }

  /// What a caller can observe of one request, with door-specific hosts replaced by placeholders.
  struct Observation: Equatable, Sendable, CustomStringConvertible {
    var status: Int?
    /// `name: value`, names lowercased, sorted; hop-by-hop and server-identity fields left out.
    var headers: [String] = []
    /// The body as text, or its length and a hash when it is long or not UTF-8.
    var body = ""
    /// `URLError(code)`, or the type of another error.
    var error: String?
    /// The URL of the final response, after redirects.
    var finalURL: String?
    /// The cookies in the session's storage after the request.
    var cookies: [String] = []

    var description: String {
      var lines = ["status \(status.map(String.init) ?? "-"), url \(finalURL ?? "-"), error \(error ?? "-")"]
      lines += headers.map { "  \($0)" }
      lines.append("  body: \(body.debugDescription)")
      lines += cookies.map { "  cookie: \($0)" }
      return lines.joined(separator: "\n")
    }
  }

  /// A difference a door is known to have from the reference, with why.
  struct Deviation: Sendable {
    var reason: String
    /// Turns the reference observations into what this door is expected to observe.
    var adjust: @Sendable (inout [Observation]) -> Void
  }

  /// One behaviour, defined once, sent through every door.
  struct ConformanceCase: Sendable, CustomTestStringConvertible {
    var name: String
    var routes: [Route]
    var steps: [Step]
    /// The doors the case runs through; the first of `realServer`, `urlSession` present is the
    /// reference the others are compared with.
    var doors: [Door] = Door.allCases
    var deviations: [Door: Deviation] = [:]
    /// Set by `onLinux()` on other platforms: the deviations declared after it are ignored there.
    var linuxOnlyDeviations = false

    var testDescription: String { name }

    var reference: Door { doors.contains(.realServer) ? .realServer : .urlSession }

    /// Declares that `door` differs from the reference, and how.
    func deviating(
      on doors: Door..., because reason: String, _ adjust: @escaping @Sendable (inout [Observation]) -> Void
    ) -> ConformanceCase {
      var copy = self
      guard !linuxOnlyDeviations else { return copy }
      for door in doors { copy.deviations[door] = Deviation(reason: reason, adjust: adjust) }
      return copy
    }

    /// The case without the doors that cannot take it.
    func only(_ doors: Door...) -> ConformanceCase {
      var copy = self
      copy.doors = doors
      return copy
    }
  }

  /// A case and a door to compare with the case's reference.
  struct ConformanceRun: Sendable, CustomTestStringConvertible {
    var conformanceCase: ConformanceCase
    var door: Door

    var testDescription: String { "\(conformanceCase.name) via \(door.rawValue)" }

    static func all(_ cases: [ConformanceCase]) -> [ConformanceRun] {
      cases.flatMap { conformanceCase in
        conformanceCase.doors.filter { $0 != conformanceCase.reference }.map {
          ConformanceRun(conformanceCase: conformanceCase, door: $0)
        }
      }
    }
  }

  // MARK: Building blocks for the case table

  extension Reply {
    static func text(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> Reply {
      .fixed(
        status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: Data(text.utf8))
    }

    static func status(_ status: Int, headers: [(String, String)] = []) -> Reply {
      .fixed(status: status, headers: headers, body: Data())
    }

    static func redirect(_ status: Int, to location: String, headers: [(String, String)] = []) -> Reply {
      .fixed(status: status, headers: [("Location", location)] + headers, body: Data())
    }
  }

  extension Route {
    static func get(_ path: String, _ reply: Reply) -> Route { Route(method: "GET", path: path, reply: reply) }
    static func any(_ path: String, _ reply: Reply) -> Route { Route(method: nil, path: path, reply: reply) }
    /// Echoes any request to `path`.
    static func echo(_ path: String = "/echo") -> Route { Route(method: nil, path: path, reply: .echo) }
  }

  extension Step {
    static func get(_ target: String, headers: [(String, String)] = []) -> Step {
      Step(target: target, headers: headers)
    }

    static func send(
      _ method: String, _ target: String, body: String? = nil, headers: [(String, String)] = []
    ) -> Step {
      Step(
        method: method, target: target,
        headers: body == nil ? headers : [("Content-Type", "text/plain")] + headers, body: body.map { Data($0.utf8) })
    }
  }

  // MARK: Encodings a server sends (stored deflate blocks: valid gzip and zlib streams)

  enum Encoded {
    /// `data` as a gzip member (RFC 1952).
    static func gzip(_ data: Data) -> Data {
      var out = Data([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
      out += stored(data)
      out += littleEndian(crc32(data))
      out += littleEndian(UInt32(truncatingIfNeeded: data.count))
      return out
    }

    /// `data` as a zlib stream (RFC 1950), which is what HTTP's `deflate` means.
    static func zlib(_ data: Data) -> Data {
      var out = Data([0x78, 0x01])
      out += stored(data)
      let adler = adler32(data)
      out += Data([UInt8(adler >> 24), UInt8((adler >> 16) & 0xff), UInt8((adler >> 8) & 0xff), UInt8(adler & 0xff)])
      return out
    }

    private static func stored(_ data: Data) -> Data {
      var out = Data()
      let bytes = [UInt8](data)
      var offset = 0
      repeat {
        let count = min(65_535, bytes.count - offset)
        let final = offset + count == bytes.count
        out.append(final ? 1 : 0)
        out += Data([UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)])
        out += bytes[offset..<offset + count]
        offset += count
      } while offset < bytes.count
      return out
    }

    private static func littleEndian(_ value: UInt32) -> Data {
      Data([UInt8(value & 0xff), UInt8((value >> 8) & 0xff), UInt8((value >> 16) & 0xff), UInt8(value >> 24)])
    }

    private static func crc32(_ data: Data) -> UInt32 {
      var crc: UInt32 = 0xffff_ffff
      for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
      }
      return ~crc
    }

    private static func adler32(_ data: Data) -> UInt32 {
      var a: UInt32 = 1
      var b: UInt32 = 0
      for byte in data {
        a = (a + UInt32(byte)) % 65_521
        b = (b + a) % 65_521
      }
      return b << 16 | a
    }
  }
#endif
