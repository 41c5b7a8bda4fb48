/// An error raised by Doppel itself: bad input in a stub, a response that could not be built, a
/// backend that is misused. Its `description` says what went wrong and how to fix it.
public struct DoppelError: Error, Sendable, CustomStringConvertible, Equatable {
  /// The full message: what went wrong, where, and the fix.
  public let message: String

  /// Creates an error with a message.
  public init(_ message: String) { self.message = message }

  /// The message.
  public var description: String { message }
}
