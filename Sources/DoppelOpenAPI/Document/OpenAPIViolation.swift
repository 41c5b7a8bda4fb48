#if OpenAPI
  import Doppel
  import Foundation

  /// A request or response that the document contradicts: which operation, which part, where in
  /// the body, the rule broken and where the document states it.
  ///
  /// ```text
  /// getBreed (GET /breeds/{breedId}): response 200 body $.name: expected a string, found the number 5 (api.yaml:142 components.schemas.Breed.properties.name.type)
  /// ```
  public struct OpenAPIViolation: Sendable, Hashable, CustomStringConvertible {
    /// The operation's id (or `GET /path` when it has none); `nil` when no operation fits.
    public let operation: String?
    /// The method and path template (`GET /breeds/{breedId}`), or the request's method and path.
    public let endpoint: String
    /// What was checked: `request`, `request query parameter limit`, `response 200 body`…
    public let part: String
    /// Where inside the JSON body (`$.breeds[0].name`), for a body.
    public let jsonPath: String?
    /// The rule broken, as a sentence fragment.
    public let rule: String
    /// Where the document states the rule.
    public let location: DocumentLocation

    /// The one-line message.
    public var description: String {
      let head = operation.map { $0 == endpoint ? $0 : "\($0) (\(endpoint))" } ?? endpoint
      return "\(head): \(part)\(jsonPath.map { " \($0)" } ?? ""): \(rule) (\(location))"
    }
  }
#endif
