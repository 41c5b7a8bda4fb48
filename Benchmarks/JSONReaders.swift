#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation

  /// Whether Doppel needs two JSON parsers: the positioned parser every module shares (manifests,
  /// cassettes, documents: it keeps each value's line and column for error messages) and the tape
  /// parser the OpenAPI checker reads message bodies with (no positions; it gives up on what is
  /// not plain and leaves it to the positioned parser). Each body is parsed into what the checker
  /// reads, both ways, interleaved: the tape parser alone, and the positioned parser followed by
  /// the conversion the checker would otherwise need. The third reader the code base once counted,
  /// `HARTreeReader`, parses nothing: it maps the positioned parser's tree onto the HAR types.
  enum JSONReaders {
    /// One body to parse: what it is, its bytes, and how many parses make a timed run.
    struct Body {
      let name: String
      let bytes: [UInt8]
      let parses: Int
    }

    static func bodies(quick: Bool) -> [Body] {
      let breed = Array(Validation.breedText.utf8)
      func array(_ count: Int) -> [UInt8] {
        Array(("[" + Array(repeating: Validation.breedText, count: count).joined(separator: ",") + "]").utf8)
      }
      let scale = quick ? 10 : 1
      return [
        Body(name: "one breed (\(breed.count) B)", bytes: breed, parses: 20_000 / scale),
        Body(name: "100 breeds (\(array(100).count / 1_000) KB)", bytes: array(100), parses: 200 / scale),
        Body(
          name: "10,000 breeds (\(array(10_000).count / 1_000_000) MB)", bytes: array(10_000), parses: max(2 / scale, 1)
        ),
      ]
    }

    /// Seconds per parse of `body` by `parse`, and whether every parse gave a tape.
    static func timed(_ body: Body, _ parse: ([UInt8]) -> JSONTape?) -> (seconds: Double, ok: Bool) {
      var ok = true
      let start = ContinuousClock.now
      for _ in 0..<body.parses where parse(body.bytes) == nil { ok = false }
      return ((ContinuousClock.now - start) / .seconds(1) / Double(body.parses), ok)
    }

    static func positioned(_ bytes: [UInt8]) -> JSONTape? {
      guard let tree = try? PositionedJSONParser.parse(bytes) else { return nil }
      return JSONTape(tree.jsonValue)
    }

    /// Measures, prints a table, and returns the number of failures (a body either parser
    /// refused, or the two reading different values).
    static func run(options: Options) -> Int {
      var failures = 0
      var rows: [String] = []
      for body in bodies(quick: options.quick) {
        if FastJSON.parse(body.bytes) != (try? PositionedJSONParser.parse(body.bytes))?.jsonValue {
          print("JSON readers: the two parsers read \(body.name) differently")
          failures += 1
        }
        _ = timed(body, FastJSON.tape)
        _ = timed(body, positioned)
        var tape: [Double] = []
        var tree: [Double] = []
        for _ in 0..<options.rounds {
          let fast = timed(body, FastJSON.tape)
          let slow = timed(body, positioned)
          if !fast.ok || !slow.ok { failures += 1 }
          tape.append(fast.seconds)
          tree.append(slow.seconds)
        }
        let ratios = zip(tree, tape).map { $0 / $1 }
        rows.append(
          "| \(body.name) | \(twoDecimals(median(tape) * 1e6)) | \(twoDecimals(median(tree) * 1e6)) | "
            + "\(twoDecimals(median(ratios)))× (rounds \(twoDecimals(ratios.min() ?? .nan))–\(twoDecimals(ratios.max() ?? .nan))) |"
        )
      }
      progress("JSON readers measured")
      print("")
      print(
        "JSON readers: a body parsed into what the OpenAPI checker reads (\(options.rounds) interleaved rounds, medians):"
      )
      print("")
      print("| body | tape parser, µs | positioned parser and conversion, µs | positioned ÷ tape |")
      print("|---|---|---|---|")
      for row in rows { print(row) }
      return failures
    }
  }
#endif
