import Doppel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Writes a progress line to standard error, keeping standard output for the results.
func progress(_ message: String) {
  FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// Runs every configuration `options` selects, prints the table, and returns the number of
/// wrong answers.
func runBenchmarks(_ options: Options) async -> Int {
  print("Doppel benchmarks")
  print(machineLine())
  print(
    "Requests per run: \(grouped(Double(options.sessionRequests))) through URLSession, "
      + "\(grouped(Double(options.memoryRequests))) in memory; 1 KB bodies; request i hits stub i % stubs; "
      + "\(options.rounds) interleaved rounds (floor, Doppel, floor, Doppel…), medians.")
  print("")

  let workloads = options.stubCounts.map(Workload.init(stubCount:))
  let backends = workloads.map(makeBackend)
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

  if options.doors.contains("delayed"), options.profile == nil, let workload = workloads.first {
    FloorURLProtocol.install(workload)
    let comparison = delayedComparison(
      workload, floorSession: floorSession, backend: makeDelayedBackend(workload), width: options.width,
      options: options)
    let outcome = await measure(comparison, rounds: options.rounds)
    progress(
      "URLSession delayed, \(options.width) in flight: Doppel \(grouped(outcome.doppelRate)) req/s, "
        + "floor \(grouped(outcome.floorRate)) req/s, ratio \(twoDecimals(outcome.ratio))")
    outcomes.append(outcome)
  }

  var memoryFailures = 0
  var memoryLine: String?
  if options.doors.contains("test"), options.profile == nil {
    let workload = Workload(stubCount: 20)
    FloorURLProtocol.install(workload)
    let outcome = await measure(testCostComparison(workload, options: options), rounds: options.rounds)
    progress(
      "A test (backend, 20 stubs, session, 5 requests, verify): Doppel \(grouped(outcome.doppelRate)) tests/s, "
        + "floor \(grouped(outcome.floorRate)) tests/s, ratio \(twoDecimals(outcome.ratio))")
    outcomes.append(outcome)
    let memory = await testCostMemory(workload, total: options.memoryCheckTests)
    memoryFailures = memory.failures
    let growth = Double(memory.atEnd - memory.afterFirst) / 1024
    memoryLine =
      "Memory over \(grouped(Double(options.memoryCheckTests))) test cases: "
      + "\(memory.afterFirst / 1024) MB after the first \(grouped(Double(min(1_000, max(options.memoryCheckTests / 10, 1))))), "
      + "\(memory.atEnd / 1024) MB at the end (\(growth >= 0 ? "+" : "")\(twoDecimals(growth)) MB; goal: within 5 MB): "
      + (abs(growth) <= 5 ? "met" : "**not met**")
  }

  if !outcomes.isEmpty { print(table(outcomes)) }
  if let memoryLine { print(memoryLine) }
  var failures = profiledFailures + memoryFailures + outcomes.reduce(0) { $0 + $1.failures }
  if options.doors.contains("loading"), options.profile == nil {
    print("")
    failures += Loading.run(count: options.loadingCount)
  }
  #if OpenAPI
    if options.doors.contains("openapi") {
      failures += await Validation.run(options: options)
    }
  #endif
  print("")
  if failures == 0 {
    print("Every answer was checked (status 200, \(Workload.bodySize)-byte body): no failures.")
  } else {
    print("FAILED: \(failures) requests got a wrong answer or an error. First ones:")
    for line in failureLog.withLock({ $0 }) { print("  \(line)") }
  }
  return failures
}
