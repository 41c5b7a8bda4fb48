import Foundation
import Testing

@testable import Doppel

/// What a manifest's event stream becomes in the engine, and what DoppelRemote sends of one: the
/// events and pacing as values, which no single request shows whole.
@Suite struct EventStreamReadingTests {
  @Test func theManifestDescribesAnEventStream() async throws {
    let clock = ManualClock()
    let backend = try Backend(
      manifest: manifest(
        """
        {"stubs": [
          {"request": "/live", "response": {
            "events": [
              {"id": "1", "event": "breed", "data": "Abyssinian"},
              {"comment": "keep-alive"},
              {"id": "2", "data": {"name": "Bengal"}, "retry": "2s"}
            ],
            "every": 0.1, "thenDrop": true, "headers": {"X-Stream": "breeds"}}}
        ]}
        """), scenario: .base, clock: clock)
    let response = try #require(
      backend.stubs.first.flatMap { stub -> Response? in
        if case .fixed(let response) = stub.responder.kind { return response }
        return nil
      })
    guard case .events(let events, let every)? = response.timing.pacing else {
      Issue.record("not an event stream: \(response.timing)")
      return
    }
    #expect(
      events == [
        ServerSentEvent(id: "1", event: "breed", data: "Abyssinian"), .comment("keep-alive"),
        ServerSentEvent(id: "2", data: #"{"name":"Bengal"}"#, retry: .seconds(2)),
      ])
    #expect(every == .milliseconds(100))
    #expect(response.timing.dropAtEnd)
    #expect(response.headers["X-Stream"] == "breeds")
    #expect(response.headers["Cache-Control"] == "no-cache")
  }

  @Test func eventStreamsTravelToAStubServer() throws {
    let response = Response.eventStream(
      [ServerSentEvent(id: "1", data: "a\nb", retry: .milliseconds(1500)), .comment("ping")],
      every: .milliseconds(250), thenDrop: true)
    let json = try response.manifestResponse()
    #expect(
      json
        == [
          "status": 200, "headers": ["Cache-Control": "no-cache"],
          "events": [["id": "1", "data": "a\nb", "retry": 1.5], ["comment": "ping"]], "every": 0.25, "thenDrop": true,
        ])
    let stub: JSONValue = ["request": "/live", "response": json]
    let definition = try StubDefinition(
      parsing: try JSONEncoder().encode(stub), source: "request body", directory: URL(fileURLWithPath: "/tmp"))
    let backend = Backend(issueReporter: .ignore)
    guard case .fixed(let sent) = backend.register(definition).responder.kind else {
      Issue.record("not a fixed response")
      return
    }
    #expect(try sent.bodyData() == response.bodyData())
    #expect(sent.headers == response.headers)
    guard case .events(let events, let every)? = sent.timing.pacing,
      case .events(let original, _)? = response.timing.pacing
    else {
      Issue.record("not an event stream")
      return
    }
    #expect(events == original)
    #expect(every == .milliseconds(250))
    #expect(sent.timing.dropAtEnd)
  }
}
