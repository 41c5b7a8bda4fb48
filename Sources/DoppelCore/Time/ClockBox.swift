@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Holds the backend's clock. `any Clock<Duration>` is Sendable (Clock refines Sendable); the box
/// keeps the existential in one place so the call sites stay short.
package struct ClockBox: Sendable {
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

extension Duration {
  /// The longest timeout Doppel waits for: 2^40 seconds, about 35,000 years.
  static let longestTimeout = Duration.seconds(Int64(1) << 40)

  /// A `TimeInterval` timeout (a request's `timeoutInterval`, a session's
  /// `timeoutIntervalForRequest`) as a `Duration`. `Duration.seconds(_:)` traps on a value it
  /// cannot hold, so infinity, NaN and values beyond ``longestTimeout`` mean "no limit" and become
  /// ``longestTimeout``; negative infinity becomes its negation (an exchange that times out at once,
  /// as any negative timeout does).
  static func timeout(_ interval: TimeInterval) -> Duration {
    let limit = Double(Int64(1) << 40)
    if interval.isNaN || interval >= limit { return longestTimeout }
    if interval <= -limit { return .zero - longestTimeout }
    return .seconds(interval)
  }
}
