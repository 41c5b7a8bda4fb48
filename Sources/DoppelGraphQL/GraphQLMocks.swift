#if GraphQL
  import Doppel
  import Foundation

  /// How a schema served with `addStub(fromGraphQLSchema:at:mocks:)` makes up its answers.
  ///
  /// Without overrides every field gets a value made from its type and its place in the answer:
  /// the same request gets the same answer, in every run, for the same ``seed``. Strings read
  /// `name 42`, numbers are small, a list has ``listLength`` items, an enum picks one of its
  /// values, an interface or union picks one of its object types (and `__typename` says which),
  /// and a custom scalar is a string unless ``scalar(_:_:)`` says otherwise.
  ///
  /// ```swift
  /// var mocks = GraphQLMocks(seed: 7)
  /// mocks.type("User") { ["name": "Ada Lovelace"] }
  /// mocks.field("Query.viewer") { arguments in ["id": "user-1"] }
  /// mocks.scalar("DateTime") { "2024-05-01T12:00:00Z" }
  /// ```
  ///
  /// An override gives some fields of an object (the others are made up) or a whole value.
  /// A field override that throws makes that field `null` with an entry in the answer's `errors`
  /// (with its `path` and `locations`); the `null` moves up to the nearest field that may be null,
  /// as a GraphQL server does.
  public struct GraphQLMocks: Sendable {
    /// Makes the same answers for the same seed; change it for other values.
    public var seed: UInt64
    /// How many items a list has.
    public var listLength: Int

    var types: [String: @Sendable () throws -> JSONValue] = [:]
    var fields: [String: @Sendable (JSONValue) throws -> JSONValue] = [:]
    var scalars: [String: @Sendable () -> JSONValue] = [:]

    /// Mocks that make up every value.
    ///
    /// - Parameters:
    ///   - seed: the seed of the values made up.
    ///   - listLength: how many items each list has.
    public init(seed: UInt64 = 0, listLength: Int = 2) {
      self.seed = seed
      self.listLength = max(0, listLength)
    }

    /// Every object of type `name` (an object type of the schema) starts from the fields `value`
    /// returns; the fields it leaves out are made up.
    public mutating func type(_ name: String, _ value: @escaping @Sendable () throws -> JSONValue) {
      types[name] = value
    }

    /// The field `path` (`Type.field`, such as `Query.viewer`) answers with what `value` returns
    /// for the field's arguments (a JSON object, variables already filled in). For a field of an
    /// object type, give the fields to fix; the others are made up. Throw to answer with an error.
    public mutating func field(
      _ path: String, _ value: @escaping @Sendable (_ arguments: JSONValue) throws -> JSONValue
    ) {
      fields[path] = value
    }

    /// Every value of the scalar `name` (a custom scalar, or `String`, `Int`, `Float`, `Boolean`,
    /// `ID`) is what `value` returns.
    public mutating func scalar(_ name: String, _ value: @escaping @Sendable () -> JSONValue) {
      scalars[name] = value
    }
  }

  /// An error a field override throws to answer with a GraphQL error: its message is the error's
  /// `message`, and `extensions` are added to it.
  ///
  /// ```swift
  /// mocks.field("Query.viewer") { _ in throw GraphQLFieldError("Not signed in", extensions: ["code": "UNAUTHENTICATED"]) }
  /// ```
  public struct GraphQLFieldError: Error, Sendable, Equatable {
    /// The message of the answer's error entry.
    public var message: String
    /// The error entry's `extensions`, if any.
    public var extensions: JSONValue?

    /// An error with `message` and, optionally, `extensions` (a JSON object).
    public init(_ message: String, extensions: JSONValue? = nil) {
      self.message = message
      self.extensions = extensions
    }
  }
#endif
