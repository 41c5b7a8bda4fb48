@_spi(DoppelInternals) import DoppelToolkit
import Foundation

// The in-memory front door: a request answered without URLSession, by the same engine.
extension Backend {
  /// Answers a request directly, without `URLSession`: the same stubs, journal, diagnostics, delays
  /// (on the backend's clock) and redirects.
  ///
  /// - Throws: `URLError(.dataLengthExceedsMaximum)` for a `GET` with a body, as URLSession
  ///   refuses it; the stubbed error, `URLError(.networkConnectionLost)` for a dropped connection,
  ///   `URLError(.timedOut)` for a response that never comes (after the request's
  ///   `timeoutInterval`), `CancellationError` when the task is cancelled, or for an unmatched
  ///   request (by default) a `URLError` whose description is the near-miss report.
  public func respond(to request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let incoming = Request(request)
    if let refusal = incoming.refusedBodyOnGet { throw refusal }
    // One step budget for every pattern the request meets: the stubs tried and the near-miss report.
    let (first, _) = SearchBudget.measure { () -> FirstStep in
      let found = findStub(for: incoming)
      // The common case without building a plan: an answer built before, given at once, final.
      if let (stub, claim, captures) = found, stub.answersAtOnce, let answer = claim.lastAnswer,
        answer.serves(incoming)
      {
        recordReused(answer, for: incoming.with(pathParameters: captures), stub: stub)
        return .reused(answer)
      }
      return .planned(plan(for: incoming, found: found, context: Context()))
    }
    let planned: Plan
    switch first {
    case .reused(let answer): return (answer.body, answer.httpURLResponse)
    case .planned(let plan): planned = plan
    }
    let playback: Playback
    switch planned {
    case .now(let now): playback = now
    case .later(let work): playback = await work()
    }
    let timing = playback.timing
    if timing.isImmediate {
      switch playback.delivery {
      case .success(let answer): return (answer.body, answer.httpURLResponse)
      case .failure(let error): throw error
      }
    }
    // The request's timeout bounds the whole exchange here: no session stands behind it.
    let timeout = Duration.timeout(request.timeoutInterval)
    let completed = try await playback.play(
      streaming: false, clock: clockBox, timeouts: Playback.Timeouts(idle: timeout, total: timeout), url: request.url
    ) { steps in
      for step in steps {
        if case .fail(let error) = step { throw error }
      }
    }
    guard completed else { throw CancellationError() }
    switch playback.delivery {
    case .success(let answer): return (answer.body, answer.httpURLResponse)
    case .failure(let error): throw error
    }
  }
}

/// What ``Backend/respond(to:)`` finds first: an answer built before and given again at once, or
/// a plan to play.
private enum FirstStep {
  case reused(Delivery.Answer)
  case planned(Backend.Plan)
}
