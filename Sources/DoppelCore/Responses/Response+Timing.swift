@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// When and how a response is played back: latency, body pacing, faults, redirect following.
package struct Timing: Sendable {
  package enum Pacing: Sendable {
    case throttle(bytesPerSecond: Int)
    case chunks(size: Int, every: Duration)
    /// A server-sent event stream: one piece per event, each after `every`.
    case events([ServerSentEvent], every: Duration)
  }

  /// Latency before the response head (or before the failure).
  package var delay: Duration = .zero
  package var pacing: Pacing?
  /// Deliver this many body bytes, then fail as a lost connection.
  package var dropAfterBytes: Int?
  /// Deliver the whole body, then fail as a lost connection (an event stream's `thenDrop`).
  package var dropAtEnd = false
  /// Never answer (until the request times out or is cancelled).
  package var never = false
  /// `false` turns redirect following off for this response.
  package var followRedirects = true

  /// Whether the response can be delivered at once, in one piece.
  var isImmediate: Bool { delay <= .zero && pacing == nil && dropAfterBytes == nil && !dropAtEnd && !never }
}

extension Response {
  /// This response after `latency`: the time before the response head arrives (for a failure, the
  /// time before it fails). Time flows on the backend's clock.
  ///
  /// ```swift
  /// backend.stub(.get("/breeds"), .json(breeds).delayed(by: .milliseconds(300)))
  /// ```
  public func delayed(by latency: Duration) -> Response {
    var copy = self
    if copy.chance?.delay != nil { copy.chance?.delay = nil }
    copy.timing.delay = latency
    return copy
  }

  /// This response with its body paced at `bytesPerSecond`, in about 20 pieces a second.
  /// A session delegate receives the pieces as they come; completion-handler and `async` callers
  /// receive the whole body once it has arrived.
  public func throttled(bytesPerSecond: Int) -> Response {
    var copy = self
    copy.timing.pacing = .throttle(bytesPerSecond: max(1, bytesPerSecond))
    return copy
  }

  /// This response with its body sent in pieces of `size` bytes, one every `interval` (the first
  /// with the response head).
  public func chunked(size: Int, every interval: Duration) -> Response {
    var copy = self
    copy.timing.pacing = .chunks(size: max(1, size), every: interval)
    return copy
  }

  /// This response cut off after `bytes` bytes of its body: the caller receives the head and that
  /// much of the body, then the request fails with `URLError(.networkConnectionLost)`, as when a
  /// server's connection drops mid-response.
  public func droppingConnection(afterBytes bytes: Int) -> Response {
    var copy = self
    copy.timing.dropAfterBytes = max(0, bytes)
    return copy
  }

  /// A response that never comes: the request waits until it times out (the session's
  /// `timeoutIntervalForRequest`, or the request's own `timeoutInterval`, on the backend's clock)
  /// and fails with `URLError(.timedOut)`, or until it is cancelled.
  public static var never: Response {
    var response = Response(status: 200)
    response.timing.never = true
    return response
  }

  /// A redirect to `location` (absolute, or relative to the request's URL). URLSession callers see
  /// the final response, as the backend follows redirects the way URLSession does, unless
  /// following is turned off (``notFollowed()``, ``Backend/followsRedirects``).
  public static func redirect(to location: String, status: Int = 302, headers: HTTPHeaders = [:]) -> Response {
    var response = Response(status: status, headers: headers)
    response.headers.replace("Location", with: location)
    return response
  }

  /// This response delivered as is even when it is a redirect: the caller receives the 3xx.
  public func notFollowed() -> Response {
    var copy = self
    copy.timing.followRedirects = false
    return copy
  }
}

extension Response {
  /// How this response is played back, in words, for the stub server's dashboard: `at once`,
  /// `after 300 ms`, `after 300 ms, in pieces of 512 bytes every 100 ms`, `3 events, one every 1 s`.
  package var playbackDescription: String {
    var parts: [String] = []
    if timing.never { return "never answers (until the request times out)" }
    if timing.delay > .zero { parts.append("after \(Self.words(timing.delay))") }
    switch timing.pacing {
    case .throttle(let rate)?: parts.append("paced at \(rate) bytes/s")
    case .chunks(let size, let every)?: parts.append("in pieces of \(size) bytes every \(Self.words(every))")
    case .events(let events, let every)?:
      parts.append("\(events.count) event\(events.count == 1 ? "" : "s"), one every \(Self.words(every))")
    case nil: break
    }
    if let bytes = timing.dropAfterBytes { parts.append("connection dropped after \(bytes) body bytes") }
    if timing.dropAtEnd { parts.append("connection dropped after the body") }
    return parts.isEmpty ? "at once" : parts.joined(separator: ", ")
  }

  /// `300 ms`, `1.5 s`.
  private static func words(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
    if milliseconds >= 1000 { return "\((milliseconds / 10).rounded() / 100) s" }
    return "\(Int(milliseconds.rounded())) ms"
  }
}
