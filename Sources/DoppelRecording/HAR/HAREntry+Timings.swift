import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension HAREntry {
  /// The longest recorded time replayed: 24 hours, in milliseconds, as for a manifest's delays.
  static let longestReplayedTime = 86_400_000.0

  /// `response` taking as long as the recording did: the entry's `timings` before the response
  /// head (`blocked`, `dns`, `connect`, `send`, `wait`; `ssl` is part of `connect` in HAR 1.2,
  /// and -1 means the phase did not happen), or its `time` when it has none; `receive` paces the
  /// body.
  func withRecordedTimings(_ response: Response) throws(HAREntryProblem) -> Response {
    guard case .object(let timings)? = extra["timings"] else {
      let total = try Self.milliseconds(time, field: "time")
      return total > 0 ? response.delayed(by: .milliseconds(total)) : response
    }
    var before = 0.0
    for phase in ["blocked", "dns", "connect", "send", "wait"] {
      before += try Self.milliseconds(timings[phase], field: "timings.\(phase)")
    }
    let receive = try Self.milliseconds(timings["receive"], field: "timings.receive")
    var replayed = response
    if before > 0 { replayed = replayed.delayed(by: .milliseconds(min(before, Self.longestReplayedTime))) }
    if receive > 0, let size = try? response.bodyData().count, size > 0 {
      // Bytes a second that make the body last `receive` milliseconds.
      replayed = replayed.throttled(bytesPerSecond: max(1, Int((Double(size) * 1000 / receive).rounded(.up))))
    }
    return replayed
  }

  /// A recorded duration in milliseconds, -1 (or absent) counting as 0.
  private static func milliseconds(_ value: JSONValue?, field: String) throws(HAREntryProblem) -> Double {
    guard let value, value != .null else { return 0 }
    guard case .number(let number) = value else {
      throw HAREntryProblem(
        field: field,
        reason:
          "\(value) is not a number. A recorded time is a number of milliseconds, or -1 when the phase did not happen; fix it, or replay without timings."
      )
    }
    return try milliseconds(number, field: field)
  }

  private static func milliseconds(_ number: Double, field: String) throws(HAREntryProblem) -> Double {
    if number == -1 { return 0 }
    guard number.isFinite, number >= 0, number <= longestReplayedTime else {
      throw HAREntryProblem(
        field: field,
        reason:
          "\(JSONValue.number(number)) milliseconds is out of range. A recorded time is from 0 to 86400000 milliseconds (24 hours), or -1 when the phase did not happen; fix it, or replay without timings."
      )
    }
    return number
  }
}
