import Foundation

/// The compiler that built this binary, as precisely as `#if compiler` can tell.
var swiftVersion: String {
  #if compiler(>=6.4)
    "Swift 6.4 or later"
  #elseif compiler(>=6.3.1)
    "Swift 6.3.1"
  #elseif compiler(>=6.3)
    "Swift 6.3"
  #elseif compiler(>=6.2)
    "Swift 6.2"
  #else
    "Swift 6.1"
  #endif
}

/// One line describing where and when the figures were taken.
func machineLine() -> String {
  let info = ProcessInfo.processInfo
  #if os(Linux)
    let system = "Linux"
  #elseif os(macOS)
    let system = "macOS"
  #else
    let system = "unknown OS"
  #endif
  let formatter = ISO8601DateFormatter()
  return "\(formatter.string(from: Date())) · \(system) (\(info.operatingSystemVersionString)) · "
    + "\(info.activeProcessorCount) cores (nproc) · \(swiftVersion) · release build · \(loadAverage())"
}

/// The load average when the run started (`/proc/loadavg` on Linux): the machine is shared, so a
/// figure means little without it.
func loadAverage() -> String {
  guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else {
    return "load average unknown"
  }
  return "load average " + text.split(separator: " ").prefix(3).joined(separator: ", ")
}

/// `12345.6` as `12,346`.
func grouped(_ value: Double) -> String {
  guard value.isFinite, abs(value) < 1e15 else { return "n/a" }
  let whole = Int(value.rounded())
  let digits = String(whole.magnitude)
  var result = ""
  for (offset, character) in digits.reversed().enumerated() {
    if offset > 0 && offset % 3 == 0 { result.append(",") }
    result.append(character)
  }
  return (whole < 0 ? "-" : "") + String(result.reversed())
}

/// `0.9412` as `0.94`.
func twoDecimals(_ value: Double) -> String {
  guard value.isFinite, abs(value) < 1e15 else { return "n/a" }
  let hundredths = Int((abs(value) * 100).rounded())
  let fraction = String(hundredths % 100)
  let sign = hundredths > 0 && value < 0 ? "-" : ""
  return "\(sign)\(hundredths / 100).\(fraction.count == 1 ? "0" + fraction : fraction)"
}

/// The "met" cell: `yes`, `**no**`, `**no** (noisy)` when the median reaches the goal but the rounds
/// spread too far to trust it, or `—` without a goal.
func metCell(_ outcome: Outcome) -> String {
  guard outcome.comparison.goal > 0 else { return "—" }
  if outcome.met { return "yes" }
  return outcome.ratio >= outcome.comparison.goal ? "**no** (noisy)" : "**no**"
}

/// One line per cell whose median reaches its goal but whose rounds spread too far to call it met.
func noiseNotes(_ outcomes: [Outcome]) -> [String] {
  outcomes.compactMap { outcome in
    let comparison = outcome.comparison
    guard comparison.goal > 0, outcome.ratio >= comparison.goal, let noise = outcome.noise else { return nil }
    let stubs = "\(grouped(Double(comparison.stubs))) stub\(comparison.stubs == 1 ? "" : "s")"
    return
      "Not called met: \(comparison.door), \(stubs), \(comparison.mode): \(noise). Run it again on a quieter machine."
  }
}

/// A Markdown table whose columns are padded so it also reads well as plain text.
func table(_ outcomes: [Outcome]) -> String {
  let header = [
    "door", "stubs", "mode", "Doppel req/s", "floor", "floor req/s", "ratio", "round ratios", "goal",
    "met",
  ]
  let rightAligned: Set<Int> = [1, 3, 5, 6]
  let rows = outcomes.map { outcome -> [String] in
    let comparison = outcome.comparison
    let range = outcome.ratioRange
    return [
      comparison.door, grouped(Double(comparison.stubs)), comparison.mode.description,
      grouped(outcome.doppelRate), comparison.floor.name, grouped(outcome.floorRate),
      twoDecimals(outcome.ratio) + "×", "\(twoDecimals(range.low))–\(twoDecimals(range.high))",
      comparison.goal > 0 ? "≥ \(twoDecimals(comparison.goal))×" : "none",
      metCell(outcome),
    ]
  }
  let widths = header.indices.map { column in
    ([header] + rows).map { $0[column].count }.max() ?? 0
  }
  func line(_ cells: [String]) -> String {
    let padded = cells.enumerated().map { column, cell in
      let padding = String(repeating: " ", count: widths[column] - cell.count)
      return rightAligned.contains(column) ? padding + cell : cell + padding
    }
    return "| " + padded.joined(separator: " | ") + " |"
  }
  let rule =
    "|"
    + widths.indices.map { column in
      let dashes = String(repeating: "-", count: widths[column])
      return rightAligned.contains(column) ? "-" + dashes + ":" : " " + dashes + " "
    }.joined(separator: "|") + "|"
  return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
}
