import Foundation

/// One figure a run produced, which a baseline can hold: a ratio against a floor, or a time.
struct Figure: Sendable {
  /// Which way is better.
  enum Better: String, Codable, Sendable {
    case higher, lower
  }

  /// The figure's name, as the baseline file keys it (`respond(to:), 1 stub, sequential`).
  let name: String
  let value: Double
  let better: Better
  /// `×` for a ratio, `µs` or `s` for a time.
  let unit: String
}

/// Every figure this run produced, in the order it produced them.
let runFigures = Guarded<[Figure]>([])

/// Records a figure for the comparison with a baseline (`--baseline`) and for `--write-baseline`.
func recordFigure(_ name: String, _ value: Double, better: Figure.Better, unit: String) {
  guard value.isFinite else { return }
  runFigures.withLock { $0.append(Figure(name: name, value: value, better: better, unit: unit)) }
}

/// The figures a kind of machine gave, kept in the repository (`Benchmarks/baseline-quick.json`
/// for CI's smoke run), and how far a run may fall below them before it fails.
///
/// A ratio is compared with ``ratioMargin``: with 0.35, a run fails when a ratio falls below 65%
/// of the baseline's. A time (a load, a validation) is compared with ``timeMargin``: with 1.0, a
/// run fails when a time is more than twice the baseline's. Times move with the machine's load
/// more than ratios, which are measured against a floor in the same run, so their margin is wider.
struct Baseline: Codable {
  /// How the figures were measured and how to measure them again.
  var about: String
  /// How far below the baseline a ratio may fall, as a fraction of it.
  var ratioMargin: Double
  /// How far above the baseline a time may rise, as a fraction of it.
  var timeMargin: Double
  /// The figures, by name.
  var figures: [String: Entry]

  /// One figure of the baseline.
  struct Entry: Codable {
    var value: Double
    var better: Figure.Better
    var unit: String
  }

  /// The baseline made of this run's figures.
  init(figures: [Figure], about: String, ratioMargin: Double = 0.35, timeMargin: Double = 1.0) {
    self.about = about
    self.ratioMargin = ratioMargin
    self.timeMargin = timeMargin
    var entries: [String: Entry] = [:]
    for figure in figures {
      // Three decimals: what a run can tell apart, and a file that reads well in a diff.
      let value = (figure.value * 1000).rounded() / 1000
      entries[figure.name] = Entry(value: value, better: figure.better, unit: figure.unit)
    }
    self.figures = entries
  }

  /// Reads a baseline file, or explains what is wrong with it.
  static func read(_ path: String) throws -> Baseline {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw BaselineError(
        "\(path): cannot be read (\(error.localizedDescription)); write one with --write-baseline \(path)")
    }
    do {
      return try JSONDecoder().decode(Baseline.self, from: data)
    } catch {
      throw BaselineError(
        "\(path): not a baseline (\(error)); write it again with --write-baseline \(path)")
    }
  }

  /// Writes the baseline as sorted, indented JSON.
  func write(to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try (encoder.encode(self) + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
  }

  /// One line per figure this run shares with the baseline, and the figures that slipped past
  /// their margin.
  func compare(_ figures: [Figure]) -> (lines: [String], slipped: [String]) {
    var lines: [String] = []
    var slipped: [String] = []
    for figure in figures {
      guard let entry = self.figures[figure.name] else {
        lines.append("- \(figure.name): \(format(figure.value, figure.unit)), not in the baseline")
        continue
      }
      let margin = entry.unit == "×" ? ratioMargin : timeMargin
      let bound = entry.better == .higher ? entry.value * (1 - margin) : entry.value * (1 + margin)
      let worse = entry.better == .higher ? figure.value < bound : figure.value > bound
      let change = (figure.value / entry.value - 1) * 100
      let line =
        "\(figure.name): \(format(figure.value, figure.unit)) against \(format(entry.value, entry.unit)) "
        + "(\(signedPercent(change)); fails \(entry.better == .higher ? "below" : "above") \(format(bound, entry.unit)))"
      lines.append("- " + line + (worse ? " **slipped**" : ""))
      if worse { slipped.append(line) }
    }
    let measured = Set(figures.map(\.name))
    let unmeasured = self.figures.keys.filter { !measured.contains($0) }.sorted()
    if !unmeasured.isEmpty {
      lines.append("- not measured in this run: \(unmeasured.joined(separator: "; "))")
    }
    return (lines, slipped)
  }

  private func format(_ value: Double, _ unit: String) -> String {
    unit == "×" ? "\(twoDecimals(value))×" : "\(twoDecimals(value)) \(unit)"
  }
}

/// A baseline file that cannot be read.
struct BaselineError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
