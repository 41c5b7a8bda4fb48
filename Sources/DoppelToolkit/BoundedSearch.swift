import Foundation

/// What searching a text with a regular expression found, when the search may give up.
package enum SearchOutcome: Sendable, Equatable {
  case found
  case notFound
  /// The search ran past ``NSRegularExpression/searchStepLimit`` and was stopped: the pattern
  /// backtracks too much on this text (nested quantifiers such as `(a+)+` do so exponentially).
  case gaveUp
  /// The search was stopped, or not started, because the searches made for one request together
  /// spent ``SearchBudget/requestStepReports`` (see ``SearchBudget``).
  case outOfBudget
}

/// The steps the regular-expression and glob searches made for one request may take together:
/// every stub tried for a request (and its near-miss report), or every journal entry that a filter
/// of the admin API's `GET /__doppel/requests` scans.
///
/// ``NSRegularExpression/searchStepLimit`` bounds one search; without a budget across them, a
/// request that makes each of 100 regular-expression stubs give up costs 100 searches at the limit
/// (seconds), and a glob filter over the journal one per entry (minutes). A search made while a
/// budget is in force stops when the budget is spent and answers ``SearchOutcome/outOfBudget``:
/// the stub does not match, the journal filter is refused.
///
/// The budget lives on the thread for the duration of ``measure(_:)``, which is synchronous (as
/// matching is): starting one allocates nothing, and a request whose stubs hold no pattern never
/// reads it.
///
/// Public only to the package's modules (`@_spi(DoppelInternals)`), so that the body of
/// ``measure(_:)`` is serialized for them to specialize: see `Locked`.
@_spi(DoppelInternals) public struct SearchBudget {
  /// How many of ICU's progress reports (each about 10,000 matching steps) the searches for one
  /// request may take together: 1,000, about 10 million steps, 4 searches at the per-search limit.
  /// On this project's 2-core Linux machine that is 100–160 ms. A pattern that does not backtrack
  /// searches a path or header of ordinary length in less than one report, which costs nothing.
  @usableFromInline static let requestStepReports = 1_000

  /// The budget as messages name it.
  package static let described = "about 10 million steps for regular expressions and globs per request"

  /// The progress reports left.
  package var remaining = SearchBudget.requestStepReports
  /// Whether a search ran out of the budget.
  @usableFromInline package var ranOut = false

  @usableFromInline init() {}

  /// Runs `body` with a fresh budget in force on this thread for every search it makes; returns
  /// what it returned and whether a search ran out of the budget. The budget in force before is
  /// restored afterwards.
  @inlinable
  package static func measure<Result>(_ body: () throws -> Result) rethrows -> (result: Result, ranOut: Bool) {
    let key = SearchBudgetKey.key
    let previous = pthread_getspecific(key)
    var budget = SearchBudget()
    let result = try withUnsafeMutablePointer(to: &budget) { pointer in
      pthread_setspecific(key, pointer)
      defer { pthread_setspecific(key, previous) }
      return try body()
    }
    return (result, budget.ranOut)
  }

  /// The budget in force on this thread, if any.
  package static var current: UnsafeMutablePointer<SearchBudget>? {
    pthread_getspecific(SearchBudgetKey.key)?.assumingMemoryBound(to: SearchBudget.self)
  }
}

/// The thread-specific slot that holds the budget in force (a pointer to ``SearchBudget/measure(_:)``'s
/// local value, valid only while it runs).
@usableFromInline
enum SearchBudgetKey {
  @usableFromInline static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()
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

  /// The message that explains ``SearchOutcome/outOfBudget`` for a pattern (`the regular
  /// expression /…/`), with what follows from it (`the stub is treated as not matching`).
  package static func outOfBudgetExplanation(_ pattern: String, so consequence: String) -> String {
    "\(pattern) was not searched to the end, so \(consequence): the searches for this request spent their budget (\(SearchBudget.described)); simplify the patterns that backtrack (nested quantifiers such as (a+)+, globs with many *)"
  }

  /// Searches `text` for a match, giving up after ``searchStepLimit`` progress reports, or sooner
  /// when a ``SearchBudget`` is in force and runs out.
  package func search(_ text: String) -> SearchOutcome {
    let budget = SearchBudget.current
    var limit = Self.searchStepLimit
    if let budget {
      guard budget.pointee.remaining > 0 else {
        budget.pointee.ranOut = true
        return .outOfBudget
      }
      limit = min(limit, budget.pointee.remaining)
    }
    let limitedByBudget = limit < Self.searchStepLimit
    var outcome = SearchOutcome.notFound
    var reports = 0
    defer {
      if let budget {
        budget.pointee.remaining -= reports
        if outcome == .outOfBudget { budget.pointee.ranOut = true }
      }
    }
    enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) {
      match, flags, stop in
      if match != nil {
        outcome = .found
        stop.pointee = true
      } else if flags.contains(.progress) {
        reports += 1
        if reports >= limit {
          outcome = limitedByBudget ? .outOfBudget : .gaveUp
          stop.pointee = true
        }
      }
    }
    return outcome
  }
}
