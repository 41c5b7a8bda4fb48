#if OpenAPI
  import Foundation

  /// Makes strings that a regular expression matches, for the shapes schemas use: literals,
  /// escapes (`\d`, `\w`, `\s`, `\.`), `.`, bracketed sets with ranges and negation, groups
  /// (`(…)`, `(?:…)`), alternatives and the quantifiers `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`
  /// (lazy or not), between optional anchors. Anything else (look-arounds, back references,
  /// Unicode classes) gives `nil`, and the caller falls back to other candidates.
  struct PatternGenerator {
    indirect enum Node {
      case characters([Character])
      case sequence([Node])
      case alternatives([Node])
      case repeated(Node, minimum: Int, maximum: Int)
    }

    let root: Node

    /// How many times an open-ended quantifier (`*`, `+`, `{n,}`) repeats beyond its minimum, at most.
    static let openEndedExtra = 3

    init?(_ source: String) {
      var parser = Parser(characters: Array(source))
      guard let node = parser.alternatives(), parser.index == parser.characters.count else { return nil }
      root = node
    }

    /// A string the pattern matches, drawing choices from `next(bound)` (a number below `bound`).
    func string(_ next: (Int) -> Int) -> String {
      var out = ""
      var budget = 10_000
      Self.emit(root, into: &out, budget: &budget, next)
      return out
    }

    private static func emit(_ node: Node, into out: inout String, budget: inout Int, _ next: (Int) -> Int) {
      guard budget > 0 else { return }
      budget -= 1
      switch node {
      case .characters(let set):
        if !set.isEmpty { out.append(set[next(set.count)]) }
      case .sequence(let parts):
        for part in parts { emit(part, into: &out, budget: &budget, next) }
      case .alternatives(let options):
        if !options.isEmpty { emit(options[next(options.count)], into: &out, budget: &budget, next) }
      case .repeated(let inner, let minimum, let maximum):
        let upper = min(maximum, minimum + openEndedExtra)
        let count = minimum + next(max(upper - minimum, 0) + 1)
        for _ in 0..<count { emit(inner, into: &out, budget: &budget, next) }
      }
    }

    private struct Parser {
      let characters: [Character]
      var index = 0
      /// How many groups are open: a pattern nested deeper than 64 is not made (the parser is
      /// recursive).
      var depth = 0

      static let digits = Array("0123456789")
      static let word = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
      static let printable: [Character] = (0x20...0x7E).map { Character(Unicode.Scalar(UInt8($0))) }

      var atEnd: Bool { index >= characters.count }
      var peek: Character? { atEnd ? nil : characters[index] }

      mutating func alternatives() -> Node? {
        var options: [Node] = []
        guard let first = sequence() else { return nil }
        options.append(first)
        while peek == "|" {
          index += 1
          guard let option = sequence() else { return nil }
          options.append(option)
        }
        return options.count == 1 ? options[0] : .alternatives(options)
      }

      mutating func sequence() -> Node? {
        var parts: [Node] = []
        while let character = peek, character != "|", character != ")" {
          if character == "^" || character == "$" {
            index += 1
            continue
          }
          guard let atom = atom(), let quantified = quantifier(atom) else { return nil }
          parts.append(quantified)
        }
        return .sequence(parts)
      }

      mutating func quantifier(_ atom: Node) -> Node? {
        guard let character = peek else { return atom }
        var result: Node
        switch character {
        case "?": result = .repeated(atom, minimum: 0, maximum: 1)
        case "*": result = .repeated(atom, minimum: 0, maximum: Int.max)
        case "+": result = .repeated(atom, minimum: 1, maximum: Int.max)
        case "{":
          guard let (minimum, maximum, length) = bounds() else { return atom }
          index += length - 1
          result = .repeated(atom, minimum: minimum, maximum: maximum)
        default: return atom
        }
        index += 1
        // A lazy or possessive marker changes what is matched first, not what matches.
        if peek == "?" || peek == "+" { index += 1 }
        return result
      }

      /// `{n}`, `{n,}` or `{n,m}` at `index`: the bounds and the length of the text.
      func bounds() -> (Int, Int, Int)? {
        var cursor = index + 1
        var first = ""
        while cursor < characters.count, characters[cursor].isASCII, characters[cursor].isNumber {
          first.append(characters[cursor])
          cursor += 1
        }
        guard let minimum = Int(first), minimum <= 1_000, cursor < characters.count else { return nil }
        if characters[cursor] == "}" { return (minimum, minimum, cursor - index + 1) }
        guard characters[cursor] == "," else { return nil }
        cursor += 1
        var second = ""
        while cursor < characters.count, characters[cursor].isASCII, characters[cursor].isNumber {
          second.append(characters[cursor])
          cursor += 1
        }
        guard cursor < characters.count, characters[cursor] == "}" else { return nil }
        let maximum = second.isEmpty ? Int.max : (Int(second) ?? Int.max)
        guard maximum >= minimum else { return nil }
        return (minimum, min(maximum, second.isEmpty ? Int.max : 1_000), cursor - index + 1)
      }

      mutating func atom() -> Node? {
        guard let character = peek else { return nil }
        index += 1
        switch character {
        case "(":
          depth += 1
          defer { depth -= 1 }
          guard depth <= 64 else { return nil }
          if peek == "?" {
            // Only a group that does not capture: `(?:…)`.
            guard index + 1 < characters.count, characters[index + 1] == ":" else { return nil }
            index += 2
          }
          guard let inner = alternatives(), peek == ")" else { return nil }
          index += 1
          return inner
        case "[": return set()
        case ".": return .characters(Self.word)
        case "\\": return escape(inSet: false).map { .characters($0) }
        case "*", "+", "?", "{", ")": return nil
        default: return .characters([character])
        }
      }

      /// The characters an escape stands for (after its `\`).
      mutating func escape(inSet: Bool) -> [Character]? {
        guard let character = peek else { return nil }
        index += 1
        switch character {
        case "d": return Self.digits
        case "w": return Self.word
        case "s": return [" "]
        case "D": return Array("abcxyz")
        case "W": return Array("-!.")
        case "S": return Array("abc123")
        case "n": return ["\n"]
        case "t": return ["\t"]
        case "b", "B", "A", "z", "Z", "G", "p", "P", "k", "u", "x", "c":
          // Word boundaries, Unicode classes, back references and code points: not made here.
          return nil
        default:
          if character.isNumber && !inSet { return nil }
          return [character]
        }
      }

      mutating func set() -> Node? {
        var negated = false
        if peek == "^" {
          negated = true
          index += 1
        }
        var members: [Character] = []
        var first = true
        while let character = peek, character != "]" || first {
          first = false
          index += 1
          var single: Character?
          if character == "\\" {
            guard let escaped = escape(inSet: true) else { return nil }
            if escaped.count == 1 { single = escaped[0] } else { members += escaped }
          } else if character == "[" {
            // POSIX classes (`[:alpha:]`) are not made here.
            if peek == ":" { return nil }
            single = character
          } else {
            single = character
          }
          guard let low = single else { continue }
          if peek == "-", index + 1 < characters.count, characters[index + 1] != "]" {
            index += 1
            var high = characters[index]
            index += 1
            if high == "\\" {
              guard let escaped = escape(inSet: true), escaped.count == 1 else { return nil }
              high = escaped[0]
            }
            guard let lowValue = low.unicodeScalars.first?.value, let highValue = high.unicodeScalars.first?.value,
              lowValue <= highValue, highValue - lowValue < 0x3000
            else { return nil }
            for value in lowValue...highValue {
              if let scalar = Unicode.Scalar(value) { members.append(Character(scalar)) }
            }
          } else {
            members.append(low)
          }
        }
        guard peek == "]" else { return nil }
        index += 1
        if negated {
          let excluded = Set(members)
          members = Self.printable.filter { !excluded.contains($0) && $0 != " " }
        }
        return members.isEmpty ? nil : .characters(members)
      }
    }
  }
#endif
