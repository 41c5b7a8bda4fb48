@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What counts as a secret: the one classifier that redaction (of cassettes and the journal's
/// HAR), ``CassetteLint``, the near-miss report and the request log use, so that the linter
/// reports exactly what the redaction removes and no report shows what a cassette would not.
/// In the core, so that the near-miss report can use it; ``Redaction`` (recording) builds it
/// from its names and rules.
package struct SecretRules: Sendable {
  package typealias Kind = SecretKind

  /// What a redacted value is replaced with (``Redaction/marker``).
  static package let marker = "REDACTED"

  /// The headers ``Redaction/default`` names.
  static package let defaultHeaders = [
    "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-API-Key", "X-Auth-Token",
    "X-Amz-Security-Token",
  ]

  /// The query and form parameters ``Redaction/default`` names.
  static package let defaultParameters = [
    "api_key", "apikey", "api-key", "key", "token", "access_token", "refresh_token", "id_token", "client_secret",
    "secret", "password", "signature", "sig", "auth", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token",
  ]

  /// The rules of ``Redaction/default``: every rule, and the names above.
  static let standard = SecretRules(
    headers: defaultHeaders, parameters: defaultParameters, jsonFields: [], kept: [], names: true, values: true,
    echoes: true, digests: true, entropy: true)

  let headers: Set<String>
  let parameters: Set<String>
  let jsonPaths: Set<[String]>
  let kept: Set<String>
  let names: Bool
  let values: Bool
  let echoes: Bool
  package let digests: Bool
  let entropy: Bool

  package init(
    headers: [String], parameters: [String], jsonFields: [String], kept: [String], names: Bool, values: Bool,
    echoes: Bool, digests: Bool, entropy: Bool
  ) {
    self.headers = Set(headers.map { $0.lowercased() })
    self.parameters = Set(parameters.map { $0.lowercased() })
    self.jsonPaths = Set(jsonFields.map { $0.split(separator: ".").map(String.init) }.filter { !$0.isEmpty })
    self.kept = Set(kept.map { $0.lowercased() })
    self.names = names
    self.values = values
    self.echoes = echoes
    self.digests = digests
    self.entropy = entropy
  }

  /// Whether the rules can find nothing at all.
  package var isEmpty: Bool {
    headers.isEmpty && parameters.isEmpty && jsonPaths.isEmpty && !names && !values && !digests && !entropy
  }

  // MARK: Names

  /// The kind of secret a header `name: value` is, or `nil` when it is not one.
  package func header(_ name: String, value: String) -> Kind? {
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
  package func key(_ key: String, keyPath: [String]?) -> Bool {
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
    // Names repeat without end (every entry of a cassette has the same headers), and deciding
    // takes microseconds: remembered, process-wide.
    if let known = secretNameMemo[original] { return known }
    let secret = decideSecretName(original)
    if original.utf8.count <= 256 { secretNameMemo.insert(secret, for: original) }
    return secret
  }

  /// What ``isSecretName(_:)`` decided for each name so far.
  private static let secretNameMemo = BoundedCache<String, Bool>(limit: 8_192)

  private static func decideSecretName(_ original: String) -> Bool {
    let lower = original.lowercased()
    // CORS (`Access-Control-Allow-Credentials: true`) names credentials but carries none.
    if lower.hasPrefix("access-control-") { return false }
    let name = compact(lower)
    if name == "cookie" || name == "cookies" || name == "setcookie" { return true }
    if secretWords.contains(where: { name.contains($0) }) { return true }
    let words = Self.words(original)
    if words.contains(where: secretWholeWords.contains) { return true }
    if let last = words.last, secretLastWords.contains(last) { return true }
    return holdsAuth(name)
  }

  /// Whether a compacted, lower-cased name holds `auth` as in `oauth`, `authorization`,
  /// `x-auth-…`, but not as in `author` or `authority`.
  static func holdsAuth(_ name: String) -> Bool {
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
  static func compact(_ lower: String) -> String {
    String(String.UnicodeScalarView(lower.unicodeScalars.filter { !"-_. ".unicodeScalars.contains($0) }))
  }

  // MARK: Values

  /// Whether a redacted value is one to look for elsewhere: long enough, and unlike a word, that
  /// replacing it everywhere cannot destroy names or ordinary text.
  static func isRepeatable(_ value: String) -> Bool {
    guard value != SecretRules.marker else { return false }
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

  /// The known secret formats, each with its kind. A format with a prefix that is not secret
  /// (`Bearer `, a Slack webhook's host, Azure's `AccountKey=`) keeps it out of the match with a
  /// look-behind, so only the secret itself is replaced.
  static let valueFormats: [(source: String, kind: Kind)] = [
    (#"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)"#, .privateKey),
    (#"\bsk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}"#, .anthropicKey),
    (#"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|\bsk-[A-Za-z0-9]{32,}"#, .openAIKey),
    (#"\bglpat-[A-Za-z0-9_-]{20,}"#, .gitLabToken),
    (#"\bnpm_[A-Za-z0-9]{36}"#, .npmToken),
    (#"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"#, .awsAccessKey),
    (#"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"#, .gitHubToken),
    (
      #"(?<=hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9_]{6,}/[A-Za-z0-9_]{6,}/[A-Za-z0-9_]{8,}"#,
      .slackWebhook
    ),
    (#"\bxox[abposr]-[A-Za-z0-9-]{10,}"#, .slackToken),
    (#"\bAIza[0-9A-Za-z_-]{35}"#, .googleAPIKey),
    (#"\b[rs]k_(?:live|test)_[0-9A-Za-z]{10,}"#, .stripeKey),
    (#"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"#, .sendGridKey),
    (#"\b(?:AC|SK)[0-9a-f]{32}\b"#, .twilioKey),
    (#"\bhf_[A-Za-z0-9]{30,}"#, .huggingFaceToken),
    (#"\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b"#, .shopifyToken),
    (#"\bdo[opr]_v1_[0-9a-f]{64}\b"#, .digitalOceanToken),
    (#"(?<![0-9])[0-9]{8,10}:AA[0-9A-Za-z_-]{33}(?![0-9A-Za-z_-])"#, .telegramBotToken),
    (#"(?<=AccountKey=|SharedAccessKey=)[A-Za-z0-9+/]{20,}={0,2}"#, .azureStorageKey),
    (#"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"#, .jsonWebToken),
    (#"(?<=\b[Bb]earer[ \t]{1,4})[A-Za-z0-9._~+/-]{8,}=*"#, .bearerToken),
  ]

  /// Text every match of ``valueFormats`` holds, one or more for each format (its literal
  /// prefix, or the look-behind's text): a string holding none of them cannot hold a known format,
  /// so the regular expression, which costs microseconds even on a short string, is not run on it.
  /// Kept in step with ``valueFormats`` by a test that matches each format's examples.
  static let valueAnchors: [[UInt8]] = [
    "-----BEGIN ", "sk-", "glpat-", "npm_", "AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
    "github_pat_", "hooks.slack.com/", "xox", "AIza", "k_live_", "k_test_", "SG.", "hf_", "shp", "_v1_",
    ":AA", "AccountKey=", "SharedAccessKey=", "eyJ", "earer",
  ].map { Array($0.utf8) }

  /// Whether `text` holds one of ``valueAnchors``, or a Twilio key's `AC` or `SK` followed by a
  /// lower-case hexadecimal digit: whether it may hold a known secret format.
  static func mayHoldKnownFormat(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      let count = bytes.count
      var index = 0
      while index < count {
        let byte = bytes[index]
        if anchorStarts[Int(byte)] {
          for anchor in valueAnchors where anchor[0] == byte && index + anchor.count <= count {
            var offset = 1
            while offset < anchor.count, bytes[index + offset] == anchor[offset] { offset += 1 }
            if offset == anchor.count { return true }
          }
          if byte == UInt8(ascii: "A") || byte == UInt8(ascii: "S"), index + 2 < count,
            bytes[index + 1] == (byte == UInt8(ascii: "A") ? UInt8(ascii: "C") : UInt8(ascii: "K")),
            isLowerHex(bytes[index + 2])
          {
            return true
          }
        }
        index += 1
      }
      return false
    }
  }

  /// For each byte, whether an anchor (or a Twilio key) starts with it.
  private static let anchorStarts: [Bool] = {
    var starts = [Bool](repeating: false, count: 256)
    for anchor in valueAnchors { starts[Int(anchor[0])] = true }
    starts[Int(UInt8(ascii: "A"))] = true
    starts[Int(UInt8(ascii: "S"))] = true
    return starts
  }()

  private static func isLowerHex(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }

  /// A compiled pattern for the known secret formats: a capture group per format, in
  /// ``valueFormats`` order.
  static let valuePattern: Pattern? = {
    let pattern = valueFormats.map { "(\($0.source))" }.joined(separator: "|")
    return try? Pattern.compile(pattern, what: "secret formats").get()
  }()

  static let valueKinds: [Kind] = valueFormats.map(\.kind)

  // MARK: Values of unknown formats

  /// Parts of a name that make a long high-entropy value under it secret (``Redaction/Rules/highEntropyValues``):
  /// `X-Goog-Key`, `AccountKey`, `signingKey`, `x-functions-key`.
  private static let keyLikeWords = [
    "key", "token", "secret", "password", "passwd", "signature", "credential", "auth",
  ]

  /// Whether a name is one that a long high-entropy value under it makes secret (in any case,
  /// ignoring `-`, `_`, `.` and spaces).
  ///
  /// An HTTP/2 pseudo-header (`:authority`, `:path`) is not: its value is the request's host or
  /// target, scanned as any text is.
  func isKeyLike(_ name: String) -> Bool {
    guard entropy, !name.hasPrefix(":") else { return false }
    if !kept.isEmpty, kept.contains(name.lowercased()) { return false }
    // As with secret names: the same few names come in every entry, and deciding takes
    // microseconds (the dashboard's journal list redacts thousands of entries).
    if let known = Self.keyLikeMemo[name] { return known }
    let compacted = Self.compact(name.lowercased())
    let keyLike = Self.keyLikeWords.contains { $0 == "auth" ? Self.holdsAuth(compacted) : compacted.contains($0) }
    if name.utf8.count <= 256 { Self.keyLikeMemo.insert(keyLike, for: name) }
    return keyLike
  }

  /// What ``isKeyLike(_:)`` decided for each name so far, whatever the names kept.
  private static let keyLikeMemo = BoundedCache<String, Bool>(limit: 8_192)

  /// The fewest characters a high-entropy value has.
  static let entropyLength = 20
  /// The fewest bits of Shannon entropy per character a high-entropy value has.
  static let entropyBits = 3.5

  /// Whether `value` looks like a key of an unknown format: at least ``entropyLength`` characters
  /// with no white space, letters and digits both, at least ``entropyBits`` bits of Shannon entropy
  /// per character, and not a UUID (an ordinary id).
  static func isHighEntropy(_ value: Substring) -> Bool {
    let scalars = value.unicodeScalars
    guard scalars.count >= entropyLength, value != SecretRules.marker else { return false }
    var counts: [Unicode.Scalar: Int] = [:]
    var letter = false
    var digit = false
    for scalar in scalars {
      if scalar.properties.isWhitespace { return false }
      switch scalar {
      case "0"..."9": digit = true
      case "A"..."Z", "a"..."z": letter = true
      default: break
      }
      counts[scalar, default: 0] += 1
    }
    guard letter, digit, !isUUID(value) else { return false }
    let total = Double(scalars.count)
    var bits = 0.0
    for count in counts.values {
      let share = Double(count) / total
      bits -= share * log2(share)
    }
    return bits >= entropyBits
  }

  static func isHighEntropy(_ value: String) -> Bool { isHighEntropy(value[...]) }

  /// `8-4-4-4-12` hexadecimal digits.
  private static func isUUID(_ value: Substring) -> Bool {
    let groups = value.split(separator: "-", omittingEmptySubsequences: false)
    guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
    return groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
  }

  /// The shortest text a value pattern can match (`xoxb-` and ten characters; `Bearer ` and eight).
  static let shortestValue = 15
}
