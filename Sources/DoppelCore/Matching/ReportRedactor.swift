@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What the near-miss and verification reports show of requests and stubs, with every secret that
/// recording would redact hidden: the scanner and rules of ``Redaction/default`` (``SecretRules``,
/// ``SecretWalker``), so that the 404 body, the issue text, the console, the attachments and the
/// dashboard show no more than a cassette does.
///
/// A secret header still shows its name and how long its value is (`<redacted: 41 chars>`), and a
/// stub that wanted another value is told apart by "the values differ", printing neither. Other
/// text (URLs, bodies, what a matcher expected) has its secrets replaced by
/// ``Redaction/marker``. Only reports use it: the path of a request that a stub matched does no
/// work here.
package struct ReportRedactor {
  private var walker = SecretWalker(rules: .standard, collectsFindings: false)
  private static let place = SecretWalker.Place(report: [], keyPath: nil, tracks: false)

  package init() {}

  /// How a hidden value is shown: `<redacted: 41 chars>`.
  static func hidden(_ value: String) -> String { "<redacted: \(value.count) chars>" }

  /// `string` with the secrets found in text replaced.
  mutating package func text(_ string: String) -> String { walker.text(string, Self.place) }

  /// `value` with the secrets found in it replaced: under keys named like secrets, in strings, and
  /// wherever a value redacted once appears again.
  mutating func json(_ value: JSONValue) -> JSONValue { walker.redact([value]).first ?? value }

  /// Whether the value of the header `name: value` is secret: by the header's name, or as a
  /// high-entropy value under a name like a key's.
  mutating func isSecret(header name: String, value: String) -> Bool {
    walker.rules.header(name, value: value) != nil || (walker.isKeyLike(name) && SecretRules.isHighEntropy(value))
  }

  /// Whether any value of the header `name` in `request` is secret, or (with no such header) a
  /// value under that name would be.
  mutating func isSecret(header name: String, in request: Request) -> Bool {
    let values = request.headers.values(for: name)
    if values.isEmpty { return walker.rules.header(name, value: "") != nil }
    return values.contains { isSecret(header: name, value: $0) }
  }

  /// `request` as a report shows it: secrets replaced in its URL, its headers and its text body
  /// (a body over ``scannedBodyLimit`` is shown by its size).
  mutating func request(_ request: Request) -> Request {
    let shownURL = text(request.url.absoluteString)
    var headers = HTTPHeaders()
    for field in request.headers {
      headers.add(
        field.name, isSecret(header: field.name, value: field.value) ? SecretRules.marker : text(field.value))
    }
    var body = request.body
    if let data = body, data.count > Self.scannedBodyLimit {
      // A report shows 80 characters of a body; scanning megabytes for them would hold up the
      // server's other requests (the soak test's 15 MiB unmatched POST).
      body = Data("<\(data.count) bytes, too large to show>".utf8)
    } else if let data = body, !data.isEmpty, let string = String(data: data, encoding: .utf8) {
      let shown = text(string)
      if shown != string { body = Data(shown.utf8) }
    }
    let url = shownURL == request.url.absoluteString ? request.url : URL(string: shownURL) ?? Self.redactedURL
    return Request(method: request.method, url: url, headers: headers, body: body)
  }

  /// The largest body a report scans for secrets and shows a piece of; a larger one is shown by
  /// its size alone.
  static let scannedBodyLimit = 64 * 1024

  /// What a URL that no longer parses once redacted is shown as.
  private static let redactedURL = URL(string: "https://\(SecretRules.marker)/")!

  /// One line of a field-by-field comparison as a report shows it: a secret header's values
  /// hidden, other values' secrets replaced.
  mutating package func line(_ line: Matcher.CheckLine, in request: Request) -> Matcher.CheckLine {
    let header = line.field.hasPrefix("header ") ? String(line.field.dropFirst("header ".count)) : nil
    if let header,
      isSecret(header: header, in: request) || isSecret(header: header, value: Self.unquoted(line.expected))
    {
      let expected = Self.hiddenValue(line.expected)
      guard !line.passed else {
        return Matcher.CheckLine(passed: true, field: line.field, expected: expected, actual: "")
      }
      let actual = Self.hiddenValue(line.actual)
      let differ = line.actual == "absent" || line.expected == "present" ? "" : " (the values differ)"
      return Matcher.CheckLine(passed: false, field: line.field, expected: expected, actual: actual + differ)
    }
    return Matcher.CheckLine(
      passed: line.passed, field: line.field, expected: text(line.expected), actual: text(line.actual))
  }

  /// A matcher's description (`GET https://…, Authorization: Bearer …`) with the values of secret
  /// headers hidden and other secrets replaced.
  mutating package func description(_ matcher: Matcher) -> String {
    let parts = "\(matcher)".components(separatedBy: ", ").map { part -> String in
      guard let colon = part.range(of: ": ") else { return part }
      let name = String(part[..<colon.lowerBound])
      let value = String(part[colon.upperBound...])
      guard !name.isEmpty, !name.contains(" "), isSecret(header: name, value: value) else { return part }
      return "\(name): \(Self.hidden(value))"
    }
    return text(parts.joined(separator: ", "))
  }

  /// `"Bearer abc"` → `<redacted: 10 chars>`; `"a", "b"` → each hidden; `absent` and `present`
  /// kept; another form (`matching /…/`) hidden whole.
  private static func hiddenValue(_ shown: String) -> String {
    if shown == "absent" || shown == "present" || shown.isEmpty { return shown }
    let values = quotedValues(shown)
    guard !values.isEmpty else { return "<redacted>" }
    return values.map(hidden).joined(separator: ", ")
  }

  /// The values of `"a", "b"`; empty when `shown` is not that form.
  private static func quotedValues(_ shown: String) -> [String] {
    guard shown.hasPrefix("\""), shown.hasSuffix("\""), shown.count >= 2 else { return [] }
    return shown.dropFirst().dropLast().components(separatedBy: "\", \"")
  }

  private static func unquoted(_ shown: String) -> String { quotedValues(shown).first ?? shown }
}
