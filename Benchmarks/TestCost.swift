import Doppel
import Foundation

/// The cost of a test, the way a suite pays it: each "request" of this comparison is one whole
/// test case. Doppel's side makes a backend, 20 stubs and its session, sends 5 requests, verifies
/// and releases everything; the floor makes a fresh ephemeral session over the minimal URLProtocol
/// (floor 1, answering from its prebuilt table of the same 20 URLs) and sends the same 5 requests.
/// Install `workload` (20 stubs) in `floorTable` before measuring.
///
/// `.sequential` runs the test cases one after another; `.inFlight(options.testCases)` starts them
/// all at once, as Swift Testing runs a parameterized test's cases (the shape of the trait's
/// measurement in `TestCostTests`, without Swift Testing).
func testCostComparison(_ workload: Workload, options: Options, mode: Mode = .sequential) -> Comparison {
  Comparison(
    door: "a test", stubs: workload.stubCount, mode: mode, requests: options.testCases,
    warmUp: max(options.testCases / 10, 20), goal: 0.9,
    floor: Contender(
      name: "fresh session, floor 1",
      answer: { index in
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [FloorURLProtocol.self]
        return await fiveRequests(URLSession(configuration: configuration), workload, test: index, name: "floor")
      }),
    doppel: Contender(
      name: "Doppel test",
      answer: { index in
        let backend = Backend(issueReporter: .ignore)
        for url in workload.urls { backend.stub(.get(url), .data(workload.body)) }
        let correct = await fiveRequests(backend.session, workload, test: index, name: "Doppel test")
        return correct && backend.verify().isEmpty && backend.requests.count == 5
      }))
}

/// The five requests of test `test`, checked.
private func fiveRequests(_ session: URLSession, _ workload: Workload, test: Int, name: String) async -> Bool {
  for request in 0..<5 {
    do {
      let (data, response) = try await session.data(for: workload.request(test * 5 + request))
      guard Workload.isCorrect(data, response) else {
        recordFailure(name, "test \(test): wrong answer (\(data.count) bytes)")
        return false
      }
    } catch {
      recordFailure(name, "test \(test): \(error)")
      return false
    }
  }
  return true
}

/// Runs `total` Doppel test cases one after another and returns the resident memory after the
/// first 1,000 (or a tenth, when fewer) and at the end, in KB: a suite's memory must stay flat.
func testCostMemory(_ workload: Workload, total: Int) async -> (afterFirst: Int, atEnd: Int, failures: Int) {
  let first = min(1_000, max(total / 10, 1))
  let test = testCostComparison(workload, options: Options()).doppel
  var failures = 0
  var afterFirst = 0
  let numbersBefore = BackendRegistry.shared.highestNumber
  for index in 0..<total {
    if await !test.answer(index) { failures += 1 }
    if index + 1 == first { afterFirst = residentKilobytes() }
  }
  // Each test case makes a backend and a session, two routes (each a URLProtocol class): without
  // reuse the numbers (and the classes) would grow by two per test case; with it, by a handful.
  let numbersTaken = Int(BackendRegistry.shared.highestNumber &- numbersBefore)
  if numbersTaken >= max(total / 10, 100) {
    recordFailure("memory", "\(total) test cases took \(numbersTaken) route numbers: routes are not reused")
    failures += 1
  }
  return (afterFirst, residentKilobytes(), failures)
}

/// The process's resident set size in KB (Linux: /proc/self/status; 0 elsewhere).
func residentKilobytes() -> Int {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
  else { return 0 }
  return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
