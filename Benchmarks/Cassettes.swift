import Doppel
import Foundation

/// How long HAR files that browsers wrote take to become a manifest, as `doppel convert` does:
/// read the cassette, redact it as recording does, and write one stub per distinct request. The
/// files are real ones no one here wrote, found in `$DOPPEL_REAL_HARS` (a folder of `.har` files;
/// none are kept in this repository); without it the door says so and measures nothing.
enum Cassettes {
  /// The goal: a megabyte of HAR in at most this many seconds, all files together (a browser's
  /// HAR of 10 MB in 10 s).
  static let goalSecondsPerMegabyte = 1.0

  /// Times each file `rounds` times (the median is shown), prints a table with the verdict, and
  /// returns how many files could not be converted.
  static func run(rounds: Int) -> Int {
    guard let folder = ProcessInfo.processInfo.environment["DOPPEL_REAL_HARS"] else {
      print("HAR files to manifests: set DOPPEL_REAL_HARS to a folder of .har files to measure them.")
      return 0
    }
    let root = URL(fileURLWithPath: folder)
    let files =
      ((try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? [])
      .filter { $0.pathExtension.lowercased() == "har" }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
    print(
      "HAR files to manifests (read, redact, convert; median of \(rounds); goal: ≤ \(twoDecimals(goalSecondsPerMegabyte)) s a megabyte, all together):"
    )
    print("")
    print("| file | size | entries | read | redacted and converted | s/MB |")
    print("|---|---|---|---|---|---|")
    var failures = 0
    var totalBytes = 0
    var totalSeconds = 0.0
    for file in files {
      guard let data = try? Data(contentsOf: file) else { continue }
      var reads: [Double] = []
      var converts: [Double] = []
      var entries = 0
      var failed: String?
      for _ in 0..<rounds {
        let began = Date()
        let cassette: Cassette
        do {
          cassette = try Cassette(data: data, file: file.lastPathComponent)
        } catch {
          failed = "\(error)"
          break
        }
        let read = Date()
        do {
          _ = try CassetteManifest(cassette: cassette, source: file.lastPathComponent, bodyFolder: "fixtures")
        } catch {
          failed = "\(error)"
          break
        }
        reads.append(read.timeIntervalSince(began))
        converts.append(Date().timeIntervalSince(read))
        entries = cassette.entries.count
      }
      let megabytes = Double(data.count) / 1_000_000
      if let failed {
        failures += 1
        print("| \(file.lastPathComponent) | \(twoDecimals(megabytes)) MB | — | failed: \(failed.prefix(200)) | | |")
        continue
      }
      let seconds = median(reads) + median(converts)
      let perMegabyte = seconds / max(megabytes, 0.001)
      totalBytes += data.count
      totalSeconds += seconds
      print(
        "| \(file.lastPathComponent) | \(twoDecimals(megabytes)) MB | \(entries) | \(twoDecimals(median(reads))) s | \(twoDecimals(median(converts))) s | \(twoDecimals(perMegabyte)) |"
      )
    }
    if totalBytes > 0 {
      let perMegabyte = totalSeconds / (Double(totalBytes) / 1_000_000)
      print("")
      print(
        "All \(files.count) files: \(twoDecimals(Double(totalBytes) / 1_000_000)) MB in \(twoDecimals(totalSeconds)) s, \(twoDecimals(perMegabyte)) s/MB: goal \(perMegabyte <= goalSecondsPerMegabyte ? "met" : "NOT met")."
      )
    }
    return failures
  }
}
