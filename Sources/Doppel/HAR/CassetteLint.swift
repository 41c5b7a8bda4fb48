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

    /// A `Bearer …` token, in an `Authorization` header or anywhere else.
    public static let bearerToken = Kind(description: "bearer token")
    /// `Basic …` credentials.
    public static let basicCredentials = Kind(description: "basic credentials")
    /// Another value of `Authorization` or `Proxy-Authorization`.
    public static let credentials = Kind(description: "credentials")
    /// A cookie, in a `Cookie` or `Set-Cookie` header or a HAR `cookies` list.
    public static let cookie = Kind(description: "cookie")
    /// An AWS access key ID (`AKIA…`, `ASIA…`).
    public static let awsAccessKey = Kind(description: "AWS access key ID")
    /// A GitHub token (`ghp_…`, `gho_…`, `github_pat_…`).
    public static let gitHubToken = Kind(description: "GitHub token")
    /// A Slack token (`xoxb-…`, `xoxp-…`).
    public static let slackToken = Kind(description: "Slack token")
    /// A Google API key (`AIza…`).
    public static let googleAPIKey = Kind(description: "Google API key")
    /// A Stripe secret key (`sk_live_…`).
    public static let stripeKey = Kind(description: "Stripe secret key")
    /// A JSON Web Token (`eyJ….eyJ….…`).
    public static let jsonWebToken = Kind(description: "JSON Web Token")
    /// A PEM private key block.
    public static let privateKey = Kind(description: "private key")
    /// An OpenAI API key (`sk-proj-…`, `sk-…`).
    public static let openAIKey = Kind(description: "OpenAI API key")
    /// An Anthropic API key (`sk-ant-api03-…`).
    public static let anthropicKey = Kind(description: "Anthropic API key")
    /// A GitLab personal access token (`glpat-…`).
    public static let gitLabToken = Kind(description: "GitLab token")
    /// An npm access token (`npm_…`).
    public static let npmToken = Kind(description: "npm token")
    /// The password of a URL's user information (`https://user:PASSWORD@host`).
    public static let urlPassword = Kind(description: "password in a URL")
    /// A body that cannot be scanned for secrets (compressed in a form Doppel cannot read, or too
    /// large decompressed), kept whole (``Redaction/Rules/unscannableBodies``).
    public static let unscannableBody = Kind(description: "body that cannot be scanned for secrets")

    /// A header that carries API keys, such as `X-API-Key`.
    public static func apiKeyHeader(_ name: String) -> Kind { Kind(description: "API key header \(name)") }
    /// A query or form parameter that carries secrets, such as `api_key`.
    public static func secretParameter(_ name: String) -> Kind {
      Kind(description: "secret query parameter \"\(name)\"")
    }
    /// A JSON body field that carries secrets, such as `password`.
    public static func secretJSONField(_ name: String) -> Kind { Kind(description: "secret JSON field \"\(name)\"") }
    /// An HTML `<meta>` or `<input>` whose name says its value is secret, such as
    /// `<meta name="csrf-token" content="…">`.
    public static func secretHTMLField(_ name: String) -> Kind {
      Kind(description: "secret HTML field \"\(name)\"")
    }
    /// Another header whose name says it is secret, such as `X-Session-Token`.
    public static func secretHeader(_ name: String) -> Kind { Kind(description: "secret header \(name)") }
    /// A copy of a secret found elsewhere in the file (``Redaction/Rules/repeatedSecrets``).
    public static let repeatedSecret = Kind(description: "a secret found elsewhere in the file, repeated")
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
      json = try JSONValue(parsing: data)
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
