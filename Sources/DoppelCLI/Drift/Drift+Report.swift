#if Server
  import Doppel
  import Foundation

  extension Drift {
    /// The outcome of every target, printed for people or as JSON, and the exit status it makes.
    struct Report {
      let against: URL
      let targets: [Target]
      let outcomes: [Outcome]

      private func count(_ predicate: (Outcome) -> Bool) -> Int { outcomes.filter(predicate).count }
      var drifted: Int { count { if case .drifted = $0 { true } else { false } } }
      var skipped: Int { count { if case .skipped = $0 { true } else { false } } }
      var failed: Int { count { if case .failed = $0 { true } else { false } } }
      var unchanged: Int { count { if case .unchanged = $0 { true } else { false } } }

      /// `nil` (0) when nothing drifted or failed, 1 when an entry drifted, else 2 when one could
      /// not be sent.
      var exitStatus: Int32? { drifted > 0 ? 1 : failed > 0 ? 2 : nil }

      /// For each drifted, failed or skipped target, `file:line: METHOD /path` then its
      /// differences indented, or the reason on the same line; then the summary. Redacted.
      func lines() -> [String] {
        var lines: [String] = []
        for (target, outcome) in zip(targets, outcomes) {
          switch outcome {
          case .unchanged: continue
          case .drifted(let differences):
            lines.append(target.heading)
            lines += differences.map { "  " + $0.message }
          case .skipped(let reason): lines.append("\(target.heading): skipped: \(reason)")
          case .failed(let reason): lines.append("\(target.heading): failed: \(reason)")
          }
        }
        lines.append(summary)
        return lines.map { Redaction.default.redact(line: $0) }
      }

      /// `3 of 12 entries drifted, 2 skipped, 1 failed.` (the skipped and failed when there are).
      var summary: String {
        let checked = targets.count
        var text = "\(drifted) of \(checked) \(checked == 1 ? "entry" : "entries") drifted"
        if skipped > 0 { text += ", \(skipped) skipped" }
        if failed > 0 { text += ", \(failed) failed" }
        return text + " (against \(against.absoluteString))."
      }

      /// The report as one JSON object:
      ///
      /// ```text
      /// {"against": "https://…", "summary": {"entries": 12, "drifted": 3, "unchanged": 6, "skipped": 2, "failed": 1},
      ///  "entries": [{"file": "api.har", "line": 12, "method": "GET", "target": "/v1/breeds",
      ///               "outcome": "drifted", "differences": [{"kind": "typeChanged", "path": "$.age",
      ///               "recorded": "number", "live": "string", "message": "…"}]},
      ///              {…, "outcome": "skipped", "reason": "…"}]}
      /// ```
      ///
      /// Every string is redacted as the lines are.
      func json() -> String {
        func text(_ value: String?) -> JSONValue { value.map { .string(Redaction.default.redact(line: $0)) } ?? .null }
        let entries: [JSONValue] = zip(targets, outcomes).map { target, outcome in
          var entry: [String: JSONValue] = [
            "file": .string(target.file), "line": .number(Double(target.line)), "method": .string(target.method),
            "target": text(target.target),
          ]
          switch outcome {
          case .unchanged: entry["outcome"] = "unchanged"
          case .drifted(let differences):
            entry["outcome"] = "drifted"
            entry["differences"] = .array(
              differences.map { difference in
                [
                  "kind": .string(difference.kind.rawValue), "path": text(difference.path),
                  "recorded": text(difference.recorded), "live": text(difference.live),
                  "message": text(difference.message),
                ]
              })
          case .skipped(let reason):
            entry["outcome"] = "skipped"
            entry["reason"] = text(reason)
          case .failed(let reason):
            entry["outcome"] = "failed"
            entry["reason"] = text(reason)
          }
          return .object(entry)
        }
        let report: JSONValue = [
          "against": .string(against.absoluteString),
          "summary": [
            "entries": .number(Double(targets.count)), "drifted": .number(Double(drifted)),
            "unchanged": .number(Double(unchanged)), "skipped": .number(Double(skipped)),
            "failed": .number(Double(failed)),
          ],
          "entries": .array(entries),
        ]
        return report.description
      }
    }
  }
#endif
