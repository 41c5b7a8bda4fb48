import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Writes a progress line to standard error, keeping standard output for the results.
func progress(_ message: String) {
  FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// Runs every configuration `options` selects, prints the table, and returns the number of
/// wrong answers and the number of figures that slipped past the baseline's margin.
func runBenchmarks(_ options: Options) async -> (failures: Int, slips: Int) {
  print("Doppel benchmarks")
  print(machineLine())
  print(
    "Requests per run: \(grouped(Double(options.sessionRequests))) through URLSession, "
      + "\(grouped(Double(options.memoryRequests))) in memory; 1 KB bodies; request i hits stub i % stubs "
      + "(in the rows \"vs 1 stub\", the 1-stub side sends as many distinct request objects as the other has stubs); "
      + "\(options.rounds) interleaved rounds (floor, Doppel, floor, Doppel…), medians.")
  print("")

  let workloads = options.stubCounts.map(Workload.init(stubCount:))
  // Only the session and in-memory doors use these; building 10,000 stubs for nothing would also
  // show up in a profile of another door.
  let backends = options.doors.contains("session") || options.doors.contains("memory") ? workloads.map(makeBackend) : []
  let floorSession = FloorURLProtocol.makeSession()
  let modes: [Mode] =
    (options.modes.contains("sequential") ? [.sequential] : [])
    + (options.modes.contains("inflight") ? [.inFlight(options.width)] : [])

  var outcomes: [Outcome] = []
  var profiledFailures = 0
  for door in ["session", "memory"] where options.doors.contains(door) {
    for (workload, backend) in zip(workloads, backends) {
      if door == "session" { FloorURLProtocol.install(workload) }
      for mode in modes {
        let comparison =
          door == "session"
          ? sessionComparison(workload, floorSession: floorSession, backend: backend, mode: mode, options: options)
          : inMemoryComparison(workload, backend: backend, mode: mode, options: options)
        let label =
          "\(comparison.door), \(grouped(Double(workload.stubCount))) stub\(workload.stubCount == 1 ? "" : "s"), \(mode)"
        if let side = options.profile {
          let contender = side == "floor" ? comparison.floor : comparison.doppel
          let run = await timedRun(contender, count: comparison.requests, mode: mode)
          contender.reset()
          profiledFailures += run.failures
          print("\(label): \(contender.name) \(grouped(run.rate)) req/s, \(run.failures) failures")
          continue
        }
        let outcome = await measure(comparison, rounds: options.rounds)
        progress(
          "\(label): Doppel \(grouped(outcome.doppelRate)) req/s, floor \(grouped(outcome.floorRate)) req/s, "
            + "ratio \(twoDecimals(outcome.ratio))")
        outcomes.append(outcome)
      }
    }
  }

  if options.doors.contains("memory"), options.profile == nil, options.modes.contains("sequential") {
    // The stub-count scaling of the in-memory door: 10,000 and 100,000 stubs against 1.
    func workloadAndBackend(_ count: Int) -> (Workload, Backend) {
      if let index = workloads.firstIndex(where: { $0.stubCount == count }) {
        return (workloads[index], backends[index])
      }
      let workload = Workload(stubCount: count)
      return (workload, makeBackend(workload))
    }
    let (oneStubWorkload, oneStubBackend) = workloadAndBackend(1)
    // For reference, without a goal: the closure floor that also keeps a journal.
    let journaling = await measure(
      journalingClosureComparison(oneStubWorkload, options: options), rounds: options.rounds)
    progress(
      "journaling closure, 1 answer, sequential: \(grouped(journaling.doppelRate)) req/s, "
        + "closure \(grouped(journaling.floorRate)) req/s, ratio \(twoDecimals(journaling.ratio))")
    outcomes.append(journaling)
    for count in [10_000, 100_000] {
      let (workload, backend) = workloadAndBackend(count)
      // The 1-stub side sends as many distinct request objects as this side has stubs, all to its
      // one URL: both sides then read requests that are as cold in the CPU's caches.
      let oneStub = Workload(stubCount: 1, requestObjects: count)
      let outcome = await measure(
        scalingComparison(
          workload, backend: backend, oneStub: oneStub, oneStubBackend: oneStubBackend, options: options),
        rounds: options.rounds)
      progress(
        "respond(to:), \(grouped(Double(count))) stubs vs 1 stub, sequential: \(grouped(outcome.doppelRate)) req/s, "
          + "1 stub \(grouped(outcome.floorRate)) req/s, ratio \(twoDecimals(outcome.ratio))")
      outcomes.append(outcome)
      // For reference, without a goal: what the same growth costs the closure floor, a dictionary
      // lookup that does nothing else.
      let reference = await measure(
        closureScalingComparison(workload, oneStub: oneStub, options: options), rounds: options.rounds)
      progress(
        "in-memory closure, \(grouped(Double(count))) answers vs 1, sequential: \(grouped(reference.doppelRate)) req/s, "
          + "1 answer \(grouped(reference.floorRate)) req/s, ratio \(twoDecimals(reference.ratio))")
      outcomes.append(reference)
    }
  }

  if options.doors.contains("delayed"), let workload = workloads.first {
    FloorURLProtocol.install(workload)
    let comparison = delayedComparison(
      workload, floorSession: floorSession, backend: makeDelayedBackend(workload), width: options.width,
      options: options)
    if let side = options.profile {
      let contender = side == "floor" ? comparison.floor : comparison.doppel
      let run = await timedRun(contender, count: comparison.requests, mode: comparison.mode)
      profiledFailures += run.failures
      print(
        "URLSession delayed, \(options.width) in flight: \(contender.name) \(grouped(run.rate)) req/s, \(run.failures) failures"
      )
    } else {
      let outcome = await measure(comparison, rounds: options.rounds)
      progress(
        "URLSession delayed, \(options.width) in flight: Doppel \(grouped(outcome.doppelRate)) req/s, "
          + "floor \(grouped(outcome.floorRate)) req/s, ratio \(twoDecimals(outcome.ratio))")
      outcomes.append(outcome)
    }
  }

  var memoryFailures = 0
  var memoryLine: String?
  var cpuLine: String?
  if options.doors.contains("test"), let side = options.profile {
    let workload = Workload(stubCount: 20)
    FloorURLProtocol.install(workload)
    // `--mode inflight` profiles the cases started all at once; otherwise one after another.
    let mode: Mode = options.modes.contains("sequential") ? .sequential : .inFlight(options.testCases)
    let comparison = testCostComparison(workload, options: options, mode: mode)
    let contender = side == "floor" ? comparison.floor : comparison.doppel
    let run = await timedRun(contender, count: comparison.requests, mode: comparison.mode)
    profiledFailures += run.failures
    print("A test (\(mode)): \(contender.name) \(grouped(run.rate)) tests/s, \(run.failures) failures")
  } else if options.doors.contains("test") {
    let workload = Workload(stubCount: 20)
    FloorURLProtocol.install(workload)
    let outcome = await measure(testCostComparison(workload, options: options), rounds: options.rounds)
    progress(
      "A test (backend, 20 stubs, session, 5 requests, verify): Doppel \(grouped(outcome.doppelRate)) tests/s, "
        + "floor \(grouped(outcome.floorRate)) tests/s, ratio \(twoDecimals(outcome.ratio))")
    outcomes.append(outcome)
    if options.modes.contains("inflight") {
      // As Swift Testing runs a parameterized test's cases: all started at once.
      let allAtOnce = await measure(
        testCostComparison(workload, options: options, mode: .inFlight(options.testCases)), rounds: options.rounds)
      progress(
        "A test, \(options.testCases) at once: Doppel \(grouped(allAtOnce.doppelRate)) tests/s, "
          + "floor \(grouped(allAtOnce.floorRate)) tests/s, ratio \(twoDecimals(allAtOnce.ratio))")
      outcomes.append(allAtOnce)
    }
    cpuLine =
      "CPU time per test (getrusage, medians): Doppel \(grouped(outcome.doppelCPUMicroseconds)) µs, "
      + "floor \(grouped(outcome.floorCPUMicroseconds)) µs; ratio by CPU time \(twoDecimals(outcome.cpuRatio))×"
    let memory = await testCostMemory(workload, total: options.memoryCheckTests)
    memoryFailures = memory.failures
    let growth = Double(memory.atEnd - memory.afterFirst) / 1024
    memoryLine =
      "Memory over \(grouped(Double(options.memoryCheckTests))) test cases: "
      + "\(memory.afterFirst / 1024) MB after the first \(grouped(Double(min(1_000, max(options.memoryCheckTests / 10, 1))))), "
      + "\(memory.atEnd / 1024) MB at the end (\(growth >= 0 ? "+" : "")\(twoDecimals(growth)) MB; goal: within 5 MB): "
      + (abs(growth) <= 5 ? "met" : "**not met**")
  }

  for outcome in outcomes where outcome.comparison.goal > 0 {
    recordFigure(figureName(outcome.comparison), outcome.ratio, better: .higher, unit: "×")
  }
  if !outcomes.isEmpty {
    print(table(outcomes))
    let notes = noiseNotes(outcomes)
    if !notes.isEmpty { print("") }
    for note in notes { print(note) }
  }
  if let cpuLine { print(cpuLine) }
  if let memoryLine { print(memoryLine) }
  var failures = profiledFailures + memoryFailures + outcomes.reduce(0) { $0 + $1.failures }
  if options.doors.contains("loading"), options.profile == nil {
    print("")
    failures += Loading.run(count: options.loadingCount, rounds: options.quick ? 3 : 1)
  }
  if options.doors.contains("checks"), options.profile == nil {
    print("")
    failures += Checks.run()
  }
  if options.doors.contains("secrets"), options.profile == nil {
    print("")
    failures += Secrets.run(repeats: options.quick ? 16_000 : 32_000, rounds: options.quick ? 3 : 5)
  }
  if options.doors.contains("cassettes"), options.profile == nil {
    print("")
    failures += Cassettes.run(rounds: options.quick ? 1 : 3)
  }
  #if OpenAPI
    if options.doors.contains("openapi") {
      failures += await Validation.run(options: options)
    }
    if options.doors.contains("documents") {
      print("")
      failures += await Documents.run(rounds: options.quick ? 1 : 3)
    }
    if options.doors.contains("json") {
      print("")
      failures += JSONReaders.run(options: options)
    }
  #endif
  let (slips, baselineFailures) = compareWithBaseline(options)
  failures += baselineFailures
  print("")
  if failures == 0 {
    print("Every answer was checked (status 200, \(Workload.bodySize)-byte body): no failures.")
  } else {
    print(
      "FAILED: \(failures) failures (requests with a wrong answer or an error, or a baseline not read or written). "
        + "First ones:")
    for line in failureLog.withLock({ $0 }) { print("  \(line)") }
  }
  return (failures, slips)
}

/// The name a comparison's ratio has in a baseline: `respond(to:), 1 stub, sequential`.
func figureName(_ comparison: Comparison) -> String {
  "\(comparison.door), \(grouped(Double(comparison.stubs))) stub\(comparison.stubs == 1 ? "" : "s"), \(comparison.mode)"
}

/// Writes this run's figures as a baseline (`--write-baseline`), compares them with one
/// (`--baseline`), prints the comparison, and returns how many figures slipped past its margin,
/// and 1 as a failure when a baseline could not be read or written.
func compareWithBaseline(_ options: Options) -> (slips: Int, failures: Int) {
  let figures = runFigures.withLock { $0 }
  if let path = options.writeBaseline {
    let about =
      "Figures of `Benchmarks \(options.arguments.joined(separator: " "))` on \(machineLine()). "
      + "A ratio may fall by ratioMargin (a fraction of it), a time rise by timeMargin, before the run fails. "
      + "Update: run the same command with --write-baseline on this kind of machine, quiet, and commit the file "
      + "(BENCHMARKS.md, A guard against the next slip)."
    do {
      try Baseline(figures: figures, about: about).write(to: path)
      print("")
      print("Wrote \(figures.count) figures to \(path) as the new baseline.")
    } catch {
      print("Could not write the baseline \(path): \(error)")
      return (0, 1)
    }
  }
  guard let path = options.baseline else { return (0, 0) }
  print("")
  let baseline: Baseline
  do {
    baseline = try Baseline.read(path)
  } catch {
    print("\(error)")
    return (0, 1)
  }
  let (lines, slipped) = baseline.compare(figures)
  print(
    "Against the baseline \(path) (ratios may fall \(Int(baseline.ratioMargin * 100))%, "
      + "times rise \(Int(baseline.timeMargin * 100))%):")
  for line in lines { print(line) }
  if slipped.isEmpty {
    print("No figure slipped past its margin.")
  } else {
    print("SLIPPED: \(slipped.count) figure\(slipped.count == 1 ? "" : "s") fell past the margin of \(path):")
    for line in slipped { print("  \(line)") }
  }
  return (slipped.count, 0)
}
