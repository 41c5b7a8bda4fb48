import Doppel
import Foundation

/// How the secret scanner's time grows with hostile input: each shape (text an attacker controls
/// in a request the stub server journals, reports or records) is redacted at two sizes, the second
/// twice the first, and the ratio of their times is printed. Time that grows with the size gives
/// about 2; one that grows with its square, about 4. A ratio above ``worstRatio`` counts as a
/// failure of the run.
enum Secrets {
  /// The most the time may grow when the input doubles: room for noise above 2, well below the 4
  /// of a quadratic pattern.
  static let worstRatio = 3.0

  /// The hostile shapes: a unit that repeats, at `count` repeats.
  static let shapes: [(name: String, make: @Sendable (Int) -> String)] = [
    ("CDATA sections opened", { String(repeating: "<a><![CDATA[", count: $0) }),
    ("one CDATA section never closed", { "<password><![CDATA[" + String(repeating: "x]]", count: $0) }),
    (
      "multipart parts named password",
      { String(repeating: "--b\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nx\r\n", count: $0) }
    ),
    (
      "multipart headers never ended",
      { String(repeating: "--b\r\nContent-Disposition: form-data; name=\"", count: $0) }
    ),
    ("form pairs", { String(repeating: "a=b&", count: $0) }),
    ("XML elements named password, nested", { String(repeating: "<password>", count: $0) }),
    ("XML attributes never closed", { String(repeating: "<a token=\"", count: $0) }),
    ("quoted pairs never closed", { String(repeating: "\"token\": \"", count: $0) }),
    ("URLs with user information", { String(repeating: "https://a:", count: $0) }),
    ("one long high-entropy value", { (0..<$0).map { String($0, radix: 36) }.joined() }),
    ("JSON objects never closed", { "{" + String(repeating: "\"a\":{", count: $0) }),
    ("key prefixes", { String(repeating: "sk_live_", count: $0) }),
    ("private key headers", { String(repeating: "-----BEGIN PRIVATE KEY-----", count: $0) }),
  ]

  /// Times every shape at `repeats` and twice that (the best of `rounds` runs each), prints a
  /// table, and returns how many grew faster than ``worstRatio``.
  static func run(repeats: Int, rounds: Int) -> Int {
    print(
      "Secret scanning of hostile text (Redaction.default, \(repeats) and \(repeats * 2) repeats, best of \(rounds)):")
    print("| Shape | Bytes | Time | Twice the bytes | Ratio |")
    print("|---|---:|---:|---:|---:|")
    var failures = 0
    for shape in shapes {
      let small = shape.make(repeats)
      let large = shape.make(repeats * 2)
      var smallTime = best(of: rounds) { _ = Redaction.default.redact(line: small) }
      var largeTime = best(of: rounds) { _ = Redaction.default.redact(line: large) }
      var ratio = largeTime / max(smallTime, 1e-9)
      if ratio > worstRatio {
        // Once more, with twice the rounds, before calling it a failure: on a busy machine (CI
        // running beside other work) one slow round of the larger input alone can pass 3.
        smallTime = min(smallTime, best(of: rounds * 2) { _ = Redaction.default.redact(line: small) })
        largeTime = min(largeTime, best(of: rounds * 2) { _ = Redaction.default.redact(line: large) })
        ratio = largeTime / max(smallTime, 1e-9)
      }
      let met = ratio <= worstRatio
      if !met { failures += 1 }
      print(
        "| \(shape.name) | \(small.utf8.count) | \(milliseconds(smallTime)) | \(milliseconds(largeTime)) | "
          + "\(String(format: "%.2f", ratio))×\(met ? "" : " **grows faster than the input**") |")
    }
    return failures
  }

  /// The shortest of `rounds` runs of `work`, in seconds.
  private static func best(of rounds: Int, _ work: () -> Void) -> Double {
    var shortest = Double.infinity
    for _ in 0..<max(rounds, 1) {
      let start = ContinuousClock.now
      work()
      let elapsed = ContinuousClock.now - start
      shortest = min(shortest, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    return shortest
  }

  private static func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1_000) }
}
