import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// The first few wrong answers, kept so a failing run says what went wrong.
let failureLog = Guarded<[String]>([])

/// Records a wrong answer (only the first few are kept).
func recordFailure(_ contender: String, _ what: String) {
  failureLog.withLock { log in
    if log.count < 5 { log.append("\(contender): \(what)") }
  }
}

/// A backend stubbing every URL of `workload` with its 1 KB body.
func makeBackend(_ workload: Workload) -> Backend {
  let backend = Backend(issueReporter: .ignore)
  for url in workload.urls { backend.stub(.get(url), .data(workload.body)) }
  return backend
}

/// A contender that sends `workload`'s requests through `session`.
func sessionContender(
  _ name: String, _ session: URLSession, _ workload: Workload, reset: @escaping @Sendable () -> Void = {}
) -> Contender {
  Contender(
    name: name,
    answer: { index in
      do {
        let (data, response) = try await session.data(for: workload.request(index))
        if Workload.isCorrect(data, response) { return true }
        recordFailure(name, "request \(index): wrong answer (\(data.count) bytes, \(response))")
      } catch {
        recordFailure(name, "request \(index): \(error)")
      }
      return false
    },
    reset: reset)
}

/// A contender that asks an in-memory door for `workload`'s requests.
func inMemoryContender(
  _ name: String, _ door: @escaping InMemoryDoor, _ workload: Workload,
  reset: @escaping @Sendable () -> Void = {}
) -> Contender {
  Contender(
    name: name,
    answer: { index in
      do {
        let (data, response) = try await door(workload.request(index))
        if Workload.isCorrect(data, response) { return true }
        recordFailure(name, "request \(index): wrong answer (\(data.count) bytes, status \(response.statusCode))")
      } catch {
        recordFailure(name, "request \(index): \(error)")
      }
      return false
    },
    reset: reset)
}

/// Floor names as shown in the table.
enum FloorName {
  static let urlProtocol = "minimal URLProtocol"
  static let closure = "in-memory closure"
  static let oneStub = "Doppel, 1 stub"
}

/// The warm-ups below ask every URL at least once: the floors build all their answers before they
/// are timed, and Doppel builds a stub's answer (headers, `HTTPURLResponse`) on its first use.

/// The URLSession comparison for one stub count and mode: floor 1 against `backend.session`.
/// Floor 1 answers from the global `floorTable`, so install `workload` there before measuring.
func sessionComparison(
  _ workload: Workload, floorSession: URLSession, backend: Backend, mode: Mode, options: Options
) -> Comparison {
  Comparison(
    door: "URLSession", stubs: workload.stubCount, mode: mode, requests: options.sessionRequests,
    warmUp: max(options.sessionWarmUp, workload.stubCount), goal: 0.9,
    floor: sessionContender(FloorName.urlProtocol, floorSession, workload),
    doppel: sessionContender("Doppel session", backend.session, workload, reset: { backend.clearJournal() }))
}

/// The in-memory comparison for one stub count and mode: floor 2 against `backend.respond(to:)`.
/// Goal (issue 17): at least half the floor.
func inMemoryComparison(
  _ workload: Workload, backend: Backend, mode: Mode, options: Options
) -> Comparison {
  Comparison(
    door: "respond(to:)", stubs: workload.stubCount, mode: mode, requests: options.memoryRequests,
    warmUp: max(options.memoryWarmUp, workload.stubCount), goal: 0.5,
    floor: inMemoryContender(FloorName.closure, makeClosureFloor(workload), workload),
    doppel: inMemoryContender(
      "Doppel respond(to:)", { try await backend.respond(to: $0) }, workload,
      reset: { backend.clearJournal() }))
}

/// How the in-memory door scales with the stub count: Doppel with `workload.stubCount` stubs
/// against Doppel with 1 stub, sequentially. The ratio is the 1-stub cost over this one; the goal
/// (at most 1.5 times the 1-stub cost) is a ratio of 1 / 1.5.
func scalingComparison(
  _ workload: Workload, backend: Backend, oneStub: Workload, oneStubBackend: Backend, options: Options
) -> Comparison {
  Comparison(
    door: "respond(to:) vs 1 stub", stubs: workload.stubCount, mode: .sequential, requests: options.memoryRequests,
    warmUp: max(options.memoryWarmUp, workload.stubCount), goal: 1 / 1.5,
    floor: inMemoryContender(
      FloorName.oneStub, { try await oneStubBackend.respond(to: $0) }, oneStub,
      reset: { oneStubBackend.clearJournal() }),
    doppel: inMemoryContender(
      "Doppel respond(to:)", { try await backend.respond(to: $0) }, workload, reset: { backend.clearJournal() }))
}

/// The same growth for the closure floor (no goal: a reference): the closure with
/// `workload.stubCount` answers against the closure with 1, both sending as many distinct request
/// objects. What any door that looks a URL up in a table of that size pays.
func closureScalingComparison(_ workload: Workload, oneStub: Workload, options: Options) -> Comparison {
  Comparison(
    door: "closure vs 1 answer", stubs: workload.stubCount, mode: .sequential, requests: options.memoryRequests,
    warmUp: max(options.memoryWarmUp, workload.stubCount), goal: 0,
    floor: inMemoryContender("in-memory closure, 1 answer", makeClosureFloor(oneStub), oneStub),
    doppel: inMemoryContender(FloorName.closure, makeClosureFloor(workload), workload))
}

/// The least a journal adds to floor 2 (no goal: a reference): floor 2 that also records each
/// request's method, URL, headers and body, against floor 2 alone, sequentially. The point 3 goal
/// keeps Doppel's journal on the path; this row shows how much of the gap any journal costs.
func journalingClosureComparison(_ workload: Workload, options: Options) -> Comparison {
  let journaling = makeJournalingClosureFloor(workload)
  return Comparison(
    door: "journaling closure", stubs: workload.stubCount, mode: .sequential, requests: options.memoryRequests,
    warmUp: max(options.memoryWarmUp, workload.stubCount), goal: 0,
    floor: inMemoryContender(FloorName.closure, makeClosureFloor(workload), workload),
    doppel: inMemoryContender("journaling closure", journaling.door, workload, reset: journaling.reset))
}

/// Delayed answers under load: 20,000 (twice the URLSession count) requests at 64 in flight, each
/// answer delayed by 1 µs so it goes through the clock and the suspend/resume hop back onto
/// URLSession's queue, against the URLProtocol floor. A stress check as much as a speed figure: every
/// body is verified. Goal: at least 0.6 times the floor (the hop is one `async` onto the task's work
/// queue; the suspend/resume hop it replaced cost about two thirds of the throughput).
func delayedComparison(
  _ workload: Workload, floorSession: URLSession, backend: Backend, width: Int, options: Options
) -> Comparison {
  Comparison(
    door: "URLSession, delayed", stubs: workload.stubCount, mode: .inFlight(width),
    requests: options.sessionRequests * 2, warmUp: options.sessionWarmUp, goal: 0.6,
    floor: sessionContender(FloorName.urlProtocol, floorSession, workload),
    doppel: sessionContender("Doppel delayed", backend.session, workload, reset: { backend.clearJournal() }))
}

/// A backend answering every URL of `workload` after 1 µs on the continuous clock.
func makeDelayedBackend(_ workload: Workload) -> Backend {
  let backend = Backend(issueReporter: .ignore)
  for url in workload.urls { backend.stub(.get(url), Response.data(workload.body).delayed(by: .microseconds(1))) }
  return backend
}
