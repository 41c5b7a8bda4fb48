@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Matcher {
  /// The factory call that made a matcher, as data: what the layers above the engine read to write
  /// the matcher down elsewhere (a manifest's `request` for a stub server, a Pact contract's
  /// matching rules). Factories whose test is code (a closure, a regular expression on the whole
  /// URL, `||`, `!`) have none.
  package enum Spelling: Sendable {
    case any
    case method(String)
    /// A URL or a path, as written (`"https://api.example.com/breeds?page=2"`, `"/users/{id}"`).
    case url(String)
    case host(String)
    case pathGlob(String)
    case pathRegex(String)
    case query([(String, String)], exactly: Bool)
    /// A header's exact value, or `nil` for "present".
    case header(String, String?)
    /// A header matched by a regular expression: kept for what reads a matcher's parts (a Pact
    /// contract's rules), though a manifest request cannot say it.
    case headerRegex(String, String)
    case json(JSONValue)
    case jsonContaining(JSONValue)
    case text(String)
    case form([(String, String)])
    /// A GraphQL operation (the manifest's `graphql` object).
    case graphQL(GraphQLPattern)
    /// A part of a matcher whose first part's spelling says it all (a GraphQL matcher's variables).
    case saidByPrevious

    /// A path matcher as a manifest `url`: a path written alone is matched on any host. `nil` when
    /// the path holds characters a URL would read otherwise (`?`, `#`, `%`, a space).
    static func path(_ path: String) -> Spelling? {
      guard path.utf8.first == UInt8(ascii: "/"),
        !path.utf8.contains(where: {
          [UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: " ")].contains($0)
        })
      else { return nil }
      return .url(path)
    }
  }

  /// This matcher, made by the factory call `spelling`.
  func spelled(_ spelling: Spelling?) -> Matcher {
    var copy = self
    copy.spelling = spelling
    return copy
  }
}
