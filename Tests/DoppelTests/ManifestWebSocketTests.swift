import Doppel
import Foundation
import TestSupport
import Testing

/// A manifest's `websocket` responses: the script as written, and every mistake at its position.
@Suite struct ManifestWebSocketTests {
  static let chat = chatScriptManifest

  @Test(
    arguments: Example.list([
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"onConect": []}}}]}"#,
        #"1:58: stubs[0].response.websocket: unknown key "onConect". Did you mean "onConnect"? The keys of a WebSocket script ({"onConnect": […], "on": […]}) are: onConnect, on."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"status": 200, "websocket": {}}}]}"#,
        #"1:44: stubs[0].response: "status" cannot be used with "websocket": a WebSocket endpoint answers with its script, not with an HTTP status, body or timing. Remove one."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"on": [{"message": "a"}]}}}]}"#,
        #"1:65: stubs[0].response.websocket.on[0]: a rule needs "reply": a text to send, an action, or an array of actions, for example "reply": "pong"."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"on": [{"message": "a", "regex": "b", "reply": "c"}]}}}]}"#,
        #"1:82: stubs[0].response.websocket.on[0]: "message" and "regex" cannot be used together: a rule matches messages one way; keep one (or none for any message)."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"onConnect": [{"send": "a", "drop": true}]}}}]}"#,
        #"1:86: stubs[0].response.websocket.onConnect[0]: "send" and "drop" cannot be used together: an action does one thing; split it into two actions."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"onConnect": [{"delay": 1}]}}}]}"#,
        #"1:72: stubs[0].response.websocket.onConnect[0]: an action needs one of send, json, binary, close, drop, for example {"send": "hello"}."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"onConnect": {"close": {"code": 1006}}}}}]}"#,
        #"1:90: stubs[0].response.websocket.onConnect.close.code: 1006 is reserved: it is never sent in a close frame. Use 1000 (normal), 1001 (going away), 1008 (policy), 1011 (server error) or 3000–4999; to end without a close frame, use {"drop": true}."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"onConnect": {"close": {"code": 99999}}}}}]}"#,
        #"1:90: stubs[0].response.websocket.onConnect.close.code: expected a WebSocket close code from 1000 to 4999, found the number 99999, which is too large."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"onConnect": {"binary": "not base64!"}}}}]}"#,
        #"1:82: stubs[0].response.websocket.onConnect.binary: "binary" holds the bytes in base64, and this is not base64. Encode them with base64 (for example `base64 file.bin`)."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"on": [{"regex": "(", "reply": "x"}]}}}]}"#,
        #"1:75: stubs[0].response.websocket.on[0].regex: The regular expression "(" does not compile. Check its syntax (ICU, as NSRegularExpression)."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"onConnect": 7}}}]}"#,
        #"1:71: stubs[0].response.websocket.onConnect: expected a text to send, an action ({"send": "hello"}) or an array of actions, found the number 7."#
      ),
      (
        #"{"stubs": [{"request": "/ws", "response": {"websocket": {"onConnect": {"drop": false}}}}]}"#,
        #"1:80: stubs[0].response.websocket.onConnect.drop: "drop": false does nothing. Remove the action."#
      ),
    ]))
  func reportsThePositionKeyPathAndFix(example: Example<String, String>) {
    let (json, expected) = (example.input, example.expected)
    #expect(manifestError(json) == "/project/Fixtures/doppel.json:\(expected)")
  }

  /// The script a manifest writes is the one a connection plays: read where a user reads it, off
  /// the journal entry of a request to the stub (a plain HTTP request to a WebSocket stub is
  /// refused with 426, and journaled with the script its upgrade would have played).
  @Test func theScriptIsPlayedAsWritten() async throws {
    let backend = try Backend(manifest: manifest(Self.chat), issueReporter: .ignore)
    let (_, refused) = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/chat")!))
    #expect(refused.statusCode == 426)
    let response = try #require(backend.journal.first?.response)
    let script = try #require(response.webSocketScript)
    #expect(response.status == 101)
    #expect(response.headers["Sec-WebSocket-Protocol"] == "chat")
    #expect(
      script.onConnect.map(\.description) == [
        #"send text "welcome""#, #"send text "{\"type\":\"hello\"}" after 0.25 seconds"#,
      ])
    #expect(script.actions(for: .text("ping")).map(\.description) == [#"send text "pong""#])
    #expect(script.actions(for: .text("echo me")).map(\.description) == ["send binary, 3 bytes"])
    #expect(
      script.actions(for: .text(#"{"type": "bye", "at": 3}"#)).map(\.description) == [#"close 4000 "bye""#])
    #expect(script.actions(for: .text("quit")).map(\.description) == ["close 1000"])
    #expect(script.actions(for: .binary(Data([9]))).map(\.description) == ["drop the connection after 1.0 seconds"])
  }

  @Test func aWebSocketResponseIsNotSentThroughDoppelRemote() {
    #expect {
      try Response.webSocket(onConnect: [.send(.text("hi"))]).manifestResponse()
    } throws: { error in
      (error as? DoppelError)?.message
        == #"A WebSocket response cannot be sent to a stub server through DoppelRemote: write the stub in the server's manifest instead (a response with "websocket": {"onConnect": […], "on": […]})."#
    }
  }

}
