import Foundation

/// Command-line options.
struct Options: Sendable {
  /// Requests per timed run through URLSession.
  var sessionRequests = 10_000
  /// Requests per timed run through the in-memory doors.
  var memoryRequests = 200_000
  /// Timed runs of each side per configuration, interleaved.
  var rounds = 5
  /// A smoke run (`--quick`): fewer requests, tests and parses everywhere.
  var quick = false
  /// Stub counts to measure.
  var stubCounts = [1, 10_000]
  /// Requests kept outstanding in the concurrent mode.
  var width = 64
  /// Whole test cases per timed run of the test-cost comparison.
  var testCases = 2_000
  /// Test cases run one after another to check that memory stays flat.
  var memoryCheckTests = 100_000
  /// Which doors to measure: all by default (`openapi` and `json` only with the OpenAPI trait).
  var doors: Set<String> = Options.allDoors
  #if OpenAPI
    static let allDoors: Set<String> = [
      "session", "memory", "delayed", "test", "loading", "checks", "secrets", "cassettes", "openapi", "json",
      "documents",
    ]
  #else
    static let allDoors: Set<String> = [
      "session", "memory", "delayed", "test", "loading", "checks", "secrets", "cassettes",
    ]
  #endif
  /// Stubs in each generated manifest, and entries in the generated cassette, of the loading run.
  var loadingCount = 50_000
  /// Which modes to measure: `sequential`, `inflight`, or both (the default).
  var modes: Set<String> = ["sequential", "inflight"]
  /// Measure one side alone (`doppel` or `floor`), once, without warm-up: for running under a
  /// profiler. `nil` for a normal run.
  var profile: String?
  /// A baseline file to compare this run's figures with (`--baseline`).
  var baseline: String?
  /// Where to write this run's figures as a baseline (`--write-baseline`).
  var writeBaseline: String?
  /// The arguments as given, for the baseline's description.
  var arguments: [String] = []

  var sessionWarmUp: Int { min(1_000, max(sessionRequests / 10, 50)) }
  var memoryWarmUp: Int { min(10_000, max(memoryRequests / 10, 500)) }

  static let usage = """
    usage: Benchmarks [--quick] [--requests N] [--memory-requests N] [--rounds N]
                      [--stubs N[,N…]] [--width N]
                      [--only session|memory|delayed|test|testcost|loading|checks|secrets|cassettes|openapi|json|documents]
                      [--loading N]
                      [--mode sequential|inflight] [--profile doppel|floor|checker]
                      [--tests N] [--memory-check-tests N]
                      [--baseline FILE] [--write-baseline FILE]

      --requests N         requests per run through URLSession (default 10000)
      --memory-requests N  requests per run through the in-memory doors (default 200000)
      --quick              smoke run: 500 URLSession and 5000 in-memory requests, 200 tests per run,
                           2000 stubs per loaded manifest
      --tests N            whole test cases per run of the test-cost comparison (default 2000)
      --memory-check-tests N
                           test cases run to check memory stays flat (default 100000)
      --rounds N           interleaved runs of each side per configuration (default 5)
      --stubs N[,N…]       stub counts to measure (default 1,10000)
      --width N            requests in flight in the concurrent mode (default 64)
      --only DOOR          measure only the URLSession door (session), respond(to:) (memory),
                           delayed answers through URLSession at 64 in flight (delayed), or the
                           cost of a whole test (test, or testcost), or the time big manifests and cassettes
                           take to load (loading), or the checks of what no answer shows: plain
                           URLs take the fast path, the toolchain's FoundationNetworking internals
                           are there (checks), or how the secret scanner's time grows with hostile
                           text (secrets), or the time HAR files browsers wrote take to become
                           a manifest (cassettes; a folder of them in $DOPPEL_REAL_HARS), or what
                           OpenAPI validation of a request and its
                           response costs (openapi; needs --traits OpenAPI), or the tape parser the
                           OpenAPI checker reads bodies with against the positioned parser (json; the
                           same trait), or the time published API descriptions take to their first
                           answer (documents; the same trait; ../shared/real-documents or
                           $DOPPEL_REAL_DOCUMENTS)
      --loading N          stubs per generated manifest and entries per cassette (default 50000)
      --mode MODE          measure only one request at a time (sequential) or with --width requests
                           outstanding (inflight); for --only test, inflight starts every test case
                           of a run at once (the one-after-another comparison always runs)
      --profile SIDE       one side alone (doppel or floor), one run, no warm-up (for profilers);
                           with --only openapi, checker runs the OpenAPI checker alone
      --baseline FILE      compare the figures with a baseline (Benchmarks/baseline-quick.json is
                           CI's, for --quick) and exit with status 3 when one falls past its margin
      --write-baseline FILE
                           write this run's figures as a baseline (then commit it)
    """

  /// Parses `arguments` (without the program name); prints usage and exits on bad input.
  static func parse(_ arguments: [String]) -> Options {
    var options = Options()
    // The arguments without the baseline options and their files.
    var skipNext = false
    for argument in arguments {
      if skipNext {
        skipNext = false
      } else if argument == "--baseline" || argument == "--write-baseline" {
        skipNext = true
      } else {
        options.arguments.append(argument)
      }
    }
    var rest = arguments[...]
    func fail(_ message: String) -> Never {
      FileHandle.standardError.write(Data("\(message)\n\n\(usage)\n".utf8))
      exit(2)
    }
    func number(after flag: String) -> Int {
      guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
        fail("\(flag) needs a positive number")
      }
      return value
    }
    while let argument = rest.popFirst() {
      switch argument {
      case "--requests": options.sessionRequests = number(after: argument)
      case "--memory-requests": options.memoryRequests = number(after: argument)
      case "--rounds": options.rounds = number(after: argument)
      case "--width": options.width = number(after: argument)
      case "--tests": options.testCases = number(after: argument)
      case "--memory-check-tests": options.memoryCheckTests = number(after: argument)
      case "--loading": options.loadingCount = number(after: argument)
      case "--quick":
        options.quick = true
        options.sessionRequests = 500
        options.memoryRequests = 5_000
        options.testCases = 200
        options.memoryCheckTests = 2_000
        options.loadingCount = 2_000
      case "--stubs":
        let counts = (rest.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else { fail("--stubs needs positive numbers") }
        options.stubCounts = counts
      case "--only":
        // `testcost` is another name for `test`.
        guard let door = rest.popFirst().map({ $0 == "testcost" ? "test" : $0 }), allDoors.contains(door) else {
          fail(
            "--only takes \(allDoors.sorted().joined(separator: ", ")) (openapi, json and documents need --traits OpenAPI)"
          )
        }
        options.doors = [door]
      case "--mode":
        guard let mode = rest.popFirst(), ["sequential", "inflight"].contains(mode) else {
          fail("--mode takes sequential or inflight")
        }
        options.modes = [mode]
      case "--profile":
        guard let side = rest.popFirst(), ["doppel", "floor", "checker"].contains(side) else {
          fail("--profile takes doppel, floor or checker")
        }
        options.profile = side
      case "--baseline", "--write-baseline":
        guard let path = rest.popFirst(), !path.hasPrefix("--") else { fail("\(argument) needs a file") }
        if argument == "--baseline" { options.baseline = path } else { options.writeBaseline = path }
      case "--help", "-h":
        print(usage)
        exit(0)
      default: fail("unknown argument \(argument)")
      }
    }
    return options
  }
}
