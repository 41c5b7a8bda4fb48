import Foundation

/// How requests are issued.
enum Mode: Sendable, CustomStringConvertible {
  /// One request at a time, each awaited before the next.
  case sequential
  /// A task group keeping this many requests outstanding until all are sent.
  case inFlight(Int)

  var description: String {
    switch self {
    case .sequential: "sequential"
    case .inFlight(let width): "\(width) in flight"
    }
  }
}

/// One side of a comparison: something that answers request number `i`, returning whether the
/// answer was correct, and what to do between runs.
struct Contender: Sendable {
  let name: String
  let answer: @Sendable (Int) async -> Bool
  var reset: @Sendable () -> Void = {}
}

/// The outcome of one timed run.
struct Run: Sendable {
  let requests: Int
  let seconds: Double
  let failures: Int
  /// The process's CPU time (user and system, every thread) during the run, from `getrusage`: on a
  /// shared machine it moves less than the wall clock.
  var cpuSeconds: Double = .nan

  var rate: Double { Double(requests) / seconds }
}

/// Sends `count` requests to `contender` in `mode` and times them with a monotonic clock.
func timedRun(_ contender: Contender, count: Int, mode: Mode) async -> Run {
  let clock = ContinuousClock()
  let cpuStart = processCPUSeconds()
  let start = clock.now
  let failures: Int
  switch mode {
  case .sequential: failures = await sequential(contender.answer, count: count)
  case .inFlight(let width): failures = await inFlight(contender.answer, count: count, width: width)
  }
  let elapsed = start.duration(to: clock.now)
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
  return Run(requests: count, seconds: seconds, failures: failures, cpuSeconds: processCPUSeconds() - cpuStart)
}

/// User and system CPU time the process has used so far, in seconds.
func processCPUSeconds() -> Double {
  var usage = rusage()
  #if os(Linux)
    let who = RUSAGE_SELF.rawValue
  #else
    let who = RUSAGE_SELF
  #endif
  guard getrusage(who, &usage) == 0 else { return .nan }
  func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) * 1e-6 }
  return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Requests `0..<count` one after another; returns the number of wrong answers.
private func sequential(_ answer: @Sendable (Int) async -> Bool, count: Int) async -> Int {
  var failures = 0
  for index in 0..<count {
    if await !answer(index) { failures += 1 }
  }
  return failures
}

/// Requests `0..<count` with `width` outstanding at a time; returns the number of wrong answers.
private func inFlight(_ answer: @escaping @Sendable (Int) async -> Bool, count: Int, width: Int) async -> Int {
  await withTaskGroup(of: Bool.self) { group in
    var next = 0
    var failures = 0
    while next < min(width, count) {
      let index = next
      group.addTask { await answer(index) }
      next += 1
    }
    while let correct = await group.next() {
      if !correct { failures += 1 }
      if next < count {
        let index = next
        group.addTask { await answer(index) }
        next += 1
      }
    }
    return failures
  }
}

/// The median of `values` (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// A floor and Doppel measured against each other on one configuration.
struct Comparison: Sendable {
  let door: String
  let stubs: Int
  let mode: Mode
  let requests: Int
  let warmUp: Int
  let goal: Double
  let floor: Contender
  let doppel: Contender
}

/// What a comparison measured: every run of each side, in order.
struct Outcome: Sendable {
  let comparison: Comparison
  let floorRuns: [Run]
  let doppelRuns: [Run]
  /// Wrong answers during the untimed warm-up of either side.
  let warmUpFailures: Int

  var floorRate: Double { median(floorRuns.map(\.rate)) }
  var doppelRate: Double { median(doppelRuns.map(\.rate)) }
  /// Doppel's median rate over the floor's median rate.
  var ratio: Double { doppelRate / floorRate }
  /// The per-round ratios (Doppel's run over the floor run just before it), lowest and highest:
  /// how far the noise moved the figure.
  var ratioRange: (low: Double, high: Double) {
    let ratios = zip(doppelRuns, floorRuns).map { $0.rate / $1.rate }
    return (ratios.min() ?? .nan, ratios.max() ?? .nan)
  }
  /// The median CPU time per request of each side, in microseconds.
  var floorCPUMicroseconds: Double { median(floorRuns.map { $0.cpuSeconds / Double($0.requests) * 1e6 }) }
  var doppelCPUMicroseconds: Double { median(doppelRuns.map { $0.cpuSeconds / Double($0.requests) * 1e6 }) }
  /// The floor's median CPU time per request over Doppel's: the ratio by CPU time.
  var cpuRatio: Double { floorCPUMicroseconds / doppelCPUMicroseconds }
  var failures: Int { (floorRuns + doppelRuns).reduce(warmUpFailures) { $0 + $1.failures } }

  /// The largest spread of round ratios a cell may have and still be called met: ±15% of the ratio.
  static let allowedSpread = 0.15

  /// Why this cell's rounds are too noisy to call its goal met (a round ratio more than
  /// ``allowedSpread`` away from the median ratio), or `nil` when they are close enough.
  var noise: String? {
    let range = ratioRange
    let low = (range.low / ratio - 1) * 100
    let high = (range.high / ratio - 1) * 100
    guard low < -Self.allowedSpread * 100 || high > Self.allowedSpread * 100 else { return nil }
    return "round ratios \(twoDecimals(range.low))–\(twoDecimals(range.high)) lie \(signedPercent(low)) and "
      + "\(signedPercent(high)) from the median \(twoDecimals(ratio))×, more than ±\(Int(Self.allowedSpread * 100))%"
  }

  /// Whether the goal is met: the median ratio reaches it and the rounds agree (see ``noise``).
  var met: Bool { comparison.goal > 0 && ratio >= comparison.goal && noise == nil }
}

/// `-20.4` as `-20%`, `3` as `+3%`.
func signedPercent(_ value: Double) -> String {
  guard value.isFinite, abs(value) < 1e15 else { return "n/a" }
  let whole = Int(value.rounded())
  return (whole > 0 ? "+" : "") + "\(whole)%"
}

/// Warms both sides up, then runs floor, Doppel, floor, Doppel… `rounds` times.
func measure(_ comparison: Comparison, rounds: Int) async -> Outcome {
  var warmUpFailures = 0
  for contender in [comparison.floor, comparison.doppel] {
    warmUpFailures += await timedRun(contender, count: comparison.warmUp, mode: comparison.mode).failures
    contender.reset()
  }
  var floorRuns: [Run] = []
  var doppelRuns: [Run] = []
  for _ in 0..<rounds {
    floorRuns.append(await timedRun(comparison.floor, count: comparison.requests, mode: comparison.mode))
    comparison.floor.reset()
    doppelRuns.append(await timedRun(comparison.doppel, count: comparison.requests, mode: comparison.mode))
    comparison.doppel.reset()
  }
  return Outcome(
    comparison: comparison, floorRuns: floorRuns, doppelRuns: doppelRuns, warmUpFailures: warmUpFailures)
}
