@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Matcher {
  /// Requires a header field named `name` (case-insensitive) whose value is exactly `value`. When the
  /// field is repeated, any one of its values may match.
  public static func header(_ name: String, _ value: String) -> Matcher {
    Matcher(
      Condition(
        field: "header \(name)", expected: "\"\(value)\"", summary: "\(name): \(value)",
        actual: { headerValue($0, name) }, passes: { $0.headers.values(for: name).contains(value) })
    ).spelled(.header(name, value))
  }

  /// Requires a header field named `name` (case-insensitive), whatever its value.
  public static func header(_ name: String) -> Matcher {
    Matcher(
      Condition(
        field: "header \(name)", expected: "present", summary: "has header \(name)",
        actual: { headerValue($0, name) }, passes: { $0.headers.contains(name) })
    ).spelled(.header(name, nil))
  }

  /// Requires a header field named `name` whose value contains a match of a regular expression.
  public static func header(_ name: String, regex: String) -> Matcher {
    switch Pattern.compile(regex, what: "header \(name)") {
    case .failure(let problem): return Matcher(.invalid(problem))
    case .success(let pattern):
      return Matcher(
        Condition(
          field: "header \(name)", expected: "matching /\(regex)/", summary: "\(name): /\(regex)/",
          actual: { pattern.shown(headerValue($0, name), searching: $0.headers.values(for: name)) },
          passes: { $0.headers.values(for: name).contains(where: pattern.matches) })
      ).spelled(.headerRegex(name, regex))
    }
  }

  /// Requires every one of these header fields (see ``header(_:_:)``).
  public static func headers(_ fields: KeyValuePairs<String, String>) -> Matcher {
    Matcher(.all(fields.map { header($0.key, $0.value) }))
  }

  private static func headerValue(_ request: Request, _ name: String) -> String {
    let values = request.headers.values(for: name)
    return values.isEmpty ? "absent" : values.map { "\"\($0)\"" }.joined(separator: ", ")
  }
}
