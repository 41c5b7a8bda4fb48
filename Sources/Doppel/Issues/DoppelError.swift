/// An error raised by Doppel itself: bad input in a stub, a response that could not be built, a
/// backend that is misused. Its `description` says what went wrong and how to fix it.
public struct DoppelError: Error, Sendable, CustomStringConvertible, Equatable {
  /// The full message: what went wrong, where, and the fix.
  public let message: String

  /// What kind of mistake a stub read from outside a manifest (sent to the stub server's admin
  /// API) has, for the admin API's status.
  package enum Kind: Sendable {
    /// Not what the admin API's document describes: 400.
    case malformed
    /// Only reaching beyond what the user allowed (a file outside the folder given for such
    /// stubs, a proxy to a host not allowed): 403.
    case beyondReach
    /// As the document describes, but not usable in a way a schema cannot say: values that
    /// contradict each other (a minimum above a maximum), a regular expression that does not
    /// compile: 422.
    case unprocessable
  }

  /// The kind of mistake; ``Kind/malformed`` unless the reader said otherwise.
  package var kind = Kind.malformed

  /// Creates an error with a message.
  public init(_ message: String) { self.message = message }

  /// The message.
  public var description: String { message }

  /// Whether two errors say the same thing (their messages are equal).
  public static func == (lhs: DoppelError, rhs: DoppelError) -> Bool { lhs.message == rhs.message }
}
