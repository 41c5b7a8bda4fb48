@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A clock that moves only when told to, so a test can hold a response in flight, look at the
/// loading state, then let time pass without waiting for real.
///
/// ```swift
/// let clock = ManualClock()
/// let backend = Backend(clock: clock)
/// backend.stub(.get("/breeds"), .json(breeds).delayed(by: .seconds(2)))
/// let load = Task { try await model.load() }
/// await clock.waitForSleepers()          // the request is now waiting on the clock
/// #expect(model.state == .loading)
/// clock.advance(by: .seconds(2))
/// try await load.value
/// ```
///
/// Any `Clock<Duration>` works with ``Backend/init(unmatched:issueReporter:clock:journalLimit:)``, so a test clock
/// from another library can be used instead.
public final class ManualClock: Clock, Sendable {
  /// A point in this clock's time: the duration since the clock was made.
  public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
    /// The time since the clock was made.
    public var offset: Duration

    /// Creates an instant at `offset` from the clock's start.
    public init(offset: Duration) { self.offset = offset }

    /// This instant moved by `duration`.
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

    /// The duration from this instant to `other`.
    public func duration(to other: Instant) -> Duration { other.offset - offset }

    /// Orders instants in time.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

    /// The offset, for example `2.0 seconds`.
    public var description: String { "\(offset)" }
  }

  private struct Sleeper {
    let id: UInt64
    let deadline: Instant
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct Waiter {
    let count: Int
    let continuation: CheckedContinuation<Void, Never>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var nextID: UInt64 = 0
    var sleepers: [Sleeper] = []
    var waiters: [Waiter] = []
  }

  private let state = Locked(State())

  /// Creates a clock at instant zero.
  public init() {}

  /// The current instant.
  public var now: Instant { state.withLock { $0.now } }

  /// The smallest step: one nanosecond.
  public var minimumResolution: Duration { .nanoseconds(1) }

  /// How many tasks are sleeping on this clock.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// Suspends until the clock is advanced to `deadline`, or throws `CancellationError` when the
  /// task is cancelled first.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = state.withLock { state -> UInt64 in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let resumeNow = state.withLock { state -> Bool in
          if deadline <= state.now { return true }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return false
        }
        if resumeNow {
          continuation.resume()
        } else {
          notifyWaiters()
        }
      }
    } onCancel: {
      let cancelled = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return state.sleepers.remove(at: index)
      }
      cancelled?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward by `duration`, waking every sleeper whose deadline has come, in deadline
  /// order.
  public func advance(by duration: Duration) {
    advance(to: now.advanced(by: duration))
  }

  /// Moves time forward to `instant` (never backwards), waking every sleeper whose deadline has come.
  public func advance(to instant: Instant) {
    let due = state.withLock { state -> [Sleeper] in
      if instant > state.now { state.now = instant }
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      state.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }

  /// Moves time to the earliest sleeper's deadline and wakes it (and any other sleeper due then).
  /// Returns `false` when nobody is sleeping.
  @discardableResult
  public func advanceToNextDeadline() -> Bool {
    guard let next = state.withLock({ $0.sleepers.map(\.deadline).min() }) else { return false }
    advance(to: next)
    return true
  }

  /// Waits until at least `count` tasks are sleeping on this clock, without advancing it: the way a
  /// test knows a delayed request is now in flight.
  public func waitForSleepers(count: Int = 1) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state -> Bool in
        if state.sleepers.count >= count { return true }
        state.waiters.append(Waiter(count: count, continuation: continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  private func notifyWaiters() {
    let ready = state.withLock { state -> [Waiter] in
      let count = state.sleepers.count
      let ready = state.waiters.filter { $0.count <= count }
      state.waiters.removeAll { $0.count <= count }
      return ready
    }
    for waiter in ready { waiter.continuation.resume() }
  }
}
