import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Finds secrets left in cassettes: exactly what a ``Redaction`` (by default ``Redaction/default``)
/// would remove, anywhere in a file, bodies and fields Doppel does not use included. A cassette
/// saved with a redaction lints clean with it.
///
/// ```swift
/// for finding in try CassetteLint.scan(fileAt: cassetteURL) {
///   print(finding)  // …/breeds.har: entries[2].request.headers.Authorization: bearer token
/// }
/// ```
///
/// Values replaced by ``Redaction/marker`` are not reported. Bodies are scanned in every encoding,
/// as redaction reads them (base64, gzip, zlib and DEFLATE decoded, binary bodies' runs of text),
/// and a body that cannot be scanned is reported under ``Redaction/Rules/unscannableBodies``.
public enum CassetteLint {
  /// A secret found in a cassette.
  public struct Finding: Sendable, Hashable, CustomStringConvertible {
    /// The file, as given to the scan.
    public let file: String
    /// The index of the entry in `log.entries`, or `nil` for a field outside the entries.
    public let entry: Int?
    /// Where in the file: `entries[2].request.headers.Authorization`, or a JSON path such as
    /// `log.comment` outside the entries.
    public let field: String
    /// What was found.
    public let kind: Kind

    /// `file: field: kind`.
    public var description: String { "\(file): \(field): \(kind)" }
  }

  /// A kind of secret.
  public struct Kind: Sendable, Hashable, CustomStringConvertible {
    /// What it is, in words: `bearer token`.
    public let description: String

    init(description: String) { self.description = description }

    /// The kind the scanner found.
    init(_ kind: SecretKind) { self.description = kind.description }

    /// A `Bearer …` token, in an `Authorization` header or anywhere else.
    public static let bearerToken = Kind(SecretKind.bearerToken)
    /// `Basic …` credentials.
    public static let basicCredentials = Kind(SecretKind.basicCredentials)
    /// Another value of `Authorization` or `Proxy-Authorization`.
    public static let credentials = Kind(SecretKind.credentials)
    /// A cookie, in a `Cookie` or `Set-Cookie` header or a HAR `cookies` list.
    public static let cookie = Kind(SecretKind.cookie)
    /// An AWS access key ID (`AKIA…`, `ASIA…`).
    public static let awsAccessKey = Kind(SecretKind.awsAccessKey)
    /// A GitHub token (`ghp_…`, `gho_…`, `github_pat_…`).
    public static let gitHubToken = Kind(SecretKind.gitHubToken)
    /// A Slack token (`xoxb-…`, `xoxp-…`).
    public static let slackToken = Kind(SecretKind.slackToken)
    /// A Google API key (`AIza…`).
    public static let googleAPIKey = Kind(SecretKind.googleAPIKey)
    /// A Stripe secret key (`sk_live_…`).
    public static let stripeKey = Kind(SecretKind.stripeKey)
    /// A JSON Web Token (`eyJ….eyJ….…`).
    public static let jsonWebToken = Kind(SecretKind.jsonWebToken)
    /// A PEM private key block.
    public static let privateKey = Kind(SecretKind.privateKey)
    /// An OpenAI API key (`sk-proj-…`, `sk-…`).
    public static let openAIKey = Kind(SecretKind.openAIKey)
    /// An Anthropic API key (`sk-ant-api03-…`).
    public static let anthropicKey = Kind(SecretKind.anthropicKey)
    /// A GitLab personal access token (`glpat-…`).
    public static let gitLabToken = Kind(SecretKind.gitLabToken)
    /// An npm access token (`npm_…`).
    public static let npmToken = Kind(SecretKind.npmToken)
    /// A Slack incoming webhook's secret path (`https://hooks.slack.com/services/T…/B…/…`).
    public static let slackWebhook = Kind(SecretKind.slackWebhook)
    /// A SendGrid API key (`SG.….…`).
    public static let sendGridKey = Kind(SecretKind.sendGridKey)
    /// A Twilio account SID or API key SID (`AC…`, `SK…` and 32 hexadecimal digits).
    public static let twilioKey = Kind(SecretKind.twilioKey)
    /// A Hugging Face access token (`hf_…`).
    public static let huggingFaceToken = Kind(SecretKind.huggingFaceToken)
    /// A Shopify access token or shared secret (`shpat_…`, `shpca_…`, `shppa_…`, `shpss_…`).
    public static let shopifyToken = Kind(SecretKind.shopifyToken)
    /// A DigitalOcean token (`dop_v1_…`, `doo_v1_…`, `dor_v1_…`).
    public static let digitalOceanToken = Kind(SecretKind.digitalOceanToken)
    /// A Telegram bot token (`123456789:AA…`).
    public static let telegramBotToken = Kind(SecretKind.telegramBotToken)
    /// The key of an Azure storage connection string (`AccountKey=…`, `SharedAccessKey=…`).
    public static let azureStorageKey = Kind(SecretKind.azureStorageKey)
    /// The password of a URL's user information (`https://user:PASSWORD@host`).
    public static let urlPassword = Kind(SecretKind.urlPassword)
    /// A body that cannot be scanned for secrets (compressed in a form Doppel cannot read, or too
    /// large decompressed), kept whole (``Redaction/Rules/unscannableBodies``).
    public static let unscannableBody = Kind(SecretKind.unscannableBody)

    /// A header that carries API keys, such as `X-API-Key`.
    public static func apiKeyHeader(_ name: String) -> Kind { Kind(SecretKind.apiKeyHeader(name)) }
    /// A query or form parameter that carries secrets, such as `api_key`.
    public static func secretParameter(_ name: String) -> Kind { Kind(SecretKind.secretParameter(name)) }
    /// A JSON body field that carries secrets, such as `password`.
    public static func secretJSONField(_ name: String) -> Kind { Kind(SecretKind.secretJSONField(name)) }
    /// An HTML `<meta>` or `<input>` whose name says its value is secret, such as
    /// `<meta name="csrf-token" content="…">`.
    public static func secretHTMLField(_ name: String) -> Kind { Kind(SecretKind.secretHTMLField(name)) }
    /// A multipart form part whose name says it is secret, such as `password`.
    public static func secretMultipartField(_ name: String) -> Kind { Kind(SecretKind.secretMultipartField(name)) }
    /// An XML element or attribute whose name says it is secret, such as `<password>`.
    public static func secretXMLField(_ name: String) -> Kind { Kind(SecretKind.secretXMLField(name)) }
    /// A long high-entropy value under a name like a key's, token's or password's, such as
    /// `X-Goog-Key` (``Redaction/Rules/highEntropyValues``).
    public static func highEntropyValue(_ name: String) -> Kind { Kind(SecretKind.highEntropyValue(name)) }
    /// Another header whose name says it is secret, such as `X-Session-Token`.
    public static func secretHeader(_ name: String) -> Kind { Kind(SecretKind.secretHeader(name)) }
    /// A copy of a secret found elsewhere in the file (``Redaction/Rules/repeatedSecrets``).
    public static let repeatedSecret = Kind(SecretKind.repeatedSecret)
  }

  /// Scans the file at `url` for what `redaction` would remove.
  ///
  /// - Throws: ``DoppelError`` when the file cannot be read or is not JSON.
  public static func scan(fileAt url: URL, redaction: Redaction = .default) throws -> [Finding] {
    let data = try WholeFile.read(url) {
      DoppelError.cassette("Could not read the cassette \(url.path) to lint it: \($0). Check the path.")
    }
    return try scan(data, file: url.path, redaction: redaction)
  }

  /// Scans HAR JSON for what `redaction` would remove; `file` names it in the findings.
  ///
  /// - Throws: ``DoppelError`` when `data` is not JSON.
  public static func scan(_ data: Data, file: String, redaction: Redaction = .default) throws -> [Finding] {
    let json: JSONValue
    do {
      // The parser manifests are read with: many times faster than `JSONDecoder` on a document of
      // megabytes (a 10,000-stub manifest). What it refuses and `JSONDecoder` reads (a repeated
      // key), `JSONDecoder` still decides.
      if let parsed = try? PositionedJSONParser.parse(Array(data)) {
        json = parsed.jsonValue
      } else {
        json = try JSONValue(parsing: data)
      }
    } catch {
      throw DoppelError.cassette(
        "\(file): is not valid JSON, so it cannot be linted. A HAR file is one JSON document; check that it is complete."
      )
    }
    var scanner = LintScanner(file: file, redaction: redaction)
    scanner.walk(json)
    return scanner.findings
  }
}
