@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Matcher {
  /// Requires these query items among the request's, in any order (a subset). Names and values are
  /// compared percent-decoded; a name may repeat (`["tag": "a", "tag": "b"]`); `+` is a plus sign.
  public static func query(_ items: KeyValuePairs<String, String>) -> Matcher {
    queryMatcher(items.map { QueryItem(name: $0.key, value: $0.value) }, exactly: false)
  }

  /// Requires exactly these query items (in any order): no missing and no extra ones.
  public static func query(exactly items: KeyValuePairs<String, String>) -> Matcher {
    queryMatcher(items.map { QueryItem(name: $0.key, value: $0.value) }, exactly: true)
  }

  /// Requires these query items; with `exactly`, no others. Items without a value count as `""`.
  public static func query(_ items: [URLQueryItem], exactly: Bool = false) -> Matcher {
    queryMatcher(items.map { QueryItem(name: $0.name, value: $0.value ?? "") }, exactly: exactly)
  }

  /// Requires a query item named `name`, whatever its value.
  public static func query(has name: String) -> Matcher {
    Matcher(
      Condition(
        field: "query", expected: "has \"\(name)\"", summary: "query has \(name)",
        actual: { request in describe(QueryItem.from(request)) },
        passes: { request in QueryItem.from(request).contains { $0.name == name } }))
  }

  static package func queryMatcher(_ expected: [QueryItem], exactly: Bool) -> Matcher {
    let wanted = Dictionary(expected.map { ($0, 1) }, uniquingKeysWith: +)
    let shown = describe(expected)
    return Matcher(
      Condition(
        field: "query", expected: (exactly ? "exactly " : "") + "\"\(shown)\"", summary: shown,
        part: .query, actual: { "\"\(describe(QueryItem.from($0)))\"" },
        passes: { request in
          let actual = Dictionary(QueryItem.from(request).map { ($0, 1) }, uniquingKeysWith: +)
          if exactly { return actual == wanted }
          return wanted.allSatisfy { item, count in actual[item, default: 0] >= count }
        })
    ).spelled(.query(expected.map { ($0.name, $0.value) }, exactly: exactly))
  }

  static package func describe(_ items: [QueryItem]) -> String {
    items.map(\.description).joined(separator: "&")
  }
}
