import Doppel
import Foundation

/// How long a big manifest or cassette takes to load into a backend: the input is generated in a
/// temporary folder (never committed), then read and registered as `doppel serve` would.
enum Loading {
  /// The time every input of the full size must load within.
  static let goalSeconds = 3.0

  /// One input to load.
  struct Case {
    let name: String
    /// Loads the input into a backend; returns the backend and what was read, so that freeing
    /// them happens after the clock stops (a server keeps them as long as it runs).
    let load: () throws -> (backend: Backend, input: Any)
  }

  /// Generates the inputs for `count` stubs (or entries), times each load `rounds` times (the
  /// median counts), prints a table, and returns how many loads failed.
  ///
  /// For profiling one load: `DOPPEL_LOADING_DIR=folder` keeps the inputs in `folder` and reuses
  /// those already there (delete them when changing the count), and `DOPPEL_LOADING_CASE=text`
  /// loads only the inputs whose name contains `text`.
  static func run(count: Int, rounds: Int = 1) -> Int {
    let env = ProcessInfo.processInfo.environment
    let kept = env["DOPPEL_LOADING_DIR"]
    let folder =
      kept.map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("doppel-loading-\(getpid())")
    defer { if kept == nil { try? FileManager.default.removeItem(at: folder) } }
    var failures = 0
    var rows: [String] = []
    print("Loading \(grouped(Double(count))) stubs or entries (goal: under \(Int(goalSeconds)) s each at 50,000):")
    do {
      for loading in try cases(count: count, in: folder)
      where env["DOPPEL_LOADING_CASE"].map({ loading.name.contains($0) }) ?? true {
        var times: [Double] = []
        var cpuTimes: [Double] = []
        var failed: String?
        for _ in 0..<max(rounds, 1) {
          let start = ContinuousClock.now
          let cpuStart = cpuSeconds()
          var loaded: (backend: Backend, input: Any)?
          do {
            loaded = try loading.load()
          } catch {
            failed = "\(error)"
            break
          }
          times.append((ContinuousClock.now - start) / .seconds(1))
          cpuTimes.append(cpuSeconds() - cpuStart)
          if loaded?.backend.stubs.count != count { failed = "\(loaded?.backend.stubs.count ?? 0) stubs, not \(count)" }
          loaded = nil
        }
        if let failed {
          failures += 1
          rows.append("| \(loading.name) | failed: \(failed) |")
          continue
        }
        let seconds = median(times)
        let cpu = median(cpuTimes)
        recordFigure("loading \(grouped(Double(count))): \(loading.name)", seconds, better: .lower, unit: "s")
        progress("loading \(loading.name): \(twoDecimals(seconds)) s (CPU \(twoDecimals(cpu)) s)")
        rows.append("| \(loading.name) | \(twoDecimals(seconds)) s | \(twoDecimals(cpu)) s |")
      }
    } catch {
      print("Could not generate the inputs: \(error)")
      return 1
    }
    print("")
    print("| input | load time | CPU time |")
    print("|---|---|---|")
    for row in rows { print(row) }
    print("")
    return failures
  }

  private static func cases(count: Int, in folder: URL) throws -> [Case] {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for index in 0..<fixtureFiles {
      try Data(body(index).utf8).write(to: folder.appendingPathComponent("body\(index).json"))
    }
    var result: [Case] = []
    for (inline, bodies) in [(false, "file bodies"), (true, "1 KB inline JSON bodies")] {
      for (pretty, layout) in [(false, "minified"), (true, "pretty")] {
        let url = folder.appendingPathComponent("\(layout)-\(inline ? "inline" : "file").json")
        if !FileManager.default.fileExists(atPath: url.path) {
          try manifest(count: count, inline: inline, pretty: pretty).write(to: url)
        }
        result.append(
          Case(name: "manifest, \(layout), \(bodies)") {
            let manifest = try Manifest.load(contentsOf: url)
            return (try Backend(manifest: manifest, scenario: .base, issueReporter: .ignore), manifest)
          })
      }
    }
    let har = folder.appendingPathComponent("entries.har")
    if !FileManager.default.fileExists(atPath: har.path) { try cassette(count: count).write(to: har) }
    result.append(
      Case(name: "HAR cassette, pretty, 1 KB bodies") {
        let backend = Backend(issueReporter: .ignore)
        let cassette = try Cassette.load(from: har)
        try backend.replay(cassette)
        return (backend, cassette)
      })
    return result
  }

  private static let fixtureFiles = 100

  /// CPU time this process has used, in seconds: on a machine shared with other work, what the
  /// load itself cost, whatever else was running.
  private static func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// About 1 KB of JSON, different for each `index`, with a multi-byte character in it.
  private static func body(_ index: Int) -> String {
    let items = (0..<12).map { "{\"id\":\(index * 12 + $0),\"name\":\"Café n°\($0)\",\"tags\":[\"a\",\"b\",\"c\"]}" }
    return "{\"items\":[" + items.joined(separator: ",") + "]}"
  }

  private static func manifest(count: Int, inline: Bool, pretty: Bool) throws -> Data {
    var stubs: [Any] = []
    stubs.reserveCapacity(count)
    for index in 0..<count {
      let response: [String: Any] =
        inline
        ? ["status": 200, "json": try JSONSerialization.jsonObject(with: Data(body(index).utf8))]
        : ["status": 200, "file": "body\(index % fixtureFiles).json"]
      stubs.append(["request": "GET https://api.example.com/items/\(index)", "response": response])
    }
    return try JSONSerialization.data(
      withJSONObject: ["stubs": stubs], options: pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys])
  }

  private static func cassette(count: Int) throws -> Data {
    let entries = (0..<count).map { index in
      HAREntry(
        startedDateTime: "2024-05-01T10:00:00.000Z", time: 12.5,
        request: HARRequest(
          method: "GET", url: "https://api.example.com/items/\(index)",
          headers: [HARNameValue(name: "Accept", value: "application/json")]),
        response: HARResponse(
          status: 200, statusText: "OK",
          headers: [HARNameValue(name: "Content-Type", value: "application/json")],
          content: HARContent(size: 1024, mimeType: "application/json", text: body(index))))
    }
    return try Cassette(entries: entries).encoded(redaction: .disabled)
  }
}
