import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Collects the secrets in a JSON document as ``CassetteLint`` findings: the places a redaction
/// would change (see ``SecretWalker``).
struct LintScanner {
  let file: String
  let redaction: Redaction
  private(set) var findings: [CassetteLint.Finding] = []

  init(file: String, redaction: Redaction = .default) {
    self.file = file
    self.redaction = redaction
  }

  mutating func walk(_ value: JSONValue) {
    var walker = SecretWalker.har(rules: SecretRules(redaction), collectsFindings: true)
    _ = walker.redact([value])
    var seen: Set<CassetteLint.Finding> = []
    for found in walker.findings {
      let (entry, field) = Self.describe(found.path)
      let finding = CassetteLint.Finding(file: file, entry: entry, field: field, kind: CassetteLint.Kind(found.kind))
      if seen.insert(finding).inserted { findings.append(finding) }
    }
  }

  /// `entries[2].request.headers.Authorization` and `2` for a path inside `log.entries`, the
  /// whole JSON path otherwise.
  static func describe(_ path: [SecretWalker.Part]) -> (entry: Int?, field: String) {
    var parts = path[...]
    var entry: Int?
    var field = ""
    if parts.count >= 3, case .key("log") = parts[0], case .key("entries") = parts[1],
      case .index(let index) = parts[2]
    {
      entry = index
      field = "entries[\(index)]"
      parts = parts.dropFirst(3)
    }
    for part in parts {
      switch part {
      case .key(let key): field += field.isEmpty ? key : "." + key
      case .index(let index): field += "[\(index)]"
      }
    }
    return (entry, field)
  }
}
