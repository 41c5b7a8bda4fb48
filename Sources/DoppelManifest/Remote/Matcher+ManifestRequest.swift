import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Matcher {
  /// The matcher as a manifest's `request` object, as ``DoppelRemote`` sends it.
  ///
  /// - Throws: ``DoppelError`` naming the part a manifest cannot say (a closure matcher, `||`,
  ///   `!`, a regular expression on a header) and what to use instead.
  package func manifestRequest() throws(DoppelError) -> JSONValue {
    if let problem { throw problem }
    var object: [String: JSONValue] = [:]
    var headers: [String: JSONValue] = [:]
    var query: [(String, String)] = []
    var exactQuery: Bool?
    func set(_ key: String, _ value: JSONValue, _ part: Matcher) throws(DoppelError) {
      if let existing = object[key], existing != value {
        throw DoppelError.invalidStub(
          "The matcher \(self) cannot be sent to a stub server: it has two \"\(key)\" conditions (\(part) and another), which a manifest request cannot hold. Keep one."
        )
      }
      object[key] = value
    }
    for part in flattened {
      guard let spelling = part.spelling else {
        throw Self.unsendable(part, in: self)
      }
      switch spelling {
      case .any, .saidByPrevious: continue
      case .method(let method): try set("method", .string(method), part)
      case .url(let url): try set("url", .string(url), part)
      case .host(let host): try set("host", .string(host), part)
      case .pathGlob(let glob): try set("pathGlob", .string(glob), part)
      case .pathRegex(let regex): try set("pathRegex", .string(regex), part)
      case .query(let items, let exactly):
        if let exactQuery, exactQuery != exactly {
          throw DoppelError.invalidStub(
            "The matcher \(self) cannot be sent to a stub server: it requires some query items exactly and others among more, which a manifest request cannot hold. Use one .query(…)."
          )
        }
        exactQuery = exactly
        query += items
      case .header(let name, let value):
        let written: JSONValue = value.map(JSONValue.string) ?? .bool(true)
        if let existing = headers[name], existing != written {
          throw DoppelError.invalidStub(
            "The matcher \(self) cannot be sent to a stub server: it has two conditions on the header \(name), which a manifest request cannot hold. Keep one."
          )
        }
        headers[name] = written
      case .headerRegex: throw Self.unsendable(part, in: self)
      case .json(let json): try set("json", json, part)
      case .jsonContaining(let json): try set("jsonContaining", json, part)
      case .text(let text): try set("text", .string(text), part)
      case .form(let fields): try set("form", Self.pairs(fields), part)
      case .graphQL(let pattern): try set("graphql", pattern.json, part)
      }
    }
    if !headers.isEmpty { object["headers"] = .object(headers) }
    if let exactQuery { object[exactQuery ? "queryExactly" : "query"] = Self.pairs(query) }
    let bodies = ["json", "jsonContaining", "text", "form"].filter { object[$0] != nil }
    if bodies.count > 1 {
      throw DoppelError.invalidStub(
        "The matcher \(self) cannot be sent to a stub server: it matches the body two ways (\(bodies.joined(separator: " and "))), which a manifest request cannot hold. Keep one."
      )
    }
    return .object(object)
  }

  /// `{"tag": ["a", "b"], "page": "2"}`: a name that repeats holds an array.
  private static func pairs(_ pairs: [(String, String)]) -> JSONValue {
    var object: [String: [String]] = [:]
    for (name, value) in pairs { object[name, default: []].append(value) }
    return .object(object.mapValues { $0.count == 1 ? .string($0[0]) : .array($0.map(JSONValue.string)) })
  }

  private static func unsendable(_ part: Matcher, in whole: Matcher) -> DoppelError {
    let fix: String
    switch part.node {
    case .any: fix = "A manifest request has no \"||\": send one stub per alternative."
    case .not: fix = "A manifest request has no \"!\": match what the request is rather than what it is not."
    case .all, .condition:
      fix =
        "A manifest request can say: method, url (a URL, a path or a path template), host, pathGlob, pathRegex, query, headers (a value or present), json, jsonContaining, text (a UTF-8 body), form and graphql; closures, .url(regex:), .header(_:regex:), .query(has:), .scheme and .port alone cannot be sent."
    }
    let whole = whole.description == part.description ? "" : " (in \(whole))"
    return DoppelError.invalidStub("The matcher \(part)\(whole) cannot be sent to a stub server. \(fix)")
  }
}
