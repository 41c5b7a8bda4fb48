@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A compiled path template (`/users/{id}`, `/breeds/{name}.json`): literal segments compared
/// exactly, `{name}` capturing the rest of one segment between a literal prefix and suffix.
package struct PathTemplate: Sendable {
  package enum Segment: Sendable {
    case literal(String)
    case capture(name: String, prefix: String, suffix: String)
  }

  package let segments: [Segment]

  static package func isTemplate(_ path: String) -> Bool {
    // Bytes, not `contains("{")`: with Foundation imported that is NSString's search, slow for
    // something every stub's path goes through.
    path.utf8.contains { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }
  }

  static package func compile(_ path: String) -> Result<PathTemplate, DoppelError> {
    var segments: [Segment] = []
    var names = Set<String>()
    for raw in path.split(separator: "/", omittingEmptySubsequences: false) {
      let text = String(raw)
      guard let open = text.firstIndex(of: "{") else {
        if text.contains("}") { return .failure(problem(path, "a \"}\" has no opening \"{\"")) }
        segments.append(.literal(text))
        continue
      }
      guard let close = text[open...].firstIndex(of: "}") else {
        return .failure(problem(path, "a \"{\" is never closed"))
      }
      let name = String(text[text.index(after: open)..<close])
      let suffix = String(text[text.index(after: close)...])
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
        return .failure(problem(path, "\"{\(name)}\" is not a valid parameter name (use letters, digits, _ or -)"))
      }
      guard !suffix.contains("{"), !suffix.contains("}") else {
        return .failure(problem(path, "a segment may hold only one {parameter}"))
      }
      guard names.insert(name).inserted else {
        return .failure(problem(path, "the parameter {\(name)} appears twice"))
      }
      segments.append(.capture(name: name, prefix: String(text[..<open]), suffix: suffix))
    }
    return .success(PathTemplate(segments: segments))
  }

  private static func problem(_ path: String, _ reason: String) -> DoppelError {
    DoppelError.invalidStub("Invalid path template \"\(path)\" in a stub: \(reason). Write parameters as /users/{id}.")
  }

  func match(_ path: String) -> [String: String]? {
    var captures: [String: String] = [:]
    var index = 0
    for raw in path.split(separator: "/", omittingEmptySubsequences: false) {
      guard index < segments.count else { return nil }
      switch segments[index] {
      case .literal(let literal):
        guard raw == literal else { return nil }
      case .capture(let name, let prefix, let suffix):
        guard raw.count > prefix.count + suffix.count, raw.hasPrefix(prefix), raw.hasSuffix(suffix) else {
          return nil
        }
        captures[name] = String(raw.dropFirst(prefix.count).dropLast(suffix.count))
      }
      index += 1
    }
    return index == segments.count ? captures : nil
  }
}

/// A compiled regular expression. `NSRegularExpression` is immutable and documented as safe to use
/// from several threads at once.
package struct Pattern: @unchecked Sendable {
  // Safe: NSRegularExpression is immutable after creation and thread-safe for matching; every
  // other stored property is a Sendable value or the Sendable `GaveUpMemo`, which locks.
  let regex: NSRegularExpression
  let source: String
  /// Whether `source` is a glob rather than a regular expression.
  var isGlob = false
  /// The pattern as messages name it: `the regular expression /…/` or `the glob "…"`.
  var described: String { isGlob ? "the glob \"\(source)\"" : "the regular expression /\(source)/" }

  static func compile(_ pattern: String, what: String) -> Result<Pattern, DoppelError> {
    do {
      return .success(Pattern(regex: try NSRegularExpression(pattern: pattern), source: pattern))
    } catch {
      return .failure(
        DoppelError.invalidStub(
          "Invalid regular expression \"\(pattern)\" for the \(what) in a stub: \(error). Check the pattern's syntax (NSRegularExpression)."
        ))
    }
  }

  /// Compiles a glob: `*` matches within one path segment, `**` across segments, `?` one character.
  static func glob(_ glob: String) -> Result<Pattern, DoppelError> {
    compile(globRegex(glob), what: "path glob \"\(glob)\"").map {
      Pattern(regex: $0.regex, source: glob, isGlob: true)
    }
  }

  /// A glob as the text of a regular expression that matches a whole path: `*` within one path
  /// segment, `**` across segments, `?` one character, and every other character as itself,
  /// escaped by `escape` (for `NSRegularExpression` by default; a Pact file escapes for Rust's).
  static package func globRegex(
    _ glob: String, escape: (String) -> String = { NSRegularExpression.escapedPattern(for: $0) }
  ) -> String {
    var regex = "^"
    var characters = Array(glob)[...]
    while let character = characters.popFirst() {
      switch character {
      case "*":
        if characters.first == "*" {
          characters.removeFirst()
          regex += ".*"
        } else {
          regex += "[^/]*"
        }
      case "?": regex += "[^/]"
      default: regex += escape(String(character))
      }
    }
    return regex + "$"
  }

  /// The last text a search of this pattern gave up on. One request's text is searched up to three
  /// times (the match, the near-miss ranking, the report's explanation); a search that gives up
  /// spends the whole step limit, so the second and third time it is answered from here.
  private let gaveUpOn = GaveUpMemo()

  /// Searches `text`, answering at once for the text the last search gave up on.
  func search(_ text: String) -> SearchOutcome {
    if gaveUpOn.holds(text) { return .gaveUp }
    let outcome = regex.search(text)
    if outcome == .gaveUp { gaveUpOn.remember(text) }
    return outcome
  }

  /// Whether the pattern finds a match in `text`. A search that backtracks too much gives up and
  /// matches nothing (see ``NSRegularExpression/searchStepLimit``), as does one stopped by the
  /// request's ``SearchBudget``.
  func matches(_ text: String) -> Bool {
    search(text) == .found
  }

  /// `shown`, the value a near miss shows, with why the search gave up on one of `texts` if it did.
  func shown(_ shown: String, searching texts: [String]) -> String {
    for text in texts {
      switch search(text) {
      case .gaveUp: return "\(shown) (\(NSRegularExpression.gaveUpExplanation(described)))"
      case .outOfBudget:
        return
          "\(shown) (\(NSRegularExpression.outOfBudgetExplanation(described, so: "the stub is treated as not matching")))"
      case .found, .notFound: continue
      }
    }
    return shown
  }
}

/// The one text a pattern's search last gave up on, shared by every copy of the pattern.
private final class GaveUpMemo: Sendable {
  private let text = Locked<String?>(nil)

  func holds(_ candidate: String) -> Bool {
    text.withLock { $0 == candidate }
  }

  func remember(_ gaveUp: String) {
    text.withLock { $0 = gaveUp }
  }
}
