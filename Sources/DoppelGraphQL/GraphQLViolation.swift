#if GraphQL
  import Doppel
  import Foundation

  /// An operation or an answer that the schema contradicts: which operation, where, the rule
  /// broken and where the schema states it.
  ///
  /// ```text
  /// Viewer (operation line 4, column 7): Cannot query field "nickname" on type "User". (schema.graphql:31 User)
  /// Viewer (answer) $.data.viewer.friends[1].name: expected a String, found the number 5 (schema.graphql:33 User.name)
  /// ```
  public struct GraphQLViolation: Sendable, Hashable, CustomStringConvertible {
    /// The operation's name; `nil` for an anonymous operation.
    public let operation: String?
    /// Where in the operation the problem is (`line 4, column 7`), for a problem of the
    /// operation; `nil` for a problem of an answer.
    public let operationPosition: String?
    /// Where inside the answer (`$.data.viewer.name`), for a problem of an answer.
    public let jsonPath: String?
    /// The rule broken, as a sentence.
    public let rule: String
    /// Where the schema defines the type or field concerned (`schema.graphql:31 User`), when the
    /// schema's SDL was read from a file of its own.
    public let schemaPlace: String?

    /// The one-line message.
    public var description: String {
      let head = operation ?? "an anonymous operation"
      let part = operationPosition.map { " (operation \($0))" } ?? " (answer) \(jsonPath ?? "$")"
      return "\(head)\(part): \(rule)\(schemaPlace.map { " (\($0))" } ?? "")"
    }
  }
#endif
