import Foundation

/// What counts as a secret under a ``Redaction``: the one classifier that both redaction and
/// ``CassetteLint`` use, so that the linter reports exactly what the redaction removes.
struct SecretRules: Sendable {
  typealias Kind = CassetteLint.Kind

  let headers: Set<String>
  let parameters: Set<String>
  let jsonPaths: Set<[String]>
  let kept: Set<String>
  let names: Bool
  let values: Bool
  let echoes: Bool
  let digests: Bool

  init(_ redaction: Redaction) {
    headers = Set(redaction.headers.map { $0.lowercased() })
    parameters = Set(redaction.queryParameters.map { $0.lowercased() })
    jsonPaths = Set(redaction.jsonFields.map { $0.split(separator: ".").map(String.init) }.filter { !$0.isEmpty })
    kept = Set(redaction.keptNames.map { $0.lowercased() })
    names = redaction.rules.contains(.secretNames)
    values = redaction.rules.contains(.knownSecretValues)
    echoes = redaction.rules.contains(.repeatedSecrets)
    digests = redaction.rules.contains(.unscannableBodies)
  }

  /// Whether the rules can find nothing at all.
  var isEmpty: Bool { headers.isEmpty && parameters.isEmpty && jsonPaths.isEmpty && !names && !values && !digests }

  // MARK: Names

  /// The kind of secret a header `name: value` is, or `nil` when it is not one.
  func header(_ name: String, value: String) -> Kind? {
    let lower = name.lowercased()
    // `Refresh` is an HTTP header (`Refresh: 5; url=/next`), not a refresh token.
    guard !kept.contains(lower), headers.contains(lower) || (names && lower != "refresh" && Self.isSecretName(name))
    else { return nil }
    switch lower {
    case "authorization", "proxy-authorization":
      let scheme = value.split(separator: " ", maxSplits: 1).first.map { $0.lowercased() } ?? ""
      return scheme == "bearer" ? .bearerToken : scheme == "basic" ? .basicCredentials : .credentials
    case "cookie", "set-cookie":
      return .cookie
    default:
      return Self.compact(lower).contains("apikey") ? .apiKeyHeader(name) : .secretHeader(name)
    }
  }

  /// Whether the values of a HAR `cookies` list are secret: they are when `Cookie` or
  /// `Set-Cookie` is.
  var cookies: Bool {
    header("Cookie", value: "") != nil || header("Set-Cookie", value: "") != nil
  }

  /// Whether a query or form parameter (its name decoded) is secret: besides secret names, the
  /// OAuth authorization `code` and its `state`.
  func parameter(_ name: String) -> Bool {
    let lower = name.lowercased()
    return !kept.contains(lower)
      && (parameters.contains(lower) || (names && (Self.isSecretName(name) || Self.oauthParameters.contains(lower))))
  }

  /// Query and form parameters secret by name only there: an OAuth redirect's `code` and `state`.
  static let oauthParameters: Set<String> = ["code", "state"]

  /// Whether a JSON key is secret, `keyPath` being the keys from the body's root to it (`nil`
  /// outside bodies).
  func key(_ key: String, keyPath: [String]?) -> Bool {
    let lower = key.lowercased()
    if kept.contains(lower) { return false }
    if names && Self.isSecretName(key) { return true }
    guard let keyPath, !jsonPaths.isEmpty else { return false }
    return jsonPaths.contains(keyPath + [key])
  }

  /// Secret wherever they appear in a name.
  private static let secretWords = [
    "token", "secret", "password", "passwd", "apikey", "session", "credential", "privatekey", "signature", "csrf",
    "xsrf", "passphrase", "passcode",
  ]

  /// Secret as a whole word of a name (`pwd`, `user_pass`, `otpCode`), not inside another
  /// (`passenger`, `compass`, `footprint`).
  private static let secretWholeWords: Set<String> = ["pwd", "pass", "pw", "otp", "totp", "hotp"]

  /// Secret as the last word of a name (`refresh`, `x-refresh`), not before another
  /// (`refresh_rate`).
  private static let secretLastWords: Set<String> = ["refresh"]

  /// Whether a name is one a user would call secret (in any case; a lower-cased name loses only
  /// its camel-case word breaks).
  static func isSecretName(_ original: String) -> Bool {
    let lower = original.lowercased()
    let name = compact(lower)
    if name == "cookie" || name == "cookies" || name == "setcookie" { return true }
    if secretWords.contains(where: { name.contains($0) }) { return true }
    let words = Self.words(original)
    if words.contains(where: secretWholeWords.contains) { return true }
    if let last = words.last, secretLastWords.contains(last) { return true }
    // `auth`, `oauth`, `authorization`, `x-auth-…`, but not `author` or `authority`.
    var rest = name[...]
    while let found = rest.range(of: "auth") {
      let tail = name[found.lowerBound...]
      if !tail.hasPrefix("author") || tail.hasPrefix("authoriz") || tail.hasPrefix("authoris") { return true }
      rest = name[found.upperBound...]
    }
    return false
  }

  /// The lower-cased words of a name, split at `-`, `_`, `.`, spaces and camel case:
  /// `X-OTP_code`, `otpCode` → `otp`, `code`.
  static func words(_ name: String) -> [String] {
    var words: [String] = []
    var word = ""
    var previousLower = false
    for character in name {
      if !character.isLetter && !character.isNumber {
        if !word.isEmpty { words.append(word) }
        word = ""
        previousLower = false
        continue
      }
      if character.isUppercase, previousLower, !word.isEmpty {
        words.append(word)
        word = ""
      }
      previousLower = character.isLowercase || character.isNumber
      word += character.lowercased()
    }
    if !word.isEmpty { words.append(word) }
    return words
  }

  /// `x-api-key` → `xapikey`.
  private static func compact(_ lower: String) -> String {
    String(String.UnicodeScalarView(lower.unicodeScalars.filter { !"-_. ".unicodeScalars.contains($0) }))
  }

  // MARK: Values

  /// Whether a redacted value is one to look for elsewhere: long enough, and unlike a word, that
  /// replacing it everywhere cannot destroy names or ordinary text.
  static func isRepeatable(_ value: String) -> Bool {
    guard value != Redaction.marker else { return false }
    var count = 0
    var digit = false
    var upper = false
    var lower = false
    for scalar in value.unicodeScalars {
      count += 1
      switch scalar {
      case "0"..."9": digit = true
      case "A"..."Z": upper = true
      case "a"..."z": lower = true
      default: break
      }
    }
    return count >= 8 && (digit || (count >= 20 && upper && lower))
  }

  /// A compiled pattern for the known secret formats: a capture group per kind, in `valueKinds`
  /// order; for `Bearer`, the group holds only the token.
  static let valuePattern: Pattern? = {
    let sources = [
      #"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)"#,
      #"\bsk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}"#,
      #"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{32,}"#,
      #"\bglpat-[A-Za-z0-9_-]{20,}"#,
      #"\bnpm_[A-Za-z0-9]{36}"#,
      #"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"#,
      #"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"#,
      #"\bxox[abposr]-[A-Za-z0-9-]{10,}"#,
      #"\bAIza[0-9A-Za-z_-]{35}"#,
      #"\b[rs]k_(?:live|test)_[0-9A-Za-z]{10,}"#,
      #"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"#,
    ]
    let pattern = sources.map { "(\($0))" }.joined(separator: "|") + #"|\b[Bb]earer\s+([A-Za-z0-9._~+/-]{8,}=*)"#
    return try? Pattern.compile(pattern, what: "secret formats").get()
  }()

  static let valueKinds: [Kind] = [
    .privateKey, .anthropicKey, .openAIKey, .gitLabToken, .npmToken, .awsAccessKey, .gitHubToken, .slackToken,
    .googleAPIKey, .stripeKey, .jsonWebToken, .bearerToken,
  ]

  /// The shortest text a value pattern can match (`xoxb-` and ten characters; `Bearer ` and eight).
  static let shortestValue = 15
}
