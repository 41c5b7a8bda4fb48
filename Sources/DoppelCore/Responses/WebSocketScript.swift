@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// One WebSocket message: text or binary.
public struct WebSocketMessage: Sendable, Hashable, CustomStringConvertible {
  private enum Kind: Hashable {
    case text(String)
    case binary(Data)
  }

  private let kind: Kind

  /// A text message.
  public static func text(_ text: String) -> WebSocketMessage { WebSocketMessage(kind: .text(text)) }

  /// A binary message.
  public static func binary(_ data: Data) -> WebSocketMessage { WebSocketMessage(kind: .binary(data)) }

  /// A JSON value sent as a text message: `.json(["type": "hello"])`.
  public static func json(_ json: JSONValue) -> WebSocketMessage {
    let data = (try? JSONEncoder().encode(json)) ?? Data("null".utf8)
    return .text(String(decoding: data, as: UTF8.self))
  }

  /// The text of a text message; `nil` for a binary one.
  public var text: String? {
    if case .text(let text) = kind { return text }
    return nil
  }

  /// Whether the message is binary.
  public var isBinary: Bool {
    if case .binary = kind { return true }
    return false
  }

  /// How many bytes the message holds (UTF-8 for a text message), without copying them.
  package var byteCount: Int {
    switch kind {
    case .text(let text): text.utf8.count
    case .binary(let data): data.count
    }
  }

  /// The bytes of the message (UTF-8 for a text message).
  public var data: Data {
    switch kind {
    case .text(let text): Data(text.utf8)
    case .binary(let data): data
    }
  }

  /// `text "ping"` or `binary, 12 bytes`.
  public var description: String {
    switch kind {
    case .text(let text): "text \(text.debugDescription)"
    case .binary(let data): "binary, \(data.count) bytes"
    }
  }
}

/// Something the server does on a WebSocket connection, after an optional delay on the backend's
/// clock: send a message, close with a code, or drop the connection.
public struct WebSocketAction: Sendable, CustomStringConvertible {
  package enum Kind: Sendable {
    case send(WebSocketMessage)
    case close(code: UInt16, reason: String)
    case drop
  }

  package let kind: Kind
  /// How long to wait, on the backend's clock, after the previous action of the connection.
  public let delay: Duration

  /// Sends `message`, `delay` after the previous action.
  public static func send(_ message: WebSocketMessage, after delay: Duration = .zero) -> WebSocketAction {
    WebSocketAction(kind: .send(message), delay: delay)
  }

  /// Closes the conversation: sends a close frame with `code` and `reason`, waits for the client's
  /// (at most 2 seconds), then closes the connection. Actions after it do nothing.
  ///
  /// Codes from 1000 to 4999 can be sent; a client may map a code it does not know to another
  /// (FoundationNetworking turns codes it has no `CloseCode` for into `.unsupportedData`).
  public static func close(code: UInt16 = 1000, reason: String = "", after delay: Duration = .zero)
    -> WebSocketAction
  {
    WebSocketAction(kind: .close(code: code, reason: reason), delay: delay)
  }

  /// Drops the connection without a close frame: the fault of a server that goes away
  /// mid-conversation. The client sees the connection end abnormally (close code 1006).
  public static func drop(after delay: Duration = .zero) -> WebSocketAction {
    WebSocketAction(kind: .drop, delay: delay)
  }

  /// `send text "pong"`, `close 1000 "bye" after 100 ms`, `drop`.
  public var description: String {
    let what: String
    switch kind {
    case .send(let message): what = "send \(message)"
    case .close(let code, let reason): what = "close \(code)" + (reason.isEmpty ? "" : " \(reason.debugDescription)")
    case .drop: what = "drop the connection"
    }
    return delay > .zero ? "\(what) after \(delay)" : what
  }
}

/// Which client messages a ``WebSocketReply`` answers.
public struct WebSocketMessageMatcher: Sendable, CustomStringConvertible {
  private enum Kind: Sendable {
    case any
    case text(String)
    case pattern(String, UncheckedSendable<NSRegularExpression>?)
    case json(JSONValue)
    case binary(Data)
  }

  private let kind: Kind

  /// Every message.
  public static var any: WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .any) }

  /// A text message equal to `text`.
  public static func text(_ text: String) -> WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .text(text)) }

  /// A text message in which the regular expression `pattern` (ICU syntax, as
  /// `NSRegularExpression`) finds a match; anchor it with `^…$` to match the whole message. A
  /// pattern that does not compile matches nothing (see ``problem``), and so does a search that
  /// backtracks for more than about 2.5 million steps on one message.
  public static func regex(_ pattern: String) -> WebSocketMessageMatcher {
    let compiled = try? NSRegularExpression(pattern: pattern)
    return WebSocketMessageMatcher(kind: .pattern(pattern, compiled.map(UncheckedSendable.init)))
  }

  /// A text message holding JSON that contains `json` (every key of an object, with an equal or
  /// containing value; other keys are ignored).
  public static func json(containing json: JSONValue) -> WebSocketMessageMatcher {
    WebSocketMessageMatcher(kind: .json(json))
  }

  /// A binary message with exactly these bytes.
  public static func binary(_ data: Data) -> WebSocketMessageMatcher { WebSocketMessageMatcher(kind: .binary(data)) }

  /// Why this matcher can match nothing (a regular expression that does not compile), or `nil`.
  public var problem: String? {
    if case .pattern(let pattern, nil) = kind {
      return
        "The regular expression \(pattern.debugDescription) does not compile. Check its syntax (ICU, as NSRegularExpression)."
    }
    return nil
  }

  /// Whether `message` matches.
  public func matches(_ message: WebSocketMessage) -> Bool {
    switch kind {
    case .any:
      return true
    case .text(let text):
      return message.text == text
    case .pattern(_, let regex):
      guard let regex = regex?.value, let text = message.text else { return false }
      return regex.search(text) == .found
    case .json(let subset):
      guard let text = message.text, let value = try? JSONValue(parsing: Data(text.utf8)) else { return false }
      return value.contains(subset)
    case .binary(let data):
      return message.isBinary && message.data == data
    }
  }

  /// `any message`, `text "ping"`, `text matching /^ping/`, `JSON containing {...}`.
  public var description: String {
    switch kind {
    case .any: "any message"
    case .text(let text): "text \(text.debugDescription)"
    case .pattern(let pattern, _): "text matching /\(pattern)/"
    case .json(let json): "JSON containing \(json)"
    case .binary(let data): "binary, \(data.count) bytes"
    }
  }
}

/// What the server does when a client message matches: one rule of a ``WebSocketScript``.
public struct WebSocketReply: Sendable {
  /// The messages this rule answers.
  public let message: WebSocketMessageMatcher
  /// What the server does then, in order.
  public let actions: [WebSocketAction]

  /// When a message matches `message`, perform `actions` in order.
  public static func on(_ message: WebSocketMessageMatcher, do actions: [WebSocketAction]) -> WebSocketReply {
    WebSocketReply(message: message, actions: actions)
  }

  /// When a message matches `message`, send `reply` (after `delay` on the backend's clock).
  public static func on(
    _ message: WebSocketMessageMatcher, reply: WebSocketMessage, after delay: Duration = .zero
  ) -> WebSocketReply {
    WebSocketReply(message: message, actions: [.send(reply, after: delay)])
  }
}

/// A scripted WebSocket conversation, served by the stub server (`DoppelServer`) to a client that
/// upgrades a request matching the stub:
///
/// - on connect, the server performs ``onConnect`` (a greeting, say);
/// - for each message from the client, the first rule of ``replies`` whose matcher accepts it
///   performs its actions; a message no rule matches gets no answer;
/// - the server answers pings, and a close from the client with the same code.
///
/// Actions of a connection run one after the other, each after its delay on the backend's clock
/// (a `ManualClock` controls them in tests). Every message in and out is recorded in
/// `Backend.webSocketEvents`.
public struct WebSocketScript: Sendable {
  /// What the server does as soon as the connection is upgraded.
  public var onConnect: [WebSocketAction]
  /// The rules for client messages, tried in order.
  public var replies: [WebSocketReply]

  /// Creates a script.
  public init(onConnect: [WebSocketAction] = [], on replies: [WebSocketReply] = []) {
    self.onConnect = onConnect
    self.replies = replies
  }

  /// The actions for a message from the client: the first matching rule's, or none.
  public func actions(for message: WebSocketMessage) -> [WebSocketAction] {
    replies.first { $0.message.matches(message) }?.actions ?? []
  }
}

extension Response {
  /// A WebSocket endpoint: the stub server upgrades a matching request (`Upgrade: websocket`) and
  /// plays `script`; any other client (one that does not ask to upgrade, or the URLSession and
  /// in-memory doors) gets `426 Upgrade Required`, as from a real WebSocket endpoint.
  ///
  /// ```swift
  /// backend.stub(
  ///   .path("/chat"),
  ///   .webSocket(
  ///     onConnect: [.send(.text("welcome"))],
  ///     on: [
  ///       .on(.text("ping"), reply: .text("pong")),
  ///       .on(.json(containing: ["type": "bye"]), do: [.close(code: 1000, reason: "bye")]),
  ///     ]))
  /// ```
  ///
  /// The journal records the upgrade request like any other (its response has status 101 and
  /// ``webSocketScript``); the messages are in `Backend.webSocketEvents`.
  public static func webSocket(
    onConnect: [WebSocketAction] = [], on replies: [WebSocketReply] = [], headers: HTTPHeaders = [:]
  ) -> Response {
    webSocket(WebSocketScript(onConnect: onConnect, on: replies), headers: headers)
  }

  /// A WebSocket endpoint playing `script` (see ``webSocket(onConnect:on:headers:)``); `headers`
  /// are added to the `101 Switching Protocols` response.
  public static func webSocket(_ script: WebSocketScript, headers: HTTPHeaders = [:]) -> Response {
    var response = Response(status: 101, headers: headers)
    response.webSocket = script
    return response
  }

  /// The conversation of a ``webSocket(_:headers:)`` response; `nil` for an HTTP response.
  public var webSocketScript: WebSocketScript? { webSocket }

  /// What a client that does not upgrade gets from a WebSocket endpoint.
  static func upgradeRequired(for script: WebSocketScript) -> Response {
    .text(
      "This endpoint speaks WebSocket only: connect with a WebSocket client (Upgrade: websocket) through the stub server (DoppelServer), which plays the stub's script.",
      status: 426, headers: ["Upgrade": "websocket", "Connection": "Upgrade"])
  }
}
