@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A resolved answer and how to play it back in time. A class, so the front doors pass it along
/// as one reference.
final class Playback: Sendable {
  let delivery: Delivery
  let timing: Timing
  /// The stub that answered, for front doors that log it (the server); `nil` when none matched.
  let stub: StubHandle?
  /// For a request no stub matched: the near-miss report.
  let unmatchedReport: String?
  /// The response of a WebSocket stub: played by the stub server to a client that upgrades, and
  /// answered with ``delivery`` (a 426) to any other.
  let webSocket: Response?

  init(
    delivery: Delivery, timing: Timing, stub: StubHandle? = nil, unmatchedReport: String? = nil,
    webSocket: Response? = nil
  ) {
    self.delivery = delivery
    self.timing = timing
    self.stub = stub
    self.unmatchedReport = unmatchedReport
    self.webSocket = webSocket
  }

  /// The same playback, starting `latency` later.
  func delayed(by latency: Duration) -> Playback {
    var timing = timing
    timing.delay += latency
    return Playback(
      delivery: delivery, timing: timing, stub: stub, unmatchedReport: unmatchedReport, webSocket: webSocket)
  }

  /// One thing a front door does with its caller.
  enum Step: Sendable {
    case head(Delivery.Answer)
    case data(Data)
    case finish
    case fail(any Error)

    /// Whether the response ends with this step.
    var ends: Bool {
      switch self {
      case .finish, .fail: return true
      case .head, .data: return false
      }
    }
  }

  /// Steps to perform after waiting `wait`.
  struct Beat: Sendable {
    var wait: Duration
    var steps: [Step]
  }

  /// The beats of the playback. With `streaming`, each body piece is its own step; without it, the
  /// body is delivered whole with the last piece (URLSession on Linux hands completion-handler and
  /// `async` callers only the last piece it was given).
  func beats(streaming: Bool) -> [Beat] {
    if timing.never { return [] }
    guard case .success(let answer) = delivery else {
      guard case .failure(let error) = delivery else { return [] }
      return [Beat(wait: timing.delay, steps: [.fail(error)])]
    }
    var body = answer.body
    var failure: (any Error)?
    if let limit = timing.dropAfterBytes, limit < body.count {
      body = body.prefix(limit)
      failure = URLError.described(.networkConnectionLost, "The network connection was lost.", url: answer.url)
    } else if timing.dropAtEnd {
      failure = URLError.described(.networkConnectionLost, "The network connection was lost.", url: answer.url)
    }
    let pieces = Self.pieces(of: body, pacing: timing.pacing)
    let end: Step = failure.map { .fail($0) } ?? .finish
    var beats = [Beat(wait: timing.delay, steps: [.head(answer)])]
    // Chunked and throttled bodies start with the head; an event stream's first event comes after
    // its interval.
    let firstWithHead = !timing.pacing.isEvents
    if streaming {
      for (index, piece) in pieces.enumerated() {
        let step = Step.data(piece.data)
        if index == 0 && firstWithHead {
          beats[0].steps.append(step)
        } else {
          beats.append(Beat(wait: piece.wait, steps: [step]))
        }
      }
      beats[beats.count - 1].steps.append(end)
    } else {
      for piece in pieces.dropFirst(firstWithHead ? 1 : 0) { beats.append(Beat(wait: piece.wait, steps: [])) }
      if !body.isEmpty { beats[beats.count - 1].steps.append(.data(body)) }
      beats[beats.count - 1].steps.append(end)
    }
    return beats
  }

  /// Every step at once, for a playback with no timing (`timing.isImmediate`): what `beats` would
  /// give, without building the beats.
  var immediateSteps: [Step] {
    switch delivery {
    case .success(let answer):
      return answer.body.isEmpty ? [.head(answer), .finish] : [.head(answer), .data(answer.body), .finish]
    case .failure(let error):
      return [.fail(error)]
    }
  }

  /// How long a playback may wait.
  struct Timeouts: Sendable {
    /// The longest wait for the head or between body pieces.
    var idle: Duration
    /// The longest the whole request may take.
    var total: Duration
  }

  /// Plays the beats on `clock`: waits each beat's time, then hands its steps to `deliver`. A wait
  /// longer than `timeouts` allow (and a response that never comes) ends with a `.fail` step of
  /// `URLError(.timedOut)` once the allowed time has passed. Returns `false` when the task was
  /// cancelled first; every front door that plays back in time uses this one loop.
  func play(
    streaming: Bool, clock: ClockBox, timeouts: Timeouts, url: URL?,
    deliver: ([Step]) async throws -> Void
  ) async rethrows -> Bool {
    var elapsed = Duration.zero
    func timedOut(after limit: Duration) async throws -> Bool {
      guard await clock.sleep(for: limit) else { return false }
      try await deliver([.fail(URLError.described(.timedOut, "The request timed out.", url: url))])
      return true
    }
    for beat in beats(streaming: streaming) {
      if beat.wait > .zero {
        let allowed = min(timeouts.idle, timeouts.total - elapsed)
        if beat.wait > allowed { return try await timedOut(after: allowed) }
        guard await clock.sleep(for: beat.wait) else { return false }
        elapsed += beat.wait
      }
      try await deliver(beat.steps)
    }
    if timing.never { return try await timedOut(after: min(timeouts.idle, timeouts.total - elapsed)) }
    return true
  }

  private static func pieces(of body: Data, pacing: Timing.Pacing?) -> [(wait: Duration, data: Data)] {
    guard !body.isEmpty else { return [] }
    let size: Int
    let interval: Duration
    switch pacing {
    case nil:
      return [(.zero, body)]
    case .chunks(let chunk, let every):
      size = chunk
      interval = every
    case .throttle(let rate):
      size = max(1, rate / 20)
      interval = .nanoseconds(Int64((Double(size) / Double(rate)) * 1e9))
    case .events(let events, let every):
      // One piece per event, each after `every`; a body cut short ends with the event it cuts.
      var result: [(Duration, Data)] = []
      var start = body.startIndex
      for event in events where start < body.endIndex {
        let length = event.text.utf8.count
        let end = body.index(start, offsetBy: length, limitedBy: body.endIndex) ?? body.endIndex
        result.append((every, Data(body[start..<end])))
        start = end
      }
      return result
    }
    var result: [(Duration, Data)] = []
    var start = body.startIndex
    while start < body.endIndex {
      let end = body.index(start, offsetBy: size, limitedBy: body.endIndex) ?? body.endIndex
      result.append((result.isEmpty && pacing.isChunks ? .zero : interval, Data(body[start..<end])))
      start = end
    }
    return result
  }
}

extension Optional where Wrapped == Timing.Pacing {
  fileprivate var isChunks: Bool {
    if case .chunks? = self { return true }
    return false
  }

  fileprivate var isEvents: Bool {
    if case .events? = self { return true }
    return false
  }
}
