/// Holds the backend's clock. `any Clock<Duration>` is Sendable (Clock refines Sendable); the box
/// keeps the existential in one place so the call sites stay short.
struct ClockBox: Sendable {
  let clock: any Clock<Duration>

  /// Sleeps for `duration` on the clock; returns `false` when the task was cancelled.
  func sleep(for duration: Duration) async -> Bool {
    guard duration > .zero else { return !Task.isCancelled }
    do {
      try await clock.sleep(for: duration)
      return true
    } catch {
      return false
    }
  }
}
