@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Response {
  /// A server-sent event stream (`text/event-stream`): the head at once, then one event every
  /// `interval` on the backend's clock (the first after one interval), then the end of the
  /// response, or, with `thenDrop`, a lost connection.
  ///
  /// The response has `Content-Type: text/event-stream`, `Cache-Control: no-cache` and no
  /// `Content-Length`: the stub server sends it with chunked transfer encoding. A session delegate
  /// receives each event as it arrives (`urlSession(_:dataTask:didReceive:)`); completion-handler,
  /// `async` and in-memory callers receive the whole stream once it has ended.
  ///
  /// ```swift
  /// backend.stub(
  ///   .get("/breeds/live"),
  ///   .eventStream(
  ///     [ServerSentEvent(id: "1", event: "breed", data: "Abyssinian"), .data("Bengal", id: "2")],
  ///     every: .milliseconds(100)))
  /// ```
  ///
  /// - Parameters:
  ///   - events: the events, in order.
  ///   - interval: the time before each event.
  ///   - status: the status, 200 unless given.
  ///   - headers: more header fields; a `Cache-Control` or `Content-Type` given here replaces
  ///     the default.
  ///   - thenDrop: end with a dropped connection after the last event (the caller gets
  ///     `URLError(.networkConnectionLost)`, the stub server closes the connection without ending
  ///     the chunked body), as when a server goes away; a client then reconnects with
  ///     `Last-Event-ID`, which a stub can match with ``Matcher/header(_:_:)``.
  public static func eventStream(
    _ events: [ServerSentEvent], every interval: Duration, status: Int = 200, headers: HTTPHeaders = [:],
    thenDrop: Bool = false
  ) -> Response {
    var fields = headers
    if !fields.contains("Cache-Control") { fields.add("Cache-Control", "no-cache") }
    var response = Response(
      status: status, headers: fields,
      body: Body(source: .data(Data(events.map(\.text).joined().utf8)), contentType: "text/event-stream"))
    response.timing.pacing = .events(events, every: max(.zero, interval))
    response.timing.dropAtEnd = thenDrop
    return response
  }

  /// Whether this response is an event stream (sent without `Content-Length`).
  package var isEventStream: Bool {
    if case .events? = timing.pacing { return true }
    return false
  }
}
