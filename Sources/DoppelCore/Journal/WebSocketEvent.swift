@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// One thing that happened on a WebSocket connection the stub server upgraded: a message or a
/// close, in either direction, or the server dropping the connection.
///
/// A backend keeps them in ``Backend/webSocketEvents``, in order; the upgrade request itself is in
/// the ``Backend/journal`` like any request.
public struct WebSocketEvent: Sendable, CustomStringConvertible {
  enum Kind: Sendable {
    case message(WebSocketMessage)
    case close(code: UInt16?, reason: String)
    case drop
  }

  /// Which connection: 1 for the first the backend upgraded, 2 for the next, and so on.
  public let connection: Int
  /// The URL of the upgrade request, as matched.
  public let url: URL
  /// Whether the client sent it (otherwise the server did).
  public let isFromClient: Bool
  let kind: Kind

  package init(connection: Int, url: URL, isFromClient: Bool, message: WebSocketMessage) {
    self.init(connection: connection, url: url, isFromClient: isFromClient, kind: .message(message))
  }

  package init(connection: Int, url: URL, isFromClient: Bool, closeCode: UInt16?, reason: String) {
    self.init(
      connection: connection, url: url, isFromClient: isFromClient, kind: .close(code: closeCode, reason: reason))
  }

  /// The server dropped connection `connection` without a close frame (``WebSocketAction/drop(after:)``).
  package static func drop(connection: Int, url: URL) -> WebSocketEvent {
    WebSocketEvent(connection: connection, url: url, isFromClient: false, kind: .drop)
  }

  private init(connection: Int, url: URL, isFromClient: Bool, kind: Kind) {
    self.connection = connection
    self.url = url
    self.isFromClient = isFromClient
    self.kind = kind
  }

  /// The message, when the event is one.
  public var message: WebSocketMessage? {
    if case .message(let message) = kind { return message }
    return nil
  }

  /// Whether the event is a close frame.
  public var isClose: Bool {
    if case .close = kind { return true }
    return false
  }

  /// The code of a close frame (`nil` for a close frame without one, or another event).
  public var closeCode: UInt16? {
    if case .close(let code, _) = kind { return code }
    return nil
  }

  /// The reason of a close frame (empty for another event).
  public var closeReason: String {
    if case .close(_, let reason) = kind { return reason }
    return ""
  }

  /// Whether the server dropped the connection without a close frame.
  public var isDrop: Bool {
    if case .drop = kind { return true }
    return false
  }

  /// `#1 client → text "ping"`, `#1 server → close 1000 "bye"`.
  public var description: String {
    let arrow = isFromClient ? "client →" : "server →"
    switch kind {
    case .message(let message): return "#\(connection) \(arrow) \(message)"
    case .close(let code, let reason):
      return "#\(connection) \(arrow) close" + (code.map { " \($0)" } ?? "")
        + (reason.isEmpty ? "" : " \(reason.debugDescription)")
    case .drop: return "#\(connection) server dropped the connection"
    }
  }
}

extension Backend {
  /// Every message and close on the WebSocket connections the stub server upgraded for this
  /// backend, in order (see ``WebSocketEvent``). A backend made with a `journalLimit` keeps at most
  /// that many; ``clearJournal()`` empties it too.
  public var webSocketEvents: [WebSocketEvent] {
    locked.withLock { $0.webSocketEvents }
  }

  /// The number of the next WebSocket connection (1, 2, …).
  package func nextWebSocketConnection() -> Int {
    locked.withLock { state in
      state.webSocketConnections += 1
      return state.webSocketConnections
    }
  }

  /// Records what happened on a WebSocket connection.
  ///
  /// The events count against the journal's bounds with its requests: at most
  /// ``journalLimit`` events, and their bytes (see ``WebSocketEvent/journaledBytes``) with the
  /// requests' within ``journalByteLimit``. Past a bound the oldest events are dropped, keeping
  /// the newest; should that one and the requests still pass the byte bound, the oldest requests
  /// are dropped as when a request arrives.
  package func record(_ event: WebSocketEvent) {
    let dropped = locked.withLock { state -> [WebSocketEvent] in
      state.webSocketEvents.append(event)
      var bytes = state.journal.bytesBeside + event.journaledBytes
      var drop = 0
      if let limit = state.journal.limit, state.webSocketEvents.count > limit {
        drop = state.webSocketEvents.count - limit
      }
      for index in 0..<drop { bytes -= state.webSocketEvents[index].journaledBytes }
      if let byteLimit = state.journal.byteLimit {
        while bytes + state.journal.bytes > byteLimit && drop < state.webSocketEvents.count - 1 {
          bytes -= state.webSocketEvents[drop].journaledBytes
          drop += 1
        }
      }
      let removed = Array(state.webSocketEvents[..<drop])
      state.webSocketEvents.removeFirst(drop)
      state.journal.bytesBeside = bytes
      return removed
    }
    _ = dropped.count  // freed here, outside the lock
  }
}

extension WebSocketEvent {
  /// The bytes this event counts against the journal's byte bound (``Backend/journalByteLimit``):
  /// its message's (or close reason's) bytes and its URL's, with 16 for the rest.
  package var journaledBytes: Int {
    let content: Int
    switch kind {
    case .message(let message): content = message.byteCount
    case .close(_, let reason): content = reason.utf8.count
    case .drop: content = 0
    }
    return content + url.absoluteString.utf8.count + 16
  }
}
