@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What a request carries as a GraphQL operation, read from the forms clients send: a JSON body
/// (`{"query": …, "operationName": …, "variables": …, "extensions": …}`, usually a `POST`), query
/// items (`?query=…&operationName=…&variables=<JSON>`, a `GET`), or an `application/graphql` body
/// holding the document itself.
package struct GraphQLRequest: Sendable, Equatable {
  /// `operationName` when sent, otherwise the name of the first operation in the document.
  package var operation: String?
  /// The variables; `nil` when none were sent.
  package var variables: JSONValue?
  /// `extensions.persistedQuery.sha256Hash`, for a persisted (or automatic persisted) query.
  package var persistedQueryHash: String?
  /// The document (`query`), when one was sent.
  package var document: String?

  /// The operation `request` carries, or `nil` when it carries none (neither a document, an
  /// operation name nor a persisted query hash).
  package init?(_ request: Request) {
    if let body = request.body, !body.isEmpty {
      if let json = try? JSONValue(parsing: body), case .object(let fields) = json {
        self.init(fields: fields)
        if Self.carriesOperation(fields) { return }
      } else if Self.isGraphQLDocument(request), let text = String(data: body, encoding: .utf8) {
        self.init(operation: Self.operationName(inDocument: text), variables: nil, persistedQueryHash: nil)
        document = text
        return
      }
    }
    let items = Self.formQueryItems(request)
    guard items.contains(where: { ["query", "operationName", "extensions"].contains($0.name) }) else { return nil }
    var fields: [String: JSONValue] = [:]
    for item in items {
      guard let value = item.value else { continue }
      switch item.name {
      case "query", "operationName": fields[item.name] = .string(value)
      case "variables", "extensions":
        // Sent as JSON text; what does not parse counts as absent.
        fields[item.name] = (try? JSONValue(parsing: Data(value.utf8))) ?? .null
      default: continue
      }
    }
    guard Self.carriesOperation(fields) else { return nil }
    self.init(fields: fields)
  }

  /// The query items of a GraphQL `GET`, read as `application/x-www-form-urlencoded` (as the
  /// GraphQL-over-HTTP spec sends them): `+` is a space, then percent-escapes are decoded, so
  /// `%2B` is a plus sign. An item without `=` has no value; an item whose escapes are malformed
  /// keeps them as sent.
  static func formQueryItems(_ request: Request) -> [(name: String, value: String?)] {
    guard let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery else {
      return []
    }
    func decoded(_ text: Substring) -> String {
      let spaced = text.replacingOccurrences(of: "+", with: " ")
      return spaced.removingPercentEncoding ?? spaced
    }
    return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : nil)
    }
  }

  /// Whether these fields hold a document, an operation name or a persisted query hash.
  private static func carriesOperation(_ fields: [String: JSONValue]) -> Bool {
    let hash = GraphQLRequest(fields: fields).persistedQueryHash
    if case .string? = fields["query"] { return true }
    if case .string(let name)? = fields["operationName"], !name.isEmpty { return true }
    return hash != nil
  }

  init(operation: String?, variables: JSONValue?, persistedQueryHash: String?) {
    self.operation = operation
    self.variables = variables
    self.persistedQueryHash = persistedQueryHash
  }

  private init(fields: [String: JSONValue]) {
    var operation: String?
    if case .string(let name)? = fields["operationName"], !name.isEmpty { operation = name }
    if operation == nil, case .string(let document)? = fields["query"] {
      operation = Self.operationName(inDocument: document)
    }
    var variables: JSONValue?
    if let sent = fields["variables"], sent != .null { variables = sent }
    var hash: String?
    if case .object(let extensions)? = fields["extensions"],
      case .object(let persisted)? = extensions["persistedQuery"],
      case .string(let sha)? = persisted["sha256Hash"]
    {
      hash = sha
    }
    self.init(operation: operation, variables: variables, persistedQueryHash: hash)
    if case .string(let text)? = fields["query"] { document = text }
  }

  private static func isGraphQLDocument(_ request: Request) -> Bool {
    request.headers.values(for: "Content-Type").contains { $0.lowercased().hasPrefix("application/graphql") }
  }

  /// The name of the first `query`, `mutation` or `subscription` in a GraphQL document: a tolerant
  /// scan that skips comments, strings and selection sets, not a parser. `nil` for an anonymous
  /// operation (`{ breeds { name } }`, `query { … }`) or text that is not a document.
  static func operationName(inDocument document: String) -> String? {
    let scalars = Array(document.unicodeScalars)
    var index = 0
    var depth = 0
    var expectingName = false
    func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
      scalar == "_" || (scalar.isASCII && scalar.properties.isAlphabetic)
    }
    func isNamePart(_ scalar: Unicode.Scalar) -> Bool {
      isNameStart(scalar) || ("0"..."9").contains(scalar)
    }
    while index < scalars.count {
      let scalar = scalars[index]
      switch scalar {
      case "#":
        while index < scalars.count, scalars[index] != "\n", scalars[index] != "\r" { index += 1 }
      case "\"":
        let block = index + 2 < scalars.count && scalars[index + 1] == "\"" && scalars[index + 2] == "\""
        index += block ? 3 : 1
        while index < scalars.count {
          if scalars[index] == "\\" {
            index += 2
            continue
          }
          if block {
            if scalars[index] == "\"", index + 2 < scalars.count, scalars[index + 1] == "\"", scalars[index + 2] == "\""
            {
              index += 2
              break
            }
          } else if scalars[index] == "\"" || scalars[index] == "\n" {
            break
          }
          index += 1
        }
      case "{", "(", "[":
        if depth == 0 && expectingName { return nil }  // `query {` or `query(`: anonymous
        depth += 1
      case "}", ")", "]":
        depth = max(0, depth - 1)
      case _ where isNameStart(scalar):
        let start = index
        while index + 1 < scalars.count, isNamePart(scalars[index + 1]) { index += 1 }
        guard depth == 0 else { break }
        let word = String(String.UnicodeScalarView(scalars[start...index]))
        if expectingName { return word }
        expectingName = word == "query" || word == "mutation" || word == "subscription"
      default:
        break
      }
      index += 1
    }
    return nil
  }

  /// How reports show it: `Breeds`, `Breeds with variables {"page":2}`, `persisted query 3f2a…`.
  var summary: String {
    var parts: [String] = []
    if let operation {
      parts.append(operation)
    } else if persistedQueryHash == nil {
      parts.append("an anonymous operation")
    }
    if let persistedQueryHash { parts.append("persisted query \(persistedQueryHash)") }
    var text = parts.joined(separator: ", ")
    if let variables { text += " with variables \(variables.description)" }
    return text
  }
}
