#if Server
  import Doppel
  import NIOCore
  import NIOHTTP1

  /// A stub's answer as NIO sends it: the head's status and headers, and the body in a buffer.
  /// Made once per answer (``FrontDoorAnswer/prepared(_:)``), so that an answer reused for many
  /// requests is neither converted nor checked again. A class: every request it serves shares it.
  final class PreparedAnswer: Sendable {
    let status: HTTPResponseStatus
    let headers: NIOHTTP1.HTTPHeaders
    /// The body, when it is not empty and at most ``largestKeptBody`` bytes: a larger one is copied
    /// into a buffer for each request, rather than kept twice for as long as the answer is.
    let body: ByteBuffer?
    /// The size of the largest body kept in a buffer.
    static let largestKeptBody = 64 * 1024
    /// Whether the headers ask to close the connection (`Connection: close`).
    let closes: Bool
    /// Why the head cannot be sent (see ``Doppel/HTTPHeaders/unsendableField``), or `nil`.
    let problem: String?

    init(_ answer: FrontDoorAnswer) {
      status = HTTPResponseStatus(statusCode: answer.status)
      let fields = answer.headers
      problem = fields.unsendableField
      var headers = NIOHTTP1.HTTPHeaders()
      headers.reserveCapacity(fields.count)
      for field in fields { headers.add(name: field.name, value: field.value) }
      self.headers = headers
      closes = headers.asksToClose
      let data = answer.body
      body = data.isEmpty || data.count > Self.largestKeptBody ? nil : ByteBufferAllocator().buffer(bytes: data)
    }
  }

  extension NIOHTTP1.HTTPHeaders {
    /// Whether a `Connection` field says `close`.
    var asksToClose: Bool { connectionNames("close") }

    /// Whether a `Connection` field names `option` (`close`, `upgrade`), in any case.
    func connectionNames(_ option: String) -> Bool {
      self[canonicalForm: "connection"].contains { $0.lowercased() == option }
    }
  }

  extension HTTPRequestHead {
    /// Whether the request asks to switch protocols as NIO's HTTP parser reads it: an `Upgrade`
    /// field with `Connection: upgrade`, or `CONNECT`. The parser stops at such a request and reads
    /// nothing after it, even when the switch does not happen, so a connection that carried one
    /// cannot serve another request.
    var asksToSwitchProtocols: Bool {
      method == .CONNECT
        || (headers.contains(name: "upgrade") && headers.connectionNames("upgrade"))
    }
  }

  extension Doppel.HTTPHeaders {
    /// Why these fields cannot go on the wire as they are, or `nil` when they can: a name that is
    /// not an HTTP token, or a value with a control character (CR, LF and NUL among them) other
    /// than a tab (RFC 9110 §5.1, §5.5). Sent as they are, such a field could end the head early or
    /// add fields of its own; the stub server answers `500` with this text instead.
    var unsendableField: String? {
      for field in self {
        if field.name.isEmpty || !field.name.utf8.allSatisfy(Self.isTokenByte) {
          return
            "A stub answered with the header name \(String(reflecting: field.name)), which cannot be sent: a header name is made of letters, digits and !#$%&'*+-.^_`|~ only. Fix the stub's headers."
        }
        if !field.value.utf8.allSatisfy(Self.isValueByte) {
          return
            "A stub answered with the header \(field.name): \(String(reflecting: field.value)), which cannot be sent: a header value holds no control characters (CR, LF, NUL and the like; a tab is allowed). Fix the stub's headers."
        }
      }
      return nil
    }

    @inline(__always)
    private static func isValueByte(_ byte: UInt8) -> Bool {
      byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F)
    }

    @inline(__always)
    private static func isTokenByte(_ byte: UInt8) -> Bool {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
        UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
        UInt8(ascii: "|"), UInt8(ascii: "~"):
        return true
      default:
        return false
      }
    }
  }
#endif
