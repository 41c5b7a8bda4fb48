import Foundation

/// When and how a response is played back: latency, body pacing, faults, redirect following.
struct Timing: Sendable {
  enum Pacing: Sendable {
    case throttle(bytesPerSecond: Int)
    case chunks(size: Int, every: Duration)
    /// A server-sent event stream: one piece per event, each after `every`.
    case events([ServerSentEvent], every: Duration)
  }

  /// Latency before the response head (or before the failure).
  var delay: Duration = .zero
  var pacing: Pacing?
  /// Deliver this many body bytes, then fail as a lost connection.
  var dropAfterBytes: Int?
  /// Deliver the whole body, then fail as a lost connection (an event stream's `thenDrop`).
  var dropAtEnd = false
  /// Never answer (until the request times out or is cancelled).
  var never = false
  /// `false` turns redirect following off for this response.
  var followRedirects = true

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
