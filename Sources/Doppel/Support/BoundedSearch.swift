import Foundation

/// What searching a text with a regular expression found, when the search may give up.
package enum SearchOutcome: Sendable, Equatable {
  case found
  case notFound
  /// The search ran past ``NSRegularExpression/searchStepLimit`` and was stopped: the pattern
  /// backtracks too much on this text (nested quantifiers such as `(a+)+` do so exponentially).
  case gaveUp
}

extension NSRegularExpression {
  /// How many progress reports a search may take before it gives up. ICU reports progress about
  /// every 10,000 matching steps, so this is about 2.5 million steps: on this project's 2-core Linux
  /// machine 25–40 ms. A pattern that does not backtrack reads megabytes within it (a search of
  /// 1 MB that finds nothing takes about 100 reports; one that finds a match, none).
  ///
  /// A regular expression comes from a stub, a manifest or an OpenAPI document, and the text from
  /// the client; without a limit, a request crafted against a pattern such as `^(a+)+$` would hold
  /// a thread for hours, and the stub server matches on its event loops, which its connections
  /// share. The count is of ICU's steps, not of time, so a search gives up on the same text
  /// whatever the machine's load.
  package static let searchStepLimit = 250

  /// The message that explains ``SearchOutcome/gaveUp`` for a pattern (`the regular expression
  /// /…/`).
  package static func gaveUpExplanation(_ pattern: String) -> String {
    "\(pattern) gave up after about 2.5 million steps on this text; it backtracks too much (nested quantifiers such as (a+)+ do): simplify it"
  }

  /// Searches `text` for a match, giving up after ``searchStepLimit`` progress reports.
  package func search(_ text: String) -> SearchOutcome {
    var outcome = SearchOutcome.notFound
    var reports = 0
    enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) {
      match, flags, stop in
      if match != nil {
        outcome = .found
        stop.pointee = true
      } else if flags.contains(.progress) {
        reports += 1
        if reports >= Self.searchStepLimit {
          outcome = .gaveUp
          stop.pointee = true
        }
      }
    }
    return outcome
  }
}
