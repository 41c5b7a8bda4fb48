import Doppel
import Foundation

/// What no answer shows, so no test of behaviour can see it: that plain URLs take the fast path,
/// and (on Linux) that the toolchain still has the FoundationNetworking internals Doppel reads,
/// without which it falls back to slower or plainer deliveries. Each check prints what it found;
/// a check that fails counts as a failure of the run.
enum Checks {
  /// Plain URLs, which `URLParts` splits itself.
  static let plainURLs = ["https://api.example.com/items/7", "http://localhost:8080/"]
  /// URLs that need `URL`'s rules (a percent escape, a user, an IPv6 host, a trailing slash).
  static let urlsNeedingURLsRules = [
    "https://api.example.com/caf%C3%A9", "https://user@api.example.com/", "http://[::1]/",
    "https://api.example.com/a/",
  ]

  /// Runs every check that applies to this platform, prints the results, and returns how many
  /// failed.
  static func run() -> Int {
    print("Checks of what no answer shows:")
    var failures = 0
    func check(_ name: String, _ problems: [String]) {
      guard !problems.isEmpty else {
        print("- \(name): ok")
        return
      }
      failures += 1
      print("- \(name): **failed**")
      for problem in problems { print("  - \(problem)") }
      recordFailure("checks", "\(name): \(problems.joined(separator: " "))")
    }
    check("plain URLs take the fast path; ones needing URL's rules do not", fastPathProblems())
    check("FoundationNetworking's private fields can be read", FoundationNetworkingInternals.selfTest())
    #if canImport(FoundationNetworking)
      check("each task's work queue is found for the hop of delayed answers", workQueueProblems())
    #endif
    return failures
  }

  /// The URLs that take the wrong path: the benchmarks' own URLs and ``plainURLs`` must take the
  /// fast one, ``urlsNeedingURLsRules`` must not.
  static func fastPathProblems() -> [String] {
    let plain = plainURLs + Workload(stubCount: 3).urls
    return plain.filter { URLParts.fast($0) == nil }.map { "\($0) does not take the fast path" }
      + urlsNeedingURLsRules.filter { URLParts.fast($0) != nil }.map { "\($0) takes the fast path" }
  }

  #if canImport(FoundationNetworking)
    /// Answers that take time reach URLSession through one `async` onto the task's work queue,
    /// read from FoundationNetworking's internals; without it Doppel falls back to the slower
    /// suspend/resume hop, which no answer shows.
    static func workQueueProblems() -> [String] {
      let backend = Backend(issueReporter: .ignore)
      let session = backend.makeSession()
      defer { session.invalidateAndCancel() }
      let first = session.dataTask(with: URL(string: "https://a.com/one")!)
      let second = session.dataTask(with: URL(string: "https://a.com/two")!)
      defer {
        first.cancel()
        second.cancel()
      }
      var problems: [String] = []
      // Twice for the first task, then for another: read again from the remembered position.
      let queues = [first, first, second].map(FoundationNetworkingInternals.workQueue(of:))
      if queues.contains(where: { $0 == nil }) { problems.append("a task's work queue could not be read") }
      if let one = queues[0], let other = queues[2], one === other {
        problems.append("two tasks gave the same work queue")
      }
      return problems
    }
  #endif
}
