@_spi(DoppelInternals) import DoppelToolkit
import Foundation

// The engine as a front door in another module of this package sees it: the stub server
// (`DoppelServer`) turns what arrives into a `Request`, asks for a plan, and plays the beats back
// as NIO writes. `package`, not public: only this package's modules build front doors.

/// How to answer one request: timed steps, and what answered it.
package struct FrontDoorPlayback: Sendable {
  /// One thing to do with the connection.
  package enum Step: Sendable {
    /// Send the response head.
    case head(status: Int, headers: HTTPHeaders)
    /// Send body bytes.
    case body(Data)
    /// End the response.
    case end
    /// Fail instead of answering (before the head) or instead of finishing (after it).
    case fail(FrontDoorFailure)
  }

  /// Steps to perform after waiting `wait` on the backend's clock.
  package struct Beat: Sendable {
    package var wait: Duration
    package var steps: [Step]
  }

  /// The beats, in order; empty for a response that never comes.
  package var beats: [Beat] { Self.beats(of: playback) }
  /// The answer, when it is played whole and at once (no delay, pacing or cut): the same head and
  /// body each time it serves, so a front door may keep what it makes of them. Its steps are
  /// still the ``beats``.
  package let wholeAnswer: FrontDoorAnswer?
  private let playback: Playback
  /// Whether the response never comes (``Response/never``): the connection stays open and silent.
  package let never: Bool
  /// The stub that answered, or `nil` when none matched.
  package let stub: StubHandle?
  /// The near-miss report when no stub matched (whatever the unmatched policy did about it).
  package let unmatchedReport: String?
  /// For a WebSocket stub: the script and the headers of the `101` response. The ``beats`` answer
  /// a client that does not upgrade (`426 Upgrade Required`).
  package let webSocket: (script: WebSocketScript, headers: HTTPHeaders)?

  init(_ playback: Playback) {
    self.playback = playback
    if case .success(let answer) = playback.delivery, playback.timing.isImmediate, playback.webSocket == nil {
      wholeAnswer = FrontDoorAnswer(answer: answer)
    } else {
      wholeAnswer = nil
    }
    never = playback.timing.never
    stub = playback.stub
    unmatchedReport = playback.unmatchedReport
    webSocket = playback.webSocket.flatMap { response in response.webSocket.map { ($0, response.headers) } }
  }

  private static func beats(of playback: Playback) -> [Beat] {
    let report = playback.unmatchedReport
    let failedOutright: Bool
    if case .failure = playback.delivery { failedOutright = true } else { failedOutright = false }
    return playback.beats(streaming: true).map { beat in
      Beat(
        wait: beat.wait,
        steps: beat.steps.map { step in
          switch step {
          case .head(let answer): return .head(status: answer.status, headers: answer.headers)
          case .data(let data): return .body(data)
          case .finish: return .end
          case .fail(let error):
            return .fail(FrontDoorFailure(error, unmatchedReport: failedOutright ? report : nil))
          }
        })
    }
  }

  /// Whether every step can be performed at once, without waiting.
  var isImmediate: Bool { !never && beats.allSatisfy { $0.wait <= .zero } }
}

/// An answer a front door plays whole and at once: its status and headers (the head), then its
/// body, then the end.
package struct FrontDoorAnswer: Sendable {
  fileprivate let answer: Delivery.Answer

  /// The status.
  package var status: Int { answer.status }
  /// The header fields, `Content-Length` included.
  package var headers: HTTPHeaders { answer.headers }
  /// The body bytes; empty for a response to `HEAD`, and for a file sent from disk (``file``).
  package var body: Data { answer.body }
  /// A file body to send from disk as the client reads it, and its length (the head's
  /// `Content-Length`): a file larger than 1 MiB is never read whole. `nil` for a body in memory.
  package var file: (path: String, length: Int)? { answer.file.map { ($0.path, $0.length) } }

  /// What the front door made of this answer the first time it played it (`make`), or made before:
  /// an answer reused for many requests is turned into the front door's own types once. Each
  /// front door keeps one type of value, a class (the value is shared by every request the answer
  /// serves).
  package func prepared<Value: AnyObject & Sendable>(_ make: () -> Value) -> Value {
    answer.frontDoorValue(make)
  }
}

/// Shapes the answer to an unmatched request: the request, the near-miss report, the status the
/// front door would answer with; `nil` to leave it to the next (see
/// ``Backend/shapeUnmatchedAnswers(_:)``).
package typealias UnmatchedShaper = @Sendable (_ request: Request, _ report: String, _ status: Int) -> Response?

/// Why a front door with a real connection does not answer normally.
package enum FrontDoorFailure: Sendable {
  /// No stub matched and the unmatched policy is to fail: the near-miss report.
  case unmatched(report: String)
  /// `.fault(.connectionReset)`: reset the connection.
  case reset
  /// `.fault(.emptyResponse)`: close the connection before any byte.
  case emptyResponse
  /// `.fault(.malformedChunk)`: send these bytes (a chunked head and a malformed chunk), then close.
  case malformedChunk([UInt8])
  /// `.fault(.randomBytesThenClose)`: send these bytes (not HTTP), then close.
  case randomBytes([UInt8])
  /// `URLError(.networkConnectionLost)`, or the cut of ``Response/droppingConnection(afterBytes:)``:
  /// close the connection.
  case connectionLost
  /// `URLError(.timedOut)`: never answer, so that the client's own timeout fires.
  case timedOut
  /// A problem with a stub or its data (a fixture file that cannot be read, a value that does not
  /// encode), with the message that says how to fix it.
  case problem(String)
  /// Any other error a stub failed with.
  case error(any Error)

  init(_ error: any Error, unmatchedReport: String?) {
    if let unmatchedReport {
      self = .unmatched(report: unmatchedReport)
    } else if let fault = ConnectionFault(error) {
      switch fault {
      case .reset: self = .reset
      case .empty: self = .emptyResponse
      case .malformedChunk: self = .malformedChunk(ConnectionFault.malformedChunkBytes)
      case .randomBytes: self = .randomBytes(ConnectionFault.randomBytesSent)
      }
    } else if let error = error as? URLError, error.code == .networkConnectionLost {
      self = .connectionLost
    } else if let error = error as? URLError, error.code == .timedOut {
      self = .timedOut
    } else if let problem = error as? DoppelError {
      self = .problem(problem.message)
    } else {
      self = .error(error)
    }
  }
}

/// A front door's plan: the playback now, or after some work (a closure stub, a passthrough).
package enum FrontDoorPlan: Sendable {
  case now(FrontDoorPlayback)
  case later(@Sendable () async -> FrontDoorPlayback)
}

extension Backend {
  /// Resolves `request` for a front door whose client follows redirects and keeps cookies itself
  /// (the stub server): matches, journals, and returns the playback. An unmatched request that
  /// the unmatched policy fails is answered with `unmatchedStatus` when a shaper gives it a body
  /// (see ``shapeUnmatchedAnswers(_:)``); otherwise the playback fails with the near-miss report.
  package func frontDoorPlan(for request: Request, unmatchedStatus: Int? = nil) -> FrontDoorPlan {
    let context = Context(followRedirects: false, cookies: nil, streamsFiles: true, unmatchedStatus: unmatchedStatus)
    switch plan(for: request, context: context) {
    case .now(let playback): return .now(FrontDoorPlayback(playback))
    case .later(let work): return .later { FrontDoorPlayback(await work()) }
    }
  }

  /// Adds a shaper for the answers a front door gives to unmatched requests (the stub server's
  /// `404` with the near-miss report): given the request, the report and the status the front
  /// door would answer with, it returns the answer to give instead (an API description's error
  /// shape, say), or `nil` to leave the request to the next shaper and, after the last, to the
  /// plain report. The request is journaled and reported as unmatched either way.
  package func shapeUnmatchedAnswers(_ shaper: @escaping UnmatchedShaper) {
    locked.withLock { $0.unmatchedShapers.append(shaper) }
  }

  /// Whether `request` would be sent on to the network: a proxying stub would answer it, or no
  /// stub would and the unmatched policy passes it through. Only looks: no stub is claimed,
  /// nothing is journaled, the state stays as it is (the stub server asks before it lets a
  /// request whose `Host` is not loopback reach an upstream).
  package func wouldForward(_ request: Request) -> Bool {
    SearchBudget.measure { () -> Bool in
      let found =
        router.resolve(request, machine: machine, claiming: false)
        ?? (request.method == .head
          ? router.resolve(request.with(method: .get), machine: machine, claiming: false) : nil)
      if let found {
        if case .proxy = found.stub.responder.kind { return true }
        return false
      }
      if case .passthrough = unmatchedPolicy.kind { return true }
      return false
    }.result
  }

  /// The web origins the WebSocket stub that would answer `request` lets connect: the values of
  /// its `Access-Control-Allow-Origin` header, as a manifest lets a page read an HTTP stub's
  /// answer (`*` for any page); empty when no stub with a fixed WebSocket answer would answer.
  /// Found without claiming the stub or journaling anything, so that a refused upgrade leaves no
  /// trace in the stub's count.
  package func webSocketAllowedOrigins(for request: Request) -> [String] {
    SearchBudget.measure { () -> [String] in
      guard let found = router.resolve(request, machine: machine, claiming: false),
        case .fixed(let response) = found.stub.responder.kind, response.webSocketScript != nil
      else { return [] }
      return response.headers.values(for: "Access-Control-Allow-Origin").flatMap {
        $0.split(separator: " ").map(String.init)
      }
    }.result
  }

  /// Sleeps on the backend's clock; `false` when the task was cancelled.
  package func sleepOnClock(for duration: Duration) async -> Bool {
    await clockBox.sleep(for: duration)
  }

  /// Forgets every journaled request, like ``clearJournal()``, but frees the entries after
  /// letting go of the lock, so that a server answering thousands of requests a second does not
  /// stall while a long journal is freed.
  func discardJournal() {
    let discarded = locked.withLock { $0.journal.removeAll() }
    _ = discarded.count  // freed here, outside the lock
  }

  /// Changes whenever a stub is added or removed.
  package var stubRevision: Int { router.revision }

  /// The distinct origins (`https://api.example.com`, `http://localhost:8080`) that stubs with a
  /// literal host require, in registration order. A stub without a scheme gives `http`.
  package func stubOrigins() -> [URL] {
    var seen = Set<String>()
    var origins: [URL] = []
    for stub in router.stubs {
      var scheme: String?
      var host: String?
      var port: String?
      for part in stub.matcher.flattened {
        guard case .condition(let condition) = part.node else { continue }
        switch condition.part {
        case .scheme: scheme = condition.summary
        case .host: host = condition.summary
        case .port: port = condition.summary
        default: break
        }
      }
      guard let host, !host.isEmpty else { continue }
      let text = "\(scheme ?? "http")://\(host.contains(":") ? "[\(host)]" : host)" + (port.map { ":\($0)" } ?? "")
      guard seen.insert(text).inserted, let url = URL(string: text) else { continue }
      origins.append(url)
    }
    return origins
  }

  /// The valid stub closest to matching `request` (most fields passing, then fewest failing, then
  /// oldest), with the fields that differ: what a one-line log of an unmatched request shows.
  package func closestStub(to request: Request) -> (stub: StubHandle, differences: [String])? {
    SearchBudget.measure { closestStubWithinBudget(to: request) }.result
  }

  private func closestStubWithinBudget(to request: Request) -> (stub: StubHandle, differences: [String])? {
    var best: (stub: StubHandle, passed: Int, failed: Int, lines: [Matcher.CheckLine])?
    for stub in router.stubs where stub.matcherProblem == nil {
      let lines = stub.matcher.check(request)
      let passed = lines.filter(\.passed).count
      let failed = lines.count - passed
      if let current = best, passed < current.passed || (passed == current.passed && failed >= current.failed) {
        continue
      }
      best = (stub, passed, failed, lines)
    }
    return best.map { ($0.stub, $0.lines.filter { !$0.passed }.map(\.field)) }
  }
}
