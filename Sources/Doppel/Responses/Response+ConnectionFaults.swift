import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension Response {
  /// A connection reset before any response arrives.
  ///
  /// URLSession and in-memory callers get `URLError(.networkConnectionLost)`. The stub server
  /// (`DoppelServer`) resets the TCP connection, so any HTTP client sees a reset (`ECONNRESET`)
  /// instead of a response. Combine with ``delayed(by:)`` for a reset that takes a while.
  ///
  /// For a connection that drops partway through the body, use ``droppingConnection(afterBytes:)``.
  public static var resettingConnection: Response {
    .error(
      URLError(
        .networkConnectionLost,
        userInfo: [
          ConnectionFault.userInfoKey: ConnectionFault.reset.rawValue,
          NSLocalizedDescriptionKey:
            "The connection was reset before a response arrived (Response.resettingConnection).",
        ]))
  }
}

/// A fault at the connection level that a front door with a real connection (the stub server)
/// plays as such; other front doors see the `URLError` it is carried in.
enum ConnectionFault: String, Sendable {
  /// Reset the connection (TCP RST) before any response.
  case reset

  /// The `URLError.userInfo` key that marks an error as a connection fault.
  static let userInfoKey = "DoppelConnectionFault"

  /// The fault an error stands for, if it was made by a ``Response`` connection-fault factory.
  init?(_ error: any Error) {
    guard let error = error as? URLError, let raw = error.userInfo[Self.userInfoKey] as? String else { return nil }
    self.init(rawValue: raw)
  }
}
