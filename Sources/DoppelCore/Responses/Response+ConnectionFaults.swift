@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Response {
  /// A fault on the connection instead of a response, as a misbehaving server or network gives:
  ///
  /// ```swift
  /// backend.stub(.get("/breeds"), .fault(.emptyResponse))
  /// backend.stub(.get("/feed"), .fault(.malformedChunk))
  /// ```
  ///
  /// The stub server (`DoppelServer`) plays the fault as bytes on the wire. URLSession and
  /// in-memory callers get the `URLError` that URLSession reports for those bytes from a real
  /// server (see ``Fault``); a response with a fault has no status, headers or body.
  public static func fault(_ fault: Fault) -> Response {
    let kind = fault.kind
    return .error(
      URLError.described(kind.code, kind.message, url: nil, userInfo: [ConnectionFault.userInfoKey: kind.rawValue]))
  }
}

/// A fault on the connection, as WireMock's faults: what ``Response/fault(_:)`` plays.
///
/// | fault | on the stub server's wire | URLSession (and in-memory) callers get |
/// |---|---|---|
/// | ``emptyResponse`` | the connection is closed before any byte | `URLError(.badServerResponse)` on Linux, `.networkConnectionLost` on Apple platforms |
/// | ``malformedChunk`` | a `200` head with `Transfer-Encoding: chunked`, then a chunk whose size is not hexadecimal, then the connection is closed | `URLError(.unknown)` on Linux, `.cannotParseResponse` on Apple platforms |
/// | ``randomBytesThenClose`` | bytes that are not HTTP, then the connection is closed | `URLError(.unsupportedURL)` on Linux ("Received HTTP/0.9 when not allowed"), `.cannotParseResponse` on Apple platforms |
/// | ``connectionReset`` | the connection is reset (TCP RST) | `URLError(.networkConnectionLost)` |
///
/// The Linux codes are what swift-corelibs-foundation's URLSession reported for those bytes from a
/// real server (measured with Swift 6.3.1); the codes on Apple platforms follow CFNetwork's
/// documented meanings.
public struct Fault: Sendable, Hashable, CustomStringConvertible {
  let kind: ConnectionFault

  init(kind: ConnectionFault) { self.kind = kind }

  /// The connection closes before any byte of a response (WireMock's `EMPTY_RESPONSE`).
  public static let emptyResponse = Fault(kind: .empty)
  /// A response head announcing a chunked body, then a malformed chunk, then the connection closes
  /// (WireMock's `MALFORMED_RESPONSE_CHUNK`).
  public static let malformedChunk = Fault(kind: .malformedChunk)
  /// Bytes that are not HTTP, then the connection closes (WireMock's `RANDOM_DATA_THEN_CLOSE`).
  public static let randomBytesThenClose = Fault(kind: .randomBytes)
  /// The connection is reset before any response (WireMock's `CONNECTION_RESET_BY_PEER`).
  public static let connectionReset = Fault(kind: .reset)

  /// Every fault, in the order the documentation lists them.
  public static let allFaults: [Fault] = [.emptyResponse, .malformedChunk, .randomBytesThenClose, .connectionReset]

  /// The fault's name as a manifest writes it (`"fault": "emptyResponse"`).
  public var name: String { kind.rawValue }

  /// The fault a manifest names, or `nil`.
  package init?(named name: String) {
    guard let kind = ConnectionFault(rawValue: name) else { return nil }
    self.kind = kind
  }

  /// `.emptyResponse`.
  public var description: String { ".\(kind.rawValue)" }
}

/// A fault at the connection level that a front door with a real connection (the stub server)
/// plays as such; other front doors see the `URLError` it is carried in.
package enum ConnectionFault: String, Sendable, CaseIterable {
  /// Close the connection before any byte.
  case empty = "emptyResponse"
  /// A chunked head, then a malformed chunk, then close.
  case malformedChunk
  /// Bytes that are not HTTP, then close.
  case randomBytes = "randomBytesThenClose"
  /// Reset the connection (TCP RST) before any response.
  case reset = "connectionReset"

  /// The `URLError.userInfo` key that marks an error as a connection fault.
  static let userInfoKey = "DoppelConnectionFault"

  /// The fault an error stands for, if it was made by ``Response/fault(_:)``.
  package init?(_ error: any Error) {
    guard let error = error as? URLError, let raw = error.userInfo[Self.userInfoKey] as? String else { return nil }
    self.init(rawValue: raw)
  }

  /// The code URLSession reports for these bytes from a real server.
  var code: URLError.Code { Platform.current.urlErrorCode(for: self) }

  /// The error's description: on Linux, the words URLSession uses for the same bytes.
  var message: String {
    switch self {
    case .empty: "Empty reply from server (Response.fault(.emptyResponse))."
    case .malformedChunk:
      "Illegal or missing hexadecimal sequence in chunked-encoding (Response.fault(.malformedChunk))."
    case .randomBytes: "Received bytes that are not HTTP (Response.fault(.randomBytesThenClose))."
    case .reset: "The connection was reset before a response arrived (Response.fault(.connectionReset))."
    }
  }

  /// The bytes the stub server sends for ``randomBytes``: the same every time, and never the start
  /// of an HTTP response.
  static let randomBytesSent: [UInt8] = {
    var generator = SplitMix64(seed: 0xD0_99E1)
    var bytes: [UInt8] = [0x8F, 0x00]
    while bytes.count < 64 {
      let value = generator.next()
      for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
    return Array(bytes.prefix(64))
  }()

  /// The bytes the stub server sends for ``malformedChunk``, after which it closes.
  static let malformedChunkBytes = Array(
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nnot a chunk\r\n"
      .utf8)
}
