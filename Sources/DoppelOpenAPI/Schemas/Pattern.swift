#if OpenAPI
  import Doppel
  import Foundation

  /// A compiled regular expression.
  final class Pattern: @unchecked Sendable {
    // Why `@unchecked` is safe: NSRegularExpression is immutable once made and documented as safe
    // to use from several threads at once.
    let source: String
    let expression: NSRegularExpression
    /// The pattern as a hand matcher, when it is simple enough (see ``SimplePattern``).
    let simple: SimplePattern?

    init(source: String, expression: NSRegularExpression) {
      self.source = source
      self.expression = expression
      simple = SimplePattern(source)
    }

    /// Whether the pattern finds a match in `text`; a search that backtracks too much gives up
    /// (see `NSRegularExpression.searchStepLimit`).
    func search(_ text: String) -> SearchOutcome {
      expression.search(text)
    }

    func matches(_ text: String) -> Bool {
      search(text) == .found
    }

    /// What a search of ASCII text, as its bytes, finds: by hand when the pattern is simple, else
    /// with the regular expression.
    func search(ascii bytes: UnsafeBufferPointer<UInt8>) -> SearchOutcome {
      if let simple, let result = simple.matches(bytes) { return result ? .found : .notFound }
      return search(String(decoding: bytes, as: UTF8.self))
    }
  }

  /// A regular expression of the shape schemas mostly use (`^[A-Z]{3}$`, `^[a-z0-9_-]+$`,
  /// `^\d{4}-\d{2}$`), matched by hand: a sequence of single characters, `.`, `\d`, `\w` and
  /// bracketed sets of them, each with an optional `?`, `*`, `+` or `{n,m}`, between an optional
  /// `^` and `$`.
  ///
  /// On Linux a regular expression costs microseconds a match, and a pattern is checked for every
  /// such field of every exchange. Anything else (groups, alternatives, other escapes, lazy
  /// quantifiers) is left to `NSRegularExpression`, as is text with a line break or a character
  /// outside ASCII, where ICU's rules for `.` and `$` need care.
  struct SimplePattern: Sendable {
    struct Atom: Sendable {
      /// The ASCII characters it matches, one bit each.
      var low: UInt64 = 0
      var high: UInt64 = 0
      var minimum = 1
      var maximum = 1

      func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & (1 << UInt64(byte)) != 0 : byte < 128 && high & (1 << UInt64(byte - 64)) != 0
      }

      mutating func insert(_ byte: UInt8) {
        if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
      }

      mutating func insert(_ range: ClosedRange<UInt8>) {
        for byte in range { insert(byte) }
      }

      /// Everything ASCII but what it holds.
      mutating func invert() {
        low = ~low
        high = ~high
      }
    }

    let atoms: [Atom]
    let anchoredStart: Bool
    let anchoredEnd: Bool

    init?(_ source: String) {
      let bytes = Array(source.utf8)
      var index = 0
      var atoms: [Atom] = []
      anchoredStart = bytes.first == UInt8(ascii: "^")
      if anchoredStart { index = 1 }
      var end = false
      while index < bytes.count {
        let byte = bytes[index]
        index += 1
        var atom = Atom()
        switch byte {
        case UInt8(ascii: "$"):
          guard index == bytes.count else { return nil }
          end = true
          continue
        case UInt8(ascii: "."):
          atom.insert(0...127)
        case UInt8(ascii: "\\"):
          guard index < bytes.count, Self.escape(bytes[index], into: &atom) else { return nil }
          index += 1
        case UInt8(ascii: "["):
          guard Self.set(bytes, &index, into: &atom) else { return nil }
        default:
          guard Self.isLiteral(byte) else { return nil }
          atom.insert(byte)
        }
        guard Self.quantifier(bytes, &index, into: &atom) else { return nil }
        atoms.append(atom)
      }
      guard atoms.count <= 32 else { return nil }
      anchoredEnd = end
      self.atoms = atoms
    }

    /// Letters, digits and the punctuation that stands for itself everywhere in ICU's syntax.
    private static func isLiteral(_ byte: UInt8) -> Bool {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
      case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "/"),
        UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: "%"), UInt8(ascii: "~"), UInt8(ascii: "'"),
        UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ";"), UInt8(ascii: "!"):
        return true
      default:
        return false
      }
    }

    /// `\d`, `\w`, or an escaped punctuation character.
    private static func escape(_ byte: UInt8, into atom: inout Atom) -> Bool {
      switch byte {
      case UInt8(ascii: "d"): atom.insert(UInt8(ascii: "0")...UInt8(ascii: "9"))
      case UInt8(ascii: "w"):
        atom.insert(UInt8(ascii: "0")...UInt8(ascii: "9"))
        atom.insert(UInt8(ascii: "a")...UInt8(ascii: "z"))
        atom.insert(UInt8(ascii: "A")...UInt8(ascii: "Z"))
        atom.insert(UInt8(ascii: "_"))
      case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "+"),
        UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["),
        UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "^"), UInt8(ascii: "$"),
        UInt8(ascii: "|"), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "_"):
        atom.insert(byte)
      default: return false
      }
      return true
    }

    /// A bracketed set, after its `[`: characters, ranges of letters or digits, `\d` and `\w`,
    /// optionally negated with `^`.
    private static func set(_ bytes: [UInt8], _ index: inout Int, into atom: inout Atom) -> Bool {
      var negated = false
      if index < bytes.count, bytes[index] == UInt8(ascii: "^") {
        negated = true
        index += 1
      }
      var first = true
      while index < bytes.count {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "]"), !first {
          if negated { atom.invert() }
          return true
        }
        first = false
        var single: UInt8
        switch byte {
        case UInt8(ascii: ":"):
          // `[:alpha:]` is a class of its own in ICU.
          return false
        case UInt8(ascii: "\\"):
          guard index < bytes.count else { return false }
          let escaped = bytes[index]
          index += 1
          if escaped == UInt8(ascii: "d") || escaped == UInt8(ascii: "w") {
            guard escape(escaped, into: &atom) else { return false }
            continue
          }
          guard escaped != UInt8(ascii: "d"), escape(escaped, into: &atom) else { return false }
          single = escaped
        case UInt8(ascii: "-"):
          // Only first or last in the set, where it stands for itself.
          guard bytes[index - 2] == UInt8(ascii: "[") || index < bytes.count && bytes[index] == UInt8(ascii: "]")
          else { return false }
          single = byte
        case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "("),
          UInt8(ascii: ")"):
          single = byte
        default:
          guard isLiteral(byte) else { return false }
          single = byte
        }
        atom.insert(single)
        // A range: `a-z`, `0-9`, between two letters or digits of the same kind.
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-"), bytes[index + 1] != UInt8(ascii: "]") {
          let last = bytes[index + 1]
          guard Self.sameKind(single, last), single <= last else { return false }
          atom.insert(single...last)
          index += 2
        }
      }
      return false
    }

    private static func sameKind(_ a: UInt8, _ b: UInt8) -> Bool {
      let kinds: [ClosedRange<UInt8>] = [
        UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"),
      ]
      return kinds.contains { $0.contains(a) && $0.contains(b) }
    }

    /// `?`, `*`, `+`, `{n}`, `{n,}` or `{n,m}` after an atom (none: exactly once). Lazy and
    /// possessive forms are not simple.
    private static func quantifier(_ bytes: [UInt8], _ index: inout Int, into atom: inout Atom) -> Bool {
      guard index < bytes.count else { return true }
      switch bytes[index] {
      case UInt8(ascii: "?"): (atom.minimum, atom.maximum) = (0, 1)
      case UInt8(ascii: "*"): (atom.minimum, atom.maximum) = (0, Int.max)
      case UInt8(ascii: "+"): (atom.minimum, atom.maximum) = (1, Int.max)
      case UInt8(ascii: "{"):
        var position = index + 1
        func number() -> Int? {
          let start = position
          var value = 0
          while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]),
            position - start < 4
          {
            value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
            position += 1
          }
          return position > start ? value : nil
        }
        guard let low = number() else { return false }
        var high = low
        if position < bytes.count, bytes[position] == UInt8(ascii: ",") {
          position += 1
          if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            high = Int.max
          } else {
            guard let bound = number(), bound >= low else { return false }
            high = bound
          }
        }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "}") else { return false }
        (atom.minimum, atom.maximum) = (low, high)
        index = position
      default: return true
      }
      index += 1
      // `a+?`, `a++`, `a{2}+`: lazy or possessive.
      if index < bytes.count, bytes[index] == UInt8(ascii: "?") || bytes[index] == UInt8(ascii: "+") {
        return false
      }
      return true
    }

    /// Whether `bytes` match; `nil` for text the regular expression must judge (a line break, a
    /// character outside ASCII) or a match that takes too many steps.
    func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
      for byte in bytes where byte >= 0x80 || (0x0A...0x0D).contains(byte) { return nil }
      var budget = 10_000
      let starts = anchoredStart ? 0...0 : 0...bytes.count
      for start in starts {
        switch match(0, start, bytes, &budget) {
        case true?: return true
        case nil: return nil
        case false?: continue
        }
      }
      return false
    }

    /// Whether atoms from `atom` on match from `position` (greedy, backing off); `nil` when the
    /// budget of steps runs out.
    private func match(_ atom: Int, _ position: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ budget: inout Int)
      -> Bool?
    {
      budget -= 1
      guard budget > 0 else { return nil }
      guard atom < atoms.count else { return !anchoredEnd || position == bytes.count }
      let current = atoms[atom]
      var count = 0
      while count < current.maximum, position + count < bytes.count, current.contains(bytes[position + count]) {
        count += 1
      }
      guard count >= current.minimum else { return false }
      while true {
        switch match(atom + 1, position + count, bytes, &budget) {
        case true?: return true
        case nil: return nil
        case false?: break
        }
        if count == current.minimum { return false }
        count -= 1
      }
    }
  }
#endif
