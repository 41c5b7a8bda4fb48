@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// One event of a server-sent event stream (`text/event-stream`), as
/// ``Response/eventStream(_:every:status:headers:thenDrop:)`` sends it.
///
/// ```swift
/// ServerSentEvent(id: "1", event: "breed", data: #"{"name": "Abyssinian"}"#)
/// ServerSentEvent(retry: .seconds(5))
/// ServerSentEvent.comment("keep-alive")
/// ```
///
/// Each field is written as a line (`id: 1`, `event: breed`, `retry: 5000`), a comment as lines
/// starting with `:`, and `data` as one `data:` line per line of text, then a blank line ends the
/// event.
public struct ServerSentEvent: Sendable, Hashable {
  /// The event's `id`, which a client sends back as `Last-Event-ID` when it reconnects.
  public var id: String?
  /// The event's type (`event:`); clients treat an event without one as `message`.
  public var event: String?
  /// The data; text with several lines is sent as several `data:` lines.
  public var data: String?
  /// How long a client waits before reconnecting (`retry:`, sent in whole milliseconds).
  public var retry: Duration?
  /// A comment (`: …` lines), which clients ignore: servers send them to keep a connection alive.
  public var comment: String?

  /// Creates an event from its fields; any of them may be left out.
  public init(
    id: String? = nil, event: String? = nil, data: String? = nil, retry: Duration? = nil, comment: String? = nil
  ) {
    self.id = id
    self.event = event
    self.data = data
    self.retry = retry
    self.comment = comment
  }

  /// An event that only carries `data`.
  public static func data(_ data: String, id: String? = nil, event: String? = nil) -> ServerSentEvent {
    ServerSentEvent(id: id, event: event, data: data)
  }

  /// A comment alone, such as the keep-alive lines servers send.
  public static func comment(_ text: String) -> ServerSentEvent {
    ServerSentEvent(comment: text)
  }

  /// The event as it goes on the wire, ending with the blank line that dispatches it. A line
  /// break inside `id` or `event`, which the format cannot carry, becomes a space.
  public var text: String {
    var lines: [String] = []
    if let comment { lines += Self.lines(comment).map { $0.isEmpty ? ":" : ": " + $0 } }
    if let id { lines.append("id: " + Self.oneLine(id)) }
    if let event { lines.append("event: " + Self.oneLine(event)) }
    if let retry { lines.append("retry: \(Self.milliseconds(retry))") }
    if let data { lines += Self.lines(data).map { $0.isEmpty ? "data:" : "data: " + $0 } }
    return lines.map { $0 + "\n" }.joined() + "\n"
  }

  /// `text` split at `\r\n`, `\r` and `\n`, as an event stream's parser splits it.
  static func lines(_ text: String) -> [String] {
    text.replacingOccurrences(of: "\r\n", with: "\n").split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }
    ).map(String.init)
  }

  private static func oneLine(_ text: String) -> String {
    String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
  }

  /// Whole milliseconds, 0 or more, without trapping on any duration.
  static func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
    if overflow { return .max }
    let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
    return overflowAgain ? .max : max(0, total)
  }
}
