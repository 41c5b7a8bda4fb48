/// A manifest whose one stub, `/chat`, is a WebSocket script: a greeting at once and another
/// after 250 ms, a reply to `ping`, to `echo …` and to a `bye` object, a close for `quit`, and a
/// drop after a second for anything else. `ManifestWebSocketTests` reads it; the stub server's
/// `WebSocketTests` play it over a socket.
public let chatScriptManifest = """
  {
    "stubs": [
      {
        "request": "/chat",
        "response": {
          "headers": {"Sec-WebSocket-Protocol": "chat"},
          "websocket": {
            "onConnect": [{"send": "welcome"}, {"json": {"type": "hello"}, "delay": "250ms"}],
            "on": [
              {"message": "ping", "reply": "pong"},
              {"regex": "^echo ", "reply": {"binary": "AQID"}},
              {"json": {"type": "bye"}, "reply": [{"close": {"code": 4000, "reason": "bye"}}]},
              {"message": "quit", "reply": {"close": true}},
              {"reply": [{"drop": true, "delay": 1}]}
            ]
          }
        }
      }
    ]
  }
  """
