import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension ManifestReader {
  /// A stub's `request`: the string shorthand `"GET https://…"` / `"/path"`, or an object whose
  /// keys each add a condition (all must hold). `{}` matches every request.
  func matcher(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> Matcher {
    if case .string(let text) = node.value { return try shorthand(text, node, path) }
    let fields = try object(node, path, known: ManifestKeys.request, what: "a request")
    try requireAtMostOne(
      ManifestKeys.requestBody, in: fields,
      "a request body is matched one way; keep one of json, jsonContaining, text, form.")
    var parts: [Matcher] = []
    for member in fields.members {
      let value = member.value
      let valuePath = fields.path(member.key)
      let part: Matcher
      switch member.key {
      case "method":
        part = .method(
          try method(nonEmptyString(value, valuePath, what: "an HTTP method such as \"GET\""), value, valuePath))
      case "url": part = .url(try nonEmptyString(value, valuePath, what: "a URL or a path"))
      case "host": part = .host(try nonEmptyString(value, valuePath, what: "a host name"))
      case "pathGlob":
        part = .path(glob: try nonEmptyString(value, valuePath, what: "a glob such as \"/images/**/*.png\""))
      case "pathRegex": part = .path(regex: try nonEmptyString(value, valuePath, what: "a regular expression"))
      case "query", "queryExactly":
        let pairs = try stringPairs(value, valuePath, what: "query items", allowArrays: true)
        part = .query(pairs.map { URLQueryItem(name: $0.0, value: $0.1) }, exactly: member.key == "queryExactly")
      case "headers": part = try headers(value, valuePath)
      case "json": part = .jsonBody(value.jsonValue)
      case "jsonContaining": part = .jsonBody(containing: value.jsonValue)
      case "text": part = .body(try string(value, valuePath))
      case "form":
        part = .formBody(items: try stringPairs(value, valuePath, what: "form fields", allowArrays: true))
      case "graphql": part = try graphQL(value, valuePath)
      default: continue  // unreachable: `object` refused unknown keys
      }
      if let problem = part.problem {
        // A regular expression is a string to a schema; whether ICU takes it, only compiling tells.
        throw member.key == "pathRegex"
          ? unusable(value, valuePath, problem.message) : error(value, valuePath, problem.message)
      }
      parts.append(part)
    }
    guard let first = parts.first else { return .any }
    return parts.dropFirst().reduce(first, &&)
  }

  /// `"GET https://api.example.com/breeds.json"`, `"POST /orders"` or just `"/breeds.json"`.
  private func shorthand(_ text: String, _ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem)
    -> Matcher
  {
    // A leading word of letters is a method when it is upper-case, or, in any case, when a path
    // follows it (`get /v1/z`); anything else is the URL, checked as written (`ht tp://x` has a
    // space). Schemas/doppel-manifest.schema.json and the admin API's description say the same.
    let words = text.split(separator: " ", omittingEmptySubsequences: true)
    let hasMethod =
      words.count > 1 && words[0].allSatisfy { $0.isASCII && $0.isLetter }
      && (words[0].allSatisfy(\.isUppercase) || words[1].hasPrefix("/"))
    let matcher: Matcher
    switch words.count {
    case _ where !hasMethod:
      matcher = .url(text)
    default:
      // Everything after the method is the URL, spaces and all, so that a space in it gets the
      // same message as the same URL in code: where the space is, and the fix.
      let afterSpaces = text.drop(while: { $0 == " " })
      let url = afterSpaces.drop(while: { $0 != " " }).drop(while: { $0 == " " })
      warnAboutMethod(String(words[0]), node, path)
      matcher = .method(HTTPMethod(String(words[0]))) && .url(String(url))
    }
    if let problem = matcher.problem { throw error(node, path, problem.message) }
    return matcher
  }

  private func method(_ name: String, _ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem)
    -> HTTPMethod
  {
    guard name.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }) else {
      throw error(node, path, "\"\(name)\" is not an HTTP method. Write a method name such as GET, POST or DELETE.")
    }
    warnAboutMethod(name, node, path)
    return HTTPMethod(name)
  }

  /// The methods of IANA's HTTP Method Registry that are written with letters alone
  /// (https://www.iana.org/assignments/http-methods).
  static let registeredMethods = [
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "QUERY", "TRACE", "CONNECT", "ACL", "BIND",
    "CHECKIN", "CHECKOUT", "COPY", "LABEL", "LINK", "LOCK", "MERGE", "MKACTIVITY", "MKCALENDAR", "MKCOL",
    "MKREDIRECTREF", "MKWORKSPACE", "MOVE", "ORDERPATCH", "PRI", "PROPFIND", "PROPPATCH", "REBIND", "REPORT",
    "SEARCH", "UNBIND", "UNCHECKOUT", "UNLINK", "UNLOCK", "UPDATE", "UPDATEREDIRECTREF",
  ]

  /// Warns about a method that is served as written but is likely a mistake: one that is not
  /// upper-case (clients send `GET`; the stub matches it anyway, since methods are compared
  /// upper-cased), or one no registry knows (`GTE`), with the closest registered method.
  private func warnAboutMethod(_ name: String, _ node: PositionedJSON, _ path: ManifestKeyPath) {
    let upper = name.uppercased()
    let message: String
    if !Self.registeredMethods.contains(upper) {
      message =
        "\"\(name)\" is not a registered HTTP method.\(Suggestion.didYouMean(upper, in: Self.registeredMethods)) It is served as written; keep it only for a method of your own."
    } else if name != upper {
      message =
        "the method \"\(name)\" is not upper-case; it is matched as \(upper). Write \"\(upper)\", as clients send it."
    } else {
      return
    }
    log.warn(error(node, path, "warning: \(message)"))
  }

  /// `{"operation": "Breeds", "variables": {"page": 2}}`, or `{"persistedQueryHash": "…"}`.
  private func graphQL(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> Matcher {
    let fields = try object(
      node, path, known: ManifestKeys.graphQL, what: "a GraphQL operation")
    var pattern = GraphQLPattern()
    if let operation = fields["operation"] {
      pattern.operation = try nonEmptyString(
        operation, fields.path("operation"), what: "the operation's name, such as \"Breeds\"")
    }
    if let hash = fields["persistedQueryHash"] {
      pattern.persistedQueryHash = try nonEmptyString(
        hash, fields.path("persistedQueryHash"), what: "a persisted query's SHA-256 hash")
    }
    if let variables = fields["variables"] {
      guard case .object = variables.value else {
        throw error(
          variables, fields.path("variables"),
          "expected the operation's variables (a JSON object such as {\"page\": 2}), found \(variables.kind).")
      }
      pattern.variables = variables.jsonValue
    }
    if let exact = fields["exactVariables"] {
      pattern.exactVariables = try bool(exact, fields.path("exactVariables"))
    }
    guard pattern.operation != nil || pattern.persistedQueryHash != nil else {
      throw error(
        node, path,
        "a GraphQL matcher needs \"operation\" (the operation's name, such as \"Breeds\") or \"persistedQueryHash\" (the SHA-256 hash a persisted query sends)."
      )
    }
    return Matcher.graphQLMatcher(pattern)
  }

  /// `{"Accept": "application/json", "Authorization": true}`: a value to equal, or `true` for
  /// "present, whatever its value".
  private func headers(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> Matcher {
    guard case .object(let members) = node.value else {
      throw error(node, path, "expected header fields (a JSON object), found \(node.kind).")
    }
    var parts: [Matcher] = []
    for member in members {
      switch member.value.value {
      case .string(let value): parts.append(.header(member.key, value))
      case .bool(true): parts.append(.header(member.key))
      default:
        throw error(
          member.value, path + member.key,
          "expected the header's value (a string) or true (present with any value), found \(member.value.kind).")
      }
    }
    guard let first = parts.first else { return .any }
    return parts.dropFirst().reduce(first, &&)
  }
}
