import Foundation
import Testing

@testable import Doppel

/// What the manifest reader makes of timing keys and WebSocket scripts, read from the stub it
/// registers: the shape the engine receives, which no single request shows whole.
@Suite struct ManifestReadingTests {
  @Test func timingKeysMapToTheEngine() async throws {
    let clock = ManualClock()
    let backend = try Backend(
      manifest: manifest(
        """
        {"stubs": [
          {"request": "/slow", "response": {"text": "late", "delay": "250ms"}},
          {"request": "/slow-error", "response": {"error": "timedOut", "delay": 1.5}},
          {"request": "/paced", "response": {"text": "abcdef", "throttle": 100}},
          {"request": "/chunks", "response": {"text": "abcdef", "chunked": {"size": 2, "every": "50ms"}}},
          {"request": "/cut", "response": {"text": "abcdef", "dropAfterBytes": 3}},
          {"request": "/never", "response": {"never": true}}
        ]}
        """), scenario: .base, clock: clock)
    let timings = backend.stubs.map { stub -> String in
      guard case .fixed(let response) = stub.responder.kind else { return "?" }
      let timing = response.timing
      var parts = ["delay \(timing.delay)"]
      switch timing.pacing {
      case .throttle(let rate)?: parts.append("throttle \(rate)")
      case .chunks(let size, let every)?: parts.append("chunks \(size) every \(every)")
      case .events(let events, let every)?: parts.append("\(events.count) events every \(every)")
      case nil: break
      }
      if let bytes = timing.dropAfterBytes { parts.append("drop after \(bytes)") }
      if timing.never { parts.append("never") }
      return parts.joined(separator: ", ")
    }
    #expect(
      timings == [
        "delay 0.25 seconds", "delay 1.5 seconds", "delay 0.0 seconds, throttle 100",
        "delay 0.0 seconds, chunks 2 every 0.05 seconds", "delay 0.0 seconds, drop after 3", "delay 0.0 seconds, never",
      ])
    let error = await #expect(throws: URLError.self) { try await backend.answer("https://x.com/cut") }
    #expect(error?.code == .networkConnectionLost)
  }

  @Test func readsTheScriptAsWritten() throws {
    let backend = try Backend(manifest: manifest(ManifestWebSocketTests.chat), issueReporter: .ignore)
    let response = try #require(stubResponse(backend))
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

  private func stubResponse(_ backend: Backend) -> Response? {
    guard case .fixed(let response)? = backend.stubs.first?.responder.kind else { return nil }
    return response
  }
}
