#if GraphQL
  /// What one request may make a served schema do. GraphQL's parser is recursive, so a query's
  /// nesting is measured (in one pass, without recursion) before it runs; a mock answer stops at a
  /// number of values; an endpoint keeps a bounded number of persisted queries. A request beyond a
  /// limit gets a GraphQL error that says which limit and how to stay within it.
  package enum QueryLimits {
    /// The deepest nesting of `{`, `(` and `[` a query may have (Apollo iOS's generated
    /// operations rarely pass 20).
    static let nesting = 128
    /// The most items a connection's page (`first`, `last`) or a list with such an argument has
    /// in a mock answer, as public APIs cap them (GitHub's is 100).
    static let pageSize = 100
    /// The most values (objects, lists, scalars) one mock answer holds.
    static let answerValues = 100_000
    /// The most values of the schema's introspection (`__schema`, `__type`) one answer holds:
    /// GraphiQL's introspection query of Saleor's 1 MB schema gives about 130,000.
    static let introspectionValues = 400_000
    /// The most persisted queries (Apollo's APQ) one endpoint keeps; the oldest go first.
    package static let persistedQueries = 10_000
    /// The most bytes of persisted query text one endpoint keeps.
    package static let persistedBytes = 32 << 20

    /// How deep `text` nests braces, parentheses and brackets outside strings and comments, or
    /// `nil` as soon as it passes ``nesting``.
    static func nestingWithinLimit(_ text: String) -> Int? {
      let bytes = Array(text.utf8)
      var index = 0
      var depth = 0
      var deepest = 0
      while index < bytes.count {
        switch bytes[index] {
        case UInt8(ascii: "#"):
          while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
        case UInt8(ascii: "\""):
          index = endOfString(bytes, openingAt: index)
        case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
          depth += 1
          deepest = max(deepest, depth)
          if depth > nesting { return nil }
        case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
          depth = max(depth - 1, 0)
        default:
          break
        }
        index += 1
      }
      return deepest
    }

    /// The index of the last byte of the string that opens at `start`: a block string
    /// (`"""…"""`, which `\"""` does not close) or a one-line string (where `\` escapes the next
    /// character, and a line end ends it for the parser to report).
    private static func endOfString(_ bytes: [UInt8], openingAt start: Int) -> Int {
      let quote = UInt8(ascii: "\"")
      if start + 2 < bytes.count, bytes[start + 1] == quote, bytes[start + 2] == quote {
        var index = start + 3
        while index + 2 < bytes.count {
          if bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == quote {
            index += 2
          } else if bytes[index] == quote, bytes[index + 1] == quote, bytes[index + 2] == quote {
            return index + 2
          } else {
            index += 1
          }
        }
        return bytes.count
      }
      var index = start + 1
      while index < bytes.count, bytes[index] != quote, bytes[index] != 0x0A {
        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
      }
      return index
    }
  }
#endif
