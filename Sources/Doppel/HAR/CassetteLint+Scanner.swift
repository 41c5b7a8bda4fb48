import Foundation

/// Walks a HAR document's JSON and collects the secrets in it.
struct LintScanner {
  typealias Kind = CassetteLint.Kind

  let file: String
  private(set) var findings: [CassetteLint.Finding] = []
  private var seen: Set<CassetteLint.Finding> = []
  private let patterns: [(NSRegularExpression, Kind)]

  enum Part {
    case key(String)
    case index(Int)
  }

  static let secretParameters = Set(Redaction.default.queryParameters.map { $0.lowercased() })
  static let secretJSONFields: Set<String> = [
    "password", "passwd", "secret", "client_secret", "api_key", "apikey", "access_token", "refresh_token", "id_token",
    "token", "private_key",
  ]
  static let keyHeaders: Set<String> = ["x-api-key", "api-key", "x-auth-token", "x-amz-security-token"]

  init(file: String) {
    self.file = file
    let sources: [(String, Kind)] = [
      (#"-----BEGIN [A-Z ]*PRIVATE KEY-----"#, .privateKey),
      (#"\b(AKIA|ASIA)[0-9A-Z]{16}\b"#, .awsAccessKey),
      (#"\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"#, .gitHubToken),
      (#"\bxox[abposr]-[A-Za-z0-9-]{10,}"#, .slackToken),
      (#"\bAIza[0-9A-Za-z_-]{35}"#, .googleAPIKey),
      (#"\b[rs]k_live_[0-9A-Za-z]{20,}"#, .stripeKey),
      (#"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"#, .jsonWebToken),
      (#"\b[Bb]earer\s+([A-Za-z0-9._~+/-]{8,}=*)"#, .bearerToken),
    ]
    patterns = sources.compactMap { source, kind in
      (try? NSRegularExpression(pattern: source)).map { ($0, kind) }
    }
  }

  // MARK: Walking

  mutating func walk(_ value: JSONValue, path: [Part]) {
    switch value {
    case .string(let text):
      if case .key(let key)? = path.last, key == "url" || key == "redirectURL" {
        checkURL(text, path: path)
      }
      scanText(text, path: path)
    case .array(let elements):
      let listName: String?
      if case .key(let key)? = path.last { listName = key } else { listName = nil }
      for (index, element) in elements.enumerated() {
        if let listName, case .object(let object) = element, case .string(let name)? = object["name"],
          ["headers", "cookies", "queryString", "params"].contains(listName)
        {
          pair(listName, name: name, object: object, path: path)
        } else {
          walk(element, path: path + [.index(index)])
        }
      }
    case .object(let object):
      for key in object.keys.sorted() {
        guard let inner = object[key] else { continue }
        if key == "text", case .string(let text) = inner {
          body(text, in: object, path: path + [.key(key)])
        } else {
          walk(inner, path: path + [.key(key)])
        }
      }
    default:
      break
    }
  }

  /// A `{name, value}` pair of a header, cookie, query or form list; reported under its name.
  private mutating func pair(_ list: String, name: String, object: [String: JSONValue], path: [Part]) {
    let field = path + [.key(name)]
    for key in object.keys.sorted() where key != "name" && key != "value" {
      if let inner = object[key] { walk(inner, path: field + [.key(key)]) }
    }
    guard case .string(let value)? = object["value"], !value.isEmpty, value != Redaction.marker else { return }
    let lower = name.lowercased()
    switch list {
    case "headers":
      switch lower {
      case "authorization", "proxy-authorization":
        let scheme = value.split(separator: " ", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        let kind: Kind = scheme == "bearer" ? .bearerToken : scheme == "basic" ? .basicCredentials : .credentials
        return report(kind, at: field)
      case "cookie", "set-cookie":
        return report(.cookie, at: field)
      case _ where Self.keyHeaders.contains(lower):
        return report(.apiKeyHeader(name), at: field)
      case "location", "content-location":
        checkURL(value, path: field)
      default:
        break
      }
    case "cookies":
      return report(.cookie, at: field)
    default:
      if Self.secretParameters.contains(lower) { return report(.secretParameter(name), at: field) }
    }
    scanText(value, path: field)
  }

  /// A body's `text`: decoded when base64, scanned for patterns, for secret JSON fields, and for
  /// secret form parameters.
  private mutating func body(_ text: String, in object: [String: JSONValue], path: [Part]) {
    var content = text
    if case .string(let encoding)? = object["encoding"], encoding.lowercased() == "base64",
      let data = Data(base64Encoded: text.filter { !$0.isWhitespace }),
      let decoded = String(data: data, encoding: .utf8)
    {
      content = decoded
    }
    scanText(content, path: path)
    if let json = try? JSONValue(parsing: Data(content.utf8)) {
      jsonFields(json, path: path)
    }
    if case .string(let mimeType)? = object["mimeType"], mimeType.lowercased().contains("x-www-form-urlencoded") {
      parameters(content, path: path)
    }
  }

  private mutating func jsonFields(_ json: JSONValue, path: [Part]) {
    switch json {
    case .object(let object):
      for key in object.keys.sorted() {
        guard let inner = object[key] else { continue }
        if Self.secretJSONFields.contains(key.lowercased()), case .string(let value) = inner, !value.isEmpty,
          value != Redaction.marker
        {
          report(.secretJSONField(key), at: path)
        } else {
          jsonFields(inner, path: path)
        }
      }
    case .array(let elements):
      for element in elements { jsonFields(element, path: path) }
    default:
      break
    }
  }

  private mutating func checkURL(_ url: String, path: [Part]) {
    guard let question = url.firstIndex(of: "?") else { return }
    let query = url[url.index(after: question)...].prefix { $0 != "#" }
    parameters(String(query), path: path)
  }

  private mutating func parameters(_ form: String, path: [Part]) {
    for pair in form.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
      let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
      if Self.secretParameters.contains(name.lowercased()), !value.isEmpty, value != Redaction.marker {
        report(.secretParameter(name), at: path)
      }
    }
  }

  private mutating func scanText(_ text: String, path: [Part]) {
    guard text != Redaction.marker, !text.isEmpty else { return }
    let range = NSRange(text.startIndex..., in: text)
    for (pattern, kind) in patterns {
      let hit = pattern.matches(in: text, range: range).contains { match in
        guard kind == .bearerToken, match.numberOfRanges > 1, let token = Range(match.range(at: 1), in: text) else {
          return true
        }
        return text[token] != Redaction.marker
      }
      if hit { report(kind, at: path) }
    }
  }

  // MARK: Reporting

  private mutating func report(_ kind: Kind, at path: [Part]) {
    let (entry, field) = Self.describe(path)
    let finding = CassetteLint.Finding(file: file, entry: entry, field: field, kind: kind)
    if seen.insert(finding).inserted { findings.append(finding) }
  }

  /// `entries[2].request.headers.Authorization` and `2` for a path inside `log.entries`, the
  /// whole JSON path otherwise.
  static func describe(_ path: [Part]) -> (entry: Int?, field: String) {
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
