import Foundation

/// "Did you mean …?" for a name that is close to a known one.
package enum Suggestion {
  /// The known name closest to `name`, when it is close enough to be a likely typo: the same
  /// letters in another case, or a few edits away (a swapped pair of letters counts as one edit).
  package static func closest(to name: String, in candidates: [String]) -> String? {
    let lowered = name.lowercased()
    if let sameLetters = candidates.first(where: { $0.lowercased() == lowered }) { return sameLetters }
    let allowed = max(1, name.count / 3)
    var best: (name: String, distance: Int)?
    for candidate in candidates {
      let distance = editDistance(lowered, candidate.lowercased())
      if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.name
  }

  /// ` Did you mean "status"?`, or an empty string.
  package static func didYouMean(_ name: String, in candidates: [String]) -> String {
    closest(to: name, in: candidates).map { " Did you mean \"\($0)\"?" } ?? ""
  }

  /// Edits (insertions, deletions, substitutions, and swaps of neighbours) that turn `a` into `b`.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var before = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, before[j - 2] + 1) }
        current[j] = value
      }
      (before, previous, current) = (previous, current, before)
    }
    return previous[b.count]
  }
}
