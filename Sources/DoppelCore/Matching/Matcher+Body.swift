@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Matcher {
  /// Requires the body to be exactly these bytes.
  public static func body(_ data: Data) -> Matcher {
    Matcher(
      Condition(
        field: "body", expected: summarize(data), summary: "body \(summarize(data))",
        actual: { summarize($0.body) }, passes: { ($0.body ?? Data()) == data })
    ).spelled(String(data: data, encoding: .utf8).map(Spelling.text))
  }

  /// Requires the body to be exactly this text, encoded as UTF-8.
  public static func body(_ text: String) -> Matcher {
    body(Data(text.utf8))
  }

  /// Requires the body to satisfy a closure; `description` is what diagnostics show.
  public static func body(
    _ description: String, where predicate: @escaping @Sendable (Data) -> Bool
  ) -> Matcher {
    Matcher(
      Condition(
        field: "body", expected: description, summary: "body \(description)",
        actual: { summarize($0.body) }, passes: { predicate($0.body ?? Data()) }))
  }

  /// Requires the body to be JSON equal to `json`: same structure, numbers equal by value, object
  /// key order ignored.
  ///
  /// ```swift
  /// backend.stub(.post("/orders") && .jsonBody(["sku": "A1", "quantity": 2]), .status(201))
  /// ```
  public static func jsonBody(_ json: JSONValue) -> Matcher {
    jsonMatcher(json, subset: false).spelled(.json(json))
  }

  /// Requires the body to be JSON equal to `value` encoded with `encoder`.
  public static func jsonBody<T: Encodable>(_ value: T, encoder: JSONEncoder = JSONEncoder()) -> Matcher {
    do {
      let json = try JSONValue(encoding: value, encoder: encoder)
      return jsonMatcher(json, subset: false).spelled(.json(json))
    } catch {
      return Matcher(.invalid(DoppelError.invalidStub("Could not encode \(T.self) for .jsonBody in a stub: \(error).")))
    }
  }

  /// Requires the body to be JSON that contains `json`: extra object keys are allowed at any depth
  /// (see ``JSONValue/contains(_:)``).
  public static func jsonBody(containing json: JSONValue) -> Matcher {
    jsonMatcher(json, subset: true).spelled(.jsonContaining(json))
  }

  /// Requires a form body (`application/x-www-form-urlencoded`) holding these fields, in any order,
  /// among possibly others. `+` in the body counts as a space, as in HTML forms.
  public static func formBody(_ fields: KeyValuePairs<String, String>) -> Matcher {
    formBody(items: fields.map { ($0.key, $0.value) })
  }

  /// ``formBody(_:)`` for fields known only at run time (a manifest's `form`).
  package static func formBody(items fields: [(String, String)]) -> Matcher {
    let wanted = fields.map { QueryItem(name: $0.0, value: $0.1) }
    let shown = describe(wanted)
    return Matcher(
      Condition(
        field: "form", expected: "\"\(shown)\"", summary: "form \(shown)",
        actual: { request in formFields(request.body).map { "\"\(describe($0))\"" } ?? summarize(request.body) },
        passes: { request in
          guard let actual = formFields(request.body) else { return false }
          var remaining = Dictionary(actual.map { ($0, 1) }, uniquingKeysWith: +)
          for item in wanted {
            guard let count = remaining[item], count > 0 else { return false }
            remaining[item] = count - 1
          }
          return true
        })
    ).spelled(.form(fields))
  }

  private static func jsonMatcher(_ json: JSONValue, subset: Bool) -> Matcher {
    Matcher(
      Condition(
        field: "json", expected: (subset ? "containing " : "") + json.description,
        summary: (subset ? "JSON body containing " : "JSON body ") + json.description,
        actual: { request in
          guard let body = request.body, !body.isEmpty else { return "no body" }
          return (try? JSONValue(parsing: body)).map(\.description) ?? "not JSON: \(summarize(body))"
        },
        passes: { request in
          guard let body = request.body, let actual = try? JSONValue(parsing: body) else { return false }
          return subset ? actual.contains(json) : actual == json
        }))
  }

  static func formFields(_ body: Data?) -> [QueryItem]? {
    guard let body, let text = String(data: body, encoding: .utf8) else { return nil }
    return QueryItem.parse(Substring(text.replacingOccurrences(of: "+", with: " ")))
  }

  /// A short, printable summary of a body for reports.
  static package func summarize(_ body: Data?) -> String {
    guard let body, !body.isEmpty else { return "no body" }
    guard let text = String(data: body, encoding: .utf8) else { return "\(body.count) bytes" }
    let flat = text.replacingOccurrences(of: "\n", with: " ")
    return flat.count > 80 ? "\"\(flat.prefix(77))…\" (\(body.count) bytes)" : "\"\(flat)\""
  }
}
