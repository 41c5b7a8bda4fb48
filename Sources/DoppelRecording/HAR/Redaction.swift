import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Which secrets to replace with ``marker`` before a cassette touches the disk.
///
/// ```swift
/// try cassette.save(to: url)  // redacted with Redaction.default
/// let redaction = Redaction.default.adding(headers: ["X-Tenant"]).keeping(names: ["session_count"])
/// try cassette.save(to: url, redaction: redaction)
/// ```
///
/// The ``default`` redaction finds secrets by five ``Rules``:
/// - ``Rules/secretNames``: a header, query or form parameter, or JSON object key (in request and
///   response bodies, at any depth) whose name a user would call secret: `Authorization`,
///   `Cookie`, `Set-Cookie`, and any name containing `token`, `secret`, `password`, `passwd`,
///   `api_key` (or `apikey`, `api-key`, `apiKey`), `session`, `auth` (but not `author`),
///   `credential`, `private_key`, `signature`, `csrf`, `xsrf`, `passphrase` or `passcode`, in any
///   case and with `-`, `_`, `.` or spaces anywhere; any name with the word `pwd`, `pass`, `pw`,
///   `otp`, `totp` or `hotp` (words split at those characters and at camel case: `user_pass`,
///   `otpCode`, but not `passenger` or `compass`), or ending in the word `refresh` (but not
///   `refresh_rate`); and, as query and form parameters only, OAuth's `code` and `state`. The
///   password of a URL (`https://user:PASSWORD@host`), a URL's fragment as its query
///   (`#access_token=…`, in a `Location`, `Link`, `Refresh` or any URL), the value of an HTML
///   `<meta>` or `<input>` with such a name, of an XML element or attribute (`<password>`), of a
///   `multipart/form-data` part, and of a `"name": "value"` JSON pair in other text are secret too
///   (the HTTP header `Refresh` is not). The whole value is replaced; a JSON value that is a list of strings has each string
///   replaced. Numbers, Booleans and `null` are kept, so a replayed body still decodes.
/// - ``Rules/knownSecretValues``: JSON Web Tokens, `Bearer` tokens, PEM private keys, and the key
///   formats of Stripe (`sk_live_…`, `rk_live_…`, `…_test_…`), GitHub (`ghp_…`, `gho_…`, `ghs_…`,
///   `github_pat_…`), AWS (`AKIA…`), Google (`AIza…`), Slack (`xox…`), OpenAI (`sk-proj-…`,
///   `sk-…`), Anthropic (`sk-ant-…`), GitLab (`glpat-…`), npm (`npm_…`), Slack webhooks, SendGrid
///   (`SG.…`), Twilio (`AC…`, `SK…`), Hugging Face (`hf_…`), Shopify (`shpat_…`), DigitalOcean
///   (`dop_v1_…`), Telegram bot tokens and Azure storage keys (`AccountKey=…`), wherever they
///   appear: any header, URL, cookie or body text. Only the secret itself is replaced
///   (`Bearer REDACTED`).
/// - ``Rules/highEntropyValues``: a value of no known format under a name containing `key`,
///   `token`, `secret`, `password`, `passwd`, `signature`, `credential` or `auth` (any case,
///   ignoring `-`, `_`, `.` and spaces), in any header, query, form, multipart, JSON or XML field,
///   when it has at least 20 characters, no white space, letters and digits, at least 3.5 bits of
///   Shannon entropy per character, and is not a UUID.
/// - ``Rules/repeatedSecrets``: a value redacted in one place is also replaced wherever else it
///   appears in the cassette: a password the server echoes, a token sent back in another header, a
///   URL or a path. Only values that look like secrets repeat this way: at least 8 characters with
///   a digit, or 20 characters mixing upper and lower case; so a redacted `"token_type": "Bearer"`
///   does not erase every `Bearer` in the file.
/// - ``Rules/unscannableBodies``: a body that cannot be searched is written as its digest (see
///   ``unscannableBodyDigest(of:)``); exclude the rule to keep such bodies as they are.
///
/// Besides URLs and form bodies, `name=value` pairs are looked for in any text (a URL inside a JSON
/// string, an echoed form), and a string holding JSON is redacted as JSON. Request and response
/// bodies are both redacted, in every encoding: base64 ones (and text bodies that are all base64)
/// after decoding; gzip, zlib and DEFLATE ones decoded (up to 16 MiB) and, when something was
/// replaced, written back in the same format in stored blocks; other binary bodies in their runs of
/// ASCII text.
///
/// To keep a value that a rule would remove, name it in ``keeping(names:)``, or leave a rule out
/// with ``excluding(_:)``. ``CassetteLint`` reports exactly what a redaction would remove, and
/// near-miss reports, the stub server's journal and the request log hide what ``default`` would:
/// one scanner decides for all.
///
/// Replay still matches redacted values: a recorded value that is or holds the marker matches any
/// text in its place (see ``Backend/replay(_:matching:replayingTimings:name:fileID:filePath:line:column:)``).
public struct Redaction: Sendable, Equatable {
  /// What a redacted value is replaced with: `REDACTED`.
  public static let marker = SecretRules.marker

  /// The rules that find secrets beyond the names listed in a redaction.
  public struct Rules: OptionSet, Sendable, Hashable {
    /// The rules' bits.
    public let rawValue: Int

    /// Creates rules from their bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Headers, query and form parameters and JSON keys whose names a user would call secret.
    public static let secretNames = Rules(rawValue: 1 << 0)
    /// JSON Web Tokens, `Bearer` tokens, private keys, and the key formats of Stripe, GitHub, AWS,
    /// Google, Slack, OpenAI, Anthropic, GitLab, npm, SendGrid, Twilio, Hugging Face, Shopify,
    /// DigitalOcean, Telegram and Azure, anywhere.
    public static let knownSecretValues = Rules(rawValue: 1 << 1)
    /// A value redacted in one place is redacted wherever else it appears.
    public static let repeatedSecrets = Rules(rawValue: 1 << 2)
    /// A body that cannot be scanned for secrets is written as its digest: see
    /// ``Redaction/unscannableBodyDigest(of:)``.
    public static let unscannableBodies = Rules(rawValue: 1 << 3)
    /// A value of an unknown format that looks like a key, under a name like a key's: see
    /// ``Redaction`` for the thresholds.
    public static let highEntropyValues = Rules(rawValue: 1 << 4)
    /// Every rule, as in ``Redaction/default``.
    public static let all: Rules = [
      .secretNames, .knownSecretValues, .repeatedSecrets, .unscannableBodies, .highEntropyValues,
    ]
  }

  /// Header names whose values are replaced, besides those the ``rules`` find (the parsed
  /// `cookies` of a HAR entry follow `Cookie` and `Set-Cookie`).
  public private(set) var headers: [String]
  /// Query parameter names whose values are replaced, besides those the ``rules`` find, in URLs
  /// (the request's, a redirect's `Location`, any URL in a body) and in form-encoded bodies.
  public private(set) var queryParameters: [String]
  /// JSON key paths, such as `user.password`, whose values are replaced in JSON bodies, besides
  /// the keys the ``rules`` find.
  public private(set) var jsonFields: [String]
  /// Names never redacted for their name (headers, parameters and JSON keys, in any case). Their
  /// values are still replaced when they hold a known secret format or repeat a redacted value.
  public private(set) var keptNames: [String]
  /// The rules that find secrets beyond the names listed.
  public private(set) var rules: Rules

  /// Creates a redaction of exactly these names, and the secrets `rules` find (none by default; see
  /// ``default`` for the usual redaction).
  public init(
    headers: [String] = [], queryParameters: [String] = [], jsonFields: [String] = [], rules: Rules = []
  ) {
    self.headers = headers
    self.queryParameters = queryParameters
    self.jsonFields = jsonFields
    self.keptNames = []
    self.rules = rules
  }

  /// Every rule (``Rules/all``), plus, by name, the headers and query parameters listed in
  /// ``headers`` and ``queryParameters`` (most of which the rules find anyway; `key` and `sig`
  /// they would not).
  public static let `default` = Redaction(
    headers: SecretRules.defaultHeaders, queryParameters: SecretRules.defaultParameters, rules: .all)

  /// Redacts nothing.
  public static let disabled = Redaction()

  /// This redaction with more names.
  public func adding(headers: [String] = [], queryParameters: [String] = [], jsonFields: [String] = []) -> Redaction {
    var copy = self
    copy.headers += headers
    copy.queryParameters += queryParameters
    copy.jsonFields += jsonFields
    return copy
  }

  /// This redaction, except that `names` (headers, parameters or JSON keys, in any case) are not
  /// redacted for their name: `.default.keeping(names: ["WWW-Authenticate", "session_count"])`.
  public func keeping(names: [String]) -> Redaction {
    var copy = self
    copy.keptNames += names
    return copy
  }

  /// This redaction without `rules`: `.default.excluding(.repeatedSecrets)`.
  public func excluding(_ rules: Rules) -> Redaction {
    var copy = self
    copy.rules.subtract(rules)
    return copy
  }

  /// This redaction with `rules` as well: `Redaction(headers: ["X-Key"]).including(.knownSecretValues)`.
  public func including(_ rules: Rules) -> Redaction {
    var copy = self
    copy.rules.formUnion(rules)
    return copy
  }

  /// `cassette` with every entry, and every other field of the document, redacted. A value
  /// redacted in one entry is redacted in every other (``Rules/repeatedSecrets``).
  ///
  /// A document that cannot be written as JSON (a time that is not a finite number) comes back
  /// with no entries, so that nothing unredacted can be saved from it.
  public func redact(_ cassette: Cassette) -> Cassette {
    (try? redacted(cassette)) ?? Cassette()
  }

  /// `entry` with its secrets replaced by ``marker``.
  ///
  /// An entry that cannot be written as JSON (a time that is not a finite number) comes back with
  /// only its method and status, so that nothing unredacted can be saved from it.
  public func redact(_ entry: HAREntry) -> HAREntry {
    let rules = SecretRules(self)
    guard !rules.isEmpty else { return entry }
    let scorched = HAREntry(
      startedDateTime: entry.startedDateTime, request: HARRequest(method: entry.request.method, url: Self.marker),
      response: HARResponse(status: entry.response.status))
    guard let json = try? JSONValue(fastEncoding: entry) else { return scorched }
    var walker = SecretWalker.har(rules: rules, collectsFindings: false)
    guard let output = walker.redact([json]).first, output != json else { return entry }
    return (try? Self.decode(HAREntry.self, from: output)) ?? scorched
  }

  /// `cassette` redacted, or an error when it cannot be written as JSON.
  package func redacted(_ cassette: Cassette) throws -> Cassette {
    let rules = SecretRules(self)
    guard !rules.isEmpty else { return cassette }
    let json = try JSONValue(fastEncoding: cassette.har)
    var walker = SecretWalker.har(rules: rules, collectsFindings: false)
    guard let output = walker.redact([json]).first, output != json else { return cassette }
    return Cassette(har: try Self.decode(HARFile.self, from: output))
  }

  private static func decode<T: Decodable>(_ type: T.Type, from json: JSONValue) throws -> T {
    try JSONDecoder().decode(T.self, from: JSONEncoder().encode(json))
  }
}

extension Redaction {
  /// What a body that cannot be scanned for secrets is written as under
  /// ``Rules/unscannableBodies``: `doppel-redacted: sha256 <hex> length <bytes>`, the digest and
  /// length of its bytes, so that two recordings can still be told apart.
  ///
  /// A body cannot be scanned when it is compressed in a form Doppel cannot decode (brotli, zstd,
  /// xz, bzip2, zip, 7z, rar: by its `Content-Encoding`, MIME type or first bytes), or is gzip,
  /// zlib or DEFLATE that is malformed or decodes to more than 16 MiB. Other binary bodies are
  /// scanned: their runs of ASCII text, for every rule.
  public static func unscannableBodyDigest(of body: Data) -> String {
    "doppel-redacted: sha256 \(SHA256.hex(body)) length \(body.count)"
  }

  /// `line` (a request line the command-line tool prints, such as `GET /cb?code=… → 200`) with
  /// the secrets this redaction finds in text replaced: secret query items, a URL's password,
  /// known secret formats.
  package func redact(line: String) -> String {
    let rules = SecretRules(self)
    guard !rules.isEmpty else { return line }
    var walker = SecretWalker(rules: rules, collectsFindings: false)
    return walker.text(line, SecretWalker.Place(report: [], keyPath: nil, tracks: false))
  }

  /// Whether this redaction would replace the value of the header `name: value` (`Authorization`,
  /// `Cookie`, `X-Api-Key`, the headers it names), for the tool's reports.
  package func redacts(header name: String, value: String) -> Bool {
    SecretRules(self).header(name, value: value) != nil
  }

  /// Whether this redaction would replace the value of the JSON key `key` of a body, `keyPath`
  /// being the keys from the body's root to it, for the tool's reports.
  package func redacts(jsonKey key: String, keyPath: [String]) -> Bool {
    SecretRules(self).key(key, keyPath: keyPath)
  }
}

extension SecretRules {
  /// The rules of `redaction`.
  init(_ redaction: Redaction) {
    self.init(
      headers: redaction.headers, parameters: redaction.queryParameters, jsonFields: redaction.jsonFields,
      kept: redaction.keptNames, names: redaction.rules.contains(.secretNames),
      values: redaction.rules.contains(.knownSecretValues), echoes: redaction.rules.contains(.repeatedSecrets),
      digests: redaction.rules.contains(.unscannableBodies), entropy: redaction.rules.contains(.highEntropyValues))
  }
}
