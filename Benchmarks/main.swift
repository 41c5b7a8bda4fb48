// Doppel's throughput against floors measured in the same run, interleaved, as ratios.
//
//   swift run -c release Benchmarks            full run (10,000 URLSession / 200,000 in-memory
//                                               requests per run, 5 rounds, medians)
//   swift run -c release Benchmarks --quick    smoke run
//   swift run -c release Benchmarks --help     every option
//
// Exits with status 1 when any request got a wrong answer or failed, 3 when every answer was
// right but a figure slipped past the margin of the baseline given with --baseline.

import Foundation

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let (failures, slips) = await runBenchmarks(options)
exit(failures > 0 ? 1 : slips > 0 ? 3 : 0)
