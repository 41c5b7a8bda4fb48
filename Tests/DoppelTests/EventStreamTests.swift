import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import TestSupport
import Testing

/// `.eventStream(_:every:)`: the `text/event-stream` format, pacing on the backend's clock through
/// the URLSession door (a delegate sees each event as it arrives) and the in-memory door, a dropped
/// stream and a reconnect with `Last-Event-ID`, the manifest's `events` and the wire.
@Suite(.timeLimit(.minutes(1))) struct EventStreamTests {
  private let breeds: [ServerSentEvent] = [
    ServerSentEvent(id: "1", event: "breed", data: "Abyssinian"),
    ServerSentEvent(id: "2", event: "breed", data: "Bengal"),
    ServerSentEvent(id: "3", event: "breed", data: "Chartreux"),
    ServerSentEvent(id: "4", event: "breed", data: "Devon Rex"),
  ]

  @Test func eventsAreWrittenInTheEventStreamFormat() {
    #expect(ServerSentEvent(id: "7", event: "breed", data: "Bengal").text == "id: 7\nevent: breed\ndata: Bengal\n\n")
    #expect(
      ServerSentEvent.data("line 1\nline 2\r\nline 3\r").text == "data: line 1\ndata: line 2\ndata: line 3\ndata:\n\n")
    #expect(ServerSentEvent.comment("keep-alive").text == ": keep-alive\n\n")
    #expect(ServerSentEvent(retry: .milliseconds(2500)).text == "retry: 2500\n\n")
    #expect(ServerSentEvent(retry: .seconds(-1)).text == "retry: 0\n\n")
    #expect(ServerSentEvent(retry: .seconds(Int64.max)).text == "retry: \(Int64.max)\n\n")
    #expect(ServerSentEvent(id: "a\nb", event: "x\ry", data: "").text == "id: a b\nevent: x y\ndata:\n\n")
    #expect(
      ServerSentEvent(id: "1", event: "e", data: "d", retry: .seconds(3), comment: "c\nd").text
        == ": c\n: d\nid: 1\nevent: e\nretry: 3000\ndata: d\n\n")
  }

  @Test func theResponseIsAnEventStreamWithoutALength() async throws {
    let backend = quietBackend()
    backend.stub(.get("/live"), .eventStream(breeds, every: .zero))
    let (data, response) = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/live")!))
    #expect(response.statusCode == 200)
    #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
    #expect(response.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
    #expect(response.value(forHTTPHeaderField: "Content-Length") == nil)
    #expect(String(decoding: data, as: UTF8.self) == breeds.map(\.text).joined())
  }

  @Test func aDelegateSeesEachEventAsItArrivesOnTheBackendsClock() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/live"), .eventStream(breeds, every: .milliseconds(100)))
    let delegate = EventDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    session.dataTask(with: URL(string: "https://a.com/live")!).resume()
    await delegate.waitForResponse()
    await clock.waitForSleepers()
    #expect(delegate.events.isEmpty)
    for arrived in 1...breeds.count {
      clock.advance(by: .milliseconds(100))
      await delegate.waitForEvents(arrived)
      // The next event needs another interval: exactly `arrived` events are here.
      #expect(delegate.events == breeds.prefix(arrived).map(\.text))
      if arrived < breeds.count { await clock.waitForSleepers() }
    }
    #expect(await delegate.completion() == nil)
    #expect(delegate.events == breeds.map(\.text))
  }

  @Test func theInMemoryDoorAnswersOnceTheStreamHasEnded() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/live"), .eventStream(breeds, every: .seconds(1)))
    let answer = Task { try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/live")!)) }
    for _ in breeds {
      await clock.waitForSleepers()
      clock.advance(by: .seconds(1))
    }
    let (data, response) = try await answer.value
    #expect(clock.now.offset == .seconds(4))
    #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
    #expect(String(decoding: data, as: UTF8.self) == breeds.map(\.text).joined())
  }

  @Test func aDroppedStreamAndAReconnectWithLastEventID() async throws {
    let backend = quietBackend()
    backend.stub(.get("/live"), .eventStream(Array(breeds.prefix(2)), every: .zero, thenDrop: true))
    backend.stub(.get("/live") && .header("Last-Event-ID", "2"), .eventStream(Array(breeds.dropFirst(2)), every: .zero))

    // The first connection: two events, then the connection is lost.
    let first = EventDelegate()
    let session = backend.makeSession(delegate: first)
    defer { session.finishTasksAndInvalidate() }
    session.dataTask(with: URL(string: "https://a.com/live")!).resume()
    let error = await first.completion()
    #expect((error as? URLError)?.code == .networkConnectionLost)
    #expect(first.events == breeds.prefix(2).map(\.text))

    // The reconnect sends the last id it saw and gets the rest.
    let second = EventDelegate()
    let resumed = backend.makeSession(delegate: second)
    defer { resumed.finishTasksAndInvalidate() }
    var reconnect = URLRequest(url: URL(string: "https://a.com/live")!)
    reconnect.setValue("2", forHTTPHeaderField: "Last-Event-ID")
    resumed.dataTask(with: reconnect).resume()
    #expect(await second.completion() == nil)
    #expect(second.events == breeds.dropFirst(2).map(\.text))

    // The in-memory door fails the dropped stream the same way.
    await expectURLError(.networkConnectionLost) {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/live")!))
    }
  }

  // MARK: Manifest and wire

  @Test(
    arguments: Example.list([
      (
        #"{"stubs": [{"request": "/a", "response": {"events": [{"data": "x"}], "text": "y"}}]}"#,
        #"1:70: stubs[0].response: "text" cannot be used with "events": the events are the body. Remove one."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"events": [], "chunked": {"size": 1, "every": 1}}}]}"#,
        #"1:57: stubs[0].response: "chunked" cannot be used with "events": "every" paces the events. Remove one."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"text": "y", "every": 0.1}}]}"#,
        #"1:56: stubs[0].response: "every" belongs to an event stream, but this response has no "events". Add "events": [{"data": "…"}], or remove "every"."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"events": [{"date": "x"}]}}]}"#,
        #"1:55: stubs[0].response.events[0]: unknown key "date". Did you mean "data"? The keys of a server-sent event ({"id": "1", "data": "…"}) are: id, event, data, retry, comment."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"events": [{}]}}]}"#,
        #"1:54: stubs[0].response.events[0]: an event needs at least one of id, event, data, retry, comment, for example {"data": "hello"}."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"events": [{"id": "1\n2"}]}}]}"#,
        #"1:61: stubs[0].response.events[0].id: an event's id is one line; remove the line break."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"events": {"data": "x"}}}]}"#,
        #"1:53: stubs[0].response.events: expected an array of server-sent events, found an object."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"events": [{"data": "x"}], "every": -1}}]}"#,
        #"1:79: stubs[0].response.every: a duration cannot be negative, found -1 seconds. Write 0 or more seconds."#
      ),
      (
        #"{"stubs": [{"request": "/a", "response": {"events": [{"data": "x"}], "thenDrop": "yes"}}]}"#,
        #"1:82: stubs[0].response.thenDrop: expected true or false, found the string "yes"."#
      ),
    ]))
  func badEventStreamsInTheManifestAreErrors(example: Example<String, String>) {
    let (json, message) = (example.input, example.expected)
    #expect(manifestError(json) == "\(manifestURL.relativePath):\(message)")
  }
}

/// A session delegate that keeps each piece of body it receives (one per event) and lets a test
/// wait for the response, for a number of pieces, or for the end.
final class EventDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // Safe: all mutable state is inside `Locked`.
  private struct State {
    var events: [String] = []
    var responded = false
    var done = false
    var error: (any Error)?
    var waiters: [(ready: (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
  }
  private let state = Locked(State())

  var events: [String] { state.withLock { $0.events } }

  func waitForResponse() async { await wait { $0.responded || $0.done } }

  func waitForEvents(_ count: Int) async { await wait { $0.events.count >= count || $0.done } }

  /// Waits for the task to complete; returns its error.
  func completion() async -> (any Error)? {
    await wait { $0.done }
    return state.withLock { $0.error }
  }

  private func wait(until ready: @escaping (State) -> Bool) async {
    await withCheckedContinuation { continuation in
      let now = state.withLock { state -> Bool in
        if ready(state) { return true }
        state.waiters.append((ready, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }

  private func update(_ change: (inout State) -> Void) {
    let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      change(&state)
      let snapshot = state
      let (due, waiting) = (state.waiters.filter { $0.ready(snapshot) }, state.waiters.filter { !$0.ready(snapshot) })
      state.waiters = waiting
      return due.map(\.continuation)
    }
    for continuation in ready { continuation.resume() }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    update { $0.responded = true }
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    update { $0.events.append(String(decoding: data, as: UTF8.self)) }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    update { state in
      state.done = true
      state.error = error
    }
  }
}
