@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Matcher {
  /// Matches the request method.
  public static func method(_ method: HTTPMethod) -> Matcher {
    Matcher(
      Condition(
        field: "method", expected: method.rawValue, summary: method.rawValue, part: .method,
        literal: .method(method), actual: { $0.method.rawValue })
    ).spelled(.method(method.rawValue))
  }

  /// `GET` and ``url(_:)``.
  public static func get(_ url: String) -> Matcher { cached(.get, url) }
  /// `POST` and ``url(_:)``.
  public static func post(_ url: String) -> Matcher { cached(.post, url) }
  /// `PUT` and ``url(_:)``.
  public static func put(_ url: String) -> Matcher { cached(.put, url) }
  /// `PATCH` and ``url(_:)``.
  public static func patch(_ url: String) -> Matcher { cached(.patch, url) }
  /// `DELETE` and ``url(_:)``.
  public static func delete(_ url: String) -> Matcher { cached(.delete, url) }
  /// `HEAD` and ``url(_:)``.
  public static func head(_ url: String) -> Matcher { cached(.head, url) }

  /// `method && url(url)`, built once per process for each pair: a suite declares the same stubs in
  /// test after test, often thousands of tests running at once, and a matcher is immutable (its
  /// conditions are shared objects that never change), so every stub of a pair shares one, with
  /// its ``Plan`` worked out once.
  private static func cached(_ method: HTTPMethod, _ url: String) -> Matcher {
    let key = MethodAndURL(method: method, url: url)
    if let matcher = methodAndURLCache[key] { return matcher }
    var matcher = self.method(method) && self.url(url)
    matcher.plan = Plan(matcher)
    methodAndURLCache.insert(matcher, for: key)
    return matcher
  }

  private struct MethodAndURL: Hashable {
    let method: HTTPMethod
    let url: String
  }

  /// The method-and-URL matchers built so far: far more than a suite declares.
  private static let methodAndURLCache = BoundedCache<MethodAndURL, Matcher>(limit: 4_096)

  /// Matches a URL written as in a browser, or just its path.
  ///
  /// - An absolute URL (`"https://api.example.com/breeds.json"`) matches scheme, host, port and
  ///   path. A URL without a port matches the scheme's default port.
  /// - A path (`"/breeds.json"`) matches that path on any host.
  /// - The path may be a template: `"/users/{id}"` captures one segment into
  ///   ``Request/pathParameters``.
  /// - A query (`"/breeds?page=2"`) requires those items, in any order, among the request's
  ///   (see ``query(_:)``).
  ///
  /// An invalid string gives a matcher that matches nothing and reports the problem.
  public static func url(_ string: String) -> Matcher {
    switch StubURL.parse(string) {
    case .failure(let problem):
      return Matcher(.invalid(problem))
    case .success(let parsed):
      var parts: [Matcher] = []
      if let scheme = parsed.scheme {
        // Without an explicit port, the scheme implies its default one (https → 443).
        parts.append(parsed.port == nil ? schemeOnDefaultPort(scheme) : .scheme(scheme))
      }
      if let host = parsed.host { parts.append(.host(host)) }
      if let port = parsed.port { parts.append(.port(port)) }
      parts.append(.path(parsed.path))
      if let query = parsed.query, !query.isEmpty { parts.append(queryMatcher(query, exactly: false)) }
      parts = parts.map { $0.spelled(.url(string)) }
      return parts.count == 1 ? parts[0] : Matcher(.all(parts))
    }
  }

  /// Matches the whole URL: scheme, host, port, path and exactly these query items (in any order).
  public static func url(exactly string: String) -> Matcher {
    switch StubURL.parse(string) {
    case .failure(let problem):
      return Matcher(.invalid(problem))
    case .success(let parsed) where parsed.host == nil:
      return Matcher(
        .invalid(
          DoppelError.invalidStub(
            "Invalid URL \"\(string)\" in .url(exactly:): it needs a scheme and a host, such as \"https://api.example.com/breeds.json\"; use .url(_:) or .path(_:) to match a path on any host."
          )))
    case .success(let parsed):
      return url(string.split(separator: "?", maxSplits: 1).first.map(String.init) ?? string)
        && queryMatcher(parsed.query ?? [], exactly: true)
    }
  }

  /// Matches the scheme (`https`), compared case-insensitively.
  public static func scheme(_ scheme: String) -> Matcher {
    let scheme = scheme.lowercased()
    return Matcher(
      Condition(
        field: "scheme", expected: scheme, summary: scheme, part: .scheme, literal: .scheme(scheme),
        actual: { $0.scheme }))
  }

  /// Matches the host (`api.example.com`), compared case-insensitively.
  public static func host(_ host: String) -> Matcher {
    let host = host.lowercased()
    return Matcher(
      Condition(
        field: "host", expected: host, summary: host, part: .host, key: .host(host), literal: .host(host),
        actual: { $0.host })
    ).spelled(.host(host))
  }

  /// Matches the port, counting a URL without one as on its scheme's default (80, 443).
  public static func port(_ port: Int) -> Matcher {
    Matcher(
      Condition(
        field: "port", expected: String(port), summary: String(port), part: .port, literal: .port(port),
        actual: { $0.effectivePort.map(String.init) ?? "none" }))
  }

  /// The scheme, on its default port when it has one: what `https://host/…` means.
  private static func schemeOnDefaultPort(_ scheme: String) -> Matcher {
    let scheme = scheme.lowercased()
    let port = Request.defaultPort(for: scheme)
    return Matcher(
      Condition(
        field: "scheme", expected: scheme, summary: scheme, part: .scheme,
        literal: .schemeOnDefaultPort(scheme, port),
        actual: { request in
          request.port == nil || request.port == port
            ? request.scheme : "\(request.scheme) on port \(request.port ?? 0)"
        }))
  }

  /// Matches the percent-decoded path exactly, or as a template when it holds `{name}`
  /// parameters (`"/users/{id}"`), whose values reach ``Request/pathParameters``.
  public static func path(_ path: String) -> Matcher {
    if PathTemplate.isTemplate(path) {
      switch PathTemplate.compile(path) {
      case .failure(let problem): return Matcher(.invalid(problem))
      case .success(let template):
        return Matcher(
          Condition(
            field: "path", expected: "\"\(path)\"", summary: path, part: .path,
            actual: { "\"\($0.path)\"" }, test: { template.match($0.path) })
        ).spelled(Spelling.path(path))
      }
    }
    // A request's path has its trailing slashes dropped, as `URL.path` does: so has the stub's, or
    // "/breeds/" would match nothing.
    var literal = Substring(path)
    while literal.count > 1 && literal.hasSuffix("/") { literal = literal.dropLast() }
    let matched = String(literal)
    return Matcher(
      Condition(
        field: "path", expected: "\"\(path)\"", summary: path, part: .path, key: .path(matched),
        literal: .path(matched), actual: { "\"\($0.path)\"" })
    ).spelled(Spelling.path(path))
  }

  /// Matches the path against a glob: `*` within one segment, `**` across segments, `?` one
  /// character (`"/images/**/*.png"`).
  public static func path(glob: String) -> Matcher {
    searching(
      Pattern.glob(glob), field: "path", expected: "glob \"\(glob)\"", summary: glob, part: .path, in: \.path,
      spelled: .pathGlob(glob))
  }

  /// Matches the percent-decoded path against a regular expression (searched, so anchor it with
  /// `^…$` to match the whole path).
  ///
  /// A search that backtracks for more than about 2.5 million steps on one path (a pattern with
  /// nested quantifiers, such as `^/(a+)+$`, against a crafted path) gives up and matches nothing;
  /// the near-miss report says so. The same holds for every regular expression a matcher takes.
  ///
  /// The searches for one request share a budget of about 10 million steps, across every stub
  /// tried and the near-miss report: once four searches have given up, the patterns and globs of
  /// the stubs tried after them are not searched, and those stubs are treated as not matching (the
  /// near-miss report says so). Literal stubs still match.
  public static func path(regex: String) -> Matcher {
    searching(
      Pattern.compile(regex, what: "path"), field: "path", expected: "matching /\(regex)/", summary: "/\(regex)/",
      part: .path, in: \.path, spelled: .pathRegex(regex))
  }

  /// Matches the full URL string against a regular expression (searched, so anchor it with `^…$`).
  public static func url(regex: String) -> Matcher {
    searching(
      Pattern.compile(regex, what: "URL"), field: "url", expected: "matching /\(regex)/", summary: "URL /\(regex)/",
      part: .other, in: \.url.absoluteString, spelled: nil)
  }

  /// A matcher that searches a compiled pattern in the one string `text` reads off the request,
  /// or, when the pattern did not compile, an invalid matcher that says why.
  private static func searching(
    _ compiled: Result<Pattern, DoppelError>, field: String, expected: String, summary: String,
    part: Condition.Part, in text: @escaping @Sendable (Request) -> String, spelled spelling: Spelling?
  ) -> Matcher {
    switch compiled {
    case .failure(let problem): return Matcher(.invalid(problem))
    case .success(let pattern):
      return Matcher(
        Condition(
          field: field, expected: expected, summary: summary, part: part,
          actual: { pattern.shown("\"\(text($0))\"", searching: [text($0)]) }, passes: { pattern.matches(text($0)) })
      ).spelled(spelling)
    }
  }
}
