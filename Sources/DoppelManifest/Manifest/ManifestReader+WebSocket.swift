import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A response's `websocket`: the scripted conversation of a WebSocket stub (see
/// ``Response/webSocket(_:headers:)``).
///
/// ```json
/// "websocket": {
///   "onConnect": [{"send": "welcome"}],
///   "on": [
///     {"message": "ping", "reply": "pong"},
///     {"regex": "^echo ", "reply": [{"send": "echoed", "delay": "100ms"}]},
///     {"json": {"type": "bye"}, "reply": [{"close": {"code": 1000, "reason": "bye"}}]},
///     {"message": "crash", "reply": [{"drop": true}]}
///   ]
/// }
/// ```
extension ManifestReader {
  func webSocket(_ node: PositionedJSON, _ path: ManifestKeyPath, headers: HTTPHeaders) throws(ManifestProblem)
    -> Response
  {
    let fields = try object(
      node, path, known: ManifestKeys.webSocket, what: "a WebSocket script ({\"onConnect\": […], \"on\": […]})")
    var onConnect: [WebSocketAction] = []
    if let node = fields["onConnect"] { onConnect = try webSocketActions(node, path + "onConnect") }
    var rules: [WebSocketReply] = []
    if let on = fields["on"] {
      for (index, item) in try array(on, path + "on", of: "rules ({\"message\": \"ping\", \"reply\": \"pong\"})")
        .enumerated()
      {
        rules.append(try webSocketRule(item, path + "on" + index))
      }
    }
    return .webSocket(WebSocketScript(onConnect: onConnect, on: rules), headers: headers)
  }

  private func webSocketRule(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem)
    -> WebSocketReply
  {
    let fields = try object(
      node, path, known: ManifestKeys.webSocketRule, what: "a rule ({\"message\": \"ping\", \"reply\": \"pong\"})")
    try requireAtMostOne(
      ["message", "regex", "json"], in: fields, "a rule matches messages one way; keep one (or none for any message).")
    guard let reply = fields["reply"] else {
      throw error(
        node, path,
        "a rule needs \"reply\": a text to send, an action, or an array of actions, for example \"reply\": \"pong\".")
    }
    let matcher: WebSocketMessageMatcher
    if let node = fields["message"] {
      matcher = .text(try string(node, path + "message", what: "the text of a message"))
    } else if let node = fields["regex"] {
      let pattern = try nonEmptyString(node, path + "regex", what: "a regular expression")
      matcher = .regex(pattern)
      if let problem = matcher.problem { throw error(node, path + "regex", problem) }
    } else if let node = fields["json"] {
      matcher = .json(containing: node.jsonValue)
    } else {
      matcher = .any
    }
    return .on(matcher, do: try webSocketActions(reply, path + "reply"))
  }

  /// A text to send, one action, or an array of actions.
  private func webSocketActions(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem)
    -> [WebSocketAction]
  {
    switch node.value {
    case .string(let text):
      return [.send(.text(text))]
    case .object:
      return [try webSocketAction(node, path)]
    case .array(let items):
      var actions: [WebSocketAction] = []
      for (index, item) in items.enumerated() { actions.append(try webSocketAction(item, path + index)) }
      return actions
    default:
      throw error(
        node, path,
        "expected a text to send, an action ({\"send\": \"hello\"}) or an array of actions, found \(node.kind).")
    }
  }

  private func webSocketAction(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem)
    -> WebSocketAction
  {
    let what = "a WebSocket action ({\"send\": \"hello\"}, {\"close\": {\"code\": 1000}}, {\"drop\": true})"
    let fields = try object(node, path, known: ManifestKeys.webSocketAction, what: what)
    let kinds = ["send", "json", "binary", "close", "drop"]
    try requireAtMostOne(kinds, in: fields, "an action does one thing; split it into two actions.")
    var delay = Duration.zero
    if let node = fields["delay"] { delay = try duration(node, path + "delay") }
    if let node = fields["send"] {
      return .send(.text(try string(node, path + "send", what: "the text to send")), after: delay)
    }
    if let node = fields["json"] {
      return .send(.json(node.jsonValue), after: delay)
    }
    if let node = fields["binary"] {
      let text = try string(node, path + "binary", what: "the bytes to send, in base64")
      guard let data = Data(base64Encoded: text) else {
        throw error(
          node, path + "binary",
          "\"binary\" holds the bytes in base64, and this is not base64. Encode them with base64 (for example `base64 file.bin`)."
        )
      }
      return .send(.binary(data), after: delay)
    }
    if let node = fields["close"] {
      let (code, reason) = try webSocketClose(node, path + "close")
      return .close(code: code, reason: reason, after: delay)
    }
    if let node = fields["drop"] {
      guard try bool(node, path + "drop") else {
        throw error(node, path + "drop", "\"drop\": false does nothing. Remove the action.")
      }
      return .drop(after: delay)
    }
    throw error(
      node, path, "an action needs one of \(kinds.joined(separator: ", ")), for example {\"send\": \"hello\"}.")
  }

  /// `true` (code 1000), or `{"code": 4000, "reason": "bye"}`.
  private func webSocketClose(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem)
    -> (UInt16, String)
  {
    if case .bool(true) = node.value { return (1000, "") }
    let fields = try object(
      node, path, known: ManifestKeys.webSocketClose, what: "a close ({\"code\": 1000, \"reason\": \"bye\"} or true)")
    var code = 1000
    if let node = fields["code"] {
      code = try integer(node, path + "code", in: 1000...4999, what: "a WebSocket close code from 1000 to 4999")
      if [1004, 1005, 1006, 1015].contains(code) {
        throw error(
          node, path + "code",
          "\(code) is reserved: it is never sent in a close frame. Use 1000 (normal), 1001 (going away), 1008 (policy), 1011 (server error) or 3000–4999; to end without a close frame, use {\"drop\": true}."
        )
      }
    }
    var reason = ""
    if let node = fields["reason"] {
      reason = try string(node, path + "reason", what: "the reason, a text")
      guard reason.utf8.count <= 123 else {
        throw error(
          node, path + "reason",
          "the reason is \(reason.utf8.count) bytes; a close frame carries at most 123. Shorten it.")
      }
    }
    return (UInt16(code), reason)
  }
}
