@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// An error raised by Doppel itself: bad input in a stub, a manifest, a cassette or a document, a
/// response that could not be built, a backend that is misused. Its `description` is its message:
/// what went wrong, where, and how to fix it.
///
/// A program that handles Doppel's errors switches on ``kind`` (``init(unwrapping:)`` reads any
/// error Doppel raised as one); ``location`` says where the problem is, when Doppel knows (a
/// manifest's file, line and column):
///
/// ```swift
/// do {
///   try backend.addStubs(from: Manifest.load(contentsOf: manifestURL))
/// } catch where error.kind == .manifest {
///   print("Fix \(error.location?.filePath ?? "the manifest"): \(error)")
/// }
/// ```
public struct DoppelError: LocalizedError, Sendable, CustomStringConvertible, Equatable {
  /// The full message: what went wrong, where, and the fix.
  public let message: String

  /// What an error is about, for a program to handle.
  ///
  /// The core names the kinds every module raises; each module above it adds its own where it is
  /// declared: ``DoppelError/Kind/cassette`` (recording), ``DoppelError/Kind/manifest`` and
  /// ``DoppelError/Kind/server`` (manifests and `DoppelRemote`, all in `import Doppel`), `openAPI`
  /// with `import DoppelOpenAPI` and `graphQL` with `import DoppelGraphQL`. Kinds are compared as
  /// values, so a `switch` over one takes a `default:` case:
  ///
  /// ```swift
  /// func advice(for error: DoppelError) -> String {
  ///   switch error.kind {
  ///   case .manifest, .cassette: "Fix the file \(error.location?.filePath ?? "named above")."
  ///   case .unmatchedRequest: "Add a stub for the request."
  ///   default: "\(error)"
  ///   }
  /// }
  /// ```
  public struct Kind: Sendable, Hashable, CustomStringConvertible {
    /// The kind's name, as it is spelled in Swift: `"manifest"`.
    public let name: String

    /// A kind named `name`, for a module that raises errors of its own (as DoppelOpenAPI's
    /// `openAPI`). Two kinds are the same when their names are.
    public init(_ name: String) { self.name = name }

    /// The kind's name.
    public var description: String { name }

    /// A stub, matcher or response that cannot work as written (an invalid URL or path template,
    /// a value that does not encode, a template that does not parse, an empty sequence).
    public static let invalidStub = Kind("invalidStub")
    /// A request no stub matched: the message is the near-miss report. Such a request fails with
    /// the `URLError` its caller would get from a real network; ``DoppelError/init(unwrapping:)``
    /// gives that error as this kind.
    public static let unmatchedRequest = Kind("unmatchedRequest")
    /// A file Doppel was asked to read or write and could not (a body file, a lock).
    public static let file = Kind("file")
    /// Doppel used in a way it cannot serve: a backend that no longer exists, a task type
    /// URLSession does not hand to Doppel, a body asked for that the request does not have.
    public static let usage = Kind("usage")
  }

  /// What the error is about.
  public let kind: Kind

  /// Where the problem is, when Doppel knows: a manifest's or cassette's file with the line and
  /// column of the first problem (`fileID` is the file's name), an OpenAPI document's line, or,
  /// for a request answered by a stub that cannot work, where that stub was declared. `nil`
  /// otherwise.
  public let location: CodeLocation?

  /// What is wrong with what a reader was given, finer than ``kind``: for a front door that
  /// answers each with a status of its own (the stub server's admin API maps them to 400, 403 and
  /// 422).
  package enum Fault: Sendable {
    /// Not written as the format describes: a missing key, a value of the wrong type.
    case malformed
    /// Written as the format describes, but reaching beyond what the reader's caller allowed (a
    /// file outside the folder given for such stubs, a proxy to a host not allowed).
    case beyondReach
    /// Written as the format describes, but not usable in a way a schema cannot say: values that
    /// contradict each other (a minimum above a maximum), a regular expression that does not
    /// compile.
    case unusable
  }

  /// What is wrong, for a front door that tells the faults apart; ``Fault/malformed`` unless the
  /// reader said otherwise.
  package var fault = Fault.malformed

  /// Creates an error with a message, what it is about, and where, when known.
  public init(_ message: String, kind: Kind = .usage, location: CodeLocation? = nil) {
    self.message = message
    self.kind = kind
    self.location = location
  }

  /// The Doppel error `error` is or stands for, so that one `switch` over ``kind`` handles them
  /// all: a `DoppelError` itself; a request no stub matched, which fails with the `URLError` a
  /// real server's absence would give (`.resourceUnavailable`), as kind
  /// ``Kind/unmatchedRequest`` with the near-miss report as its message; an OpenAPI or GraphQL
  /// document's error, as kind `openAPI` or `graphQL` with its file and line. `nil` for any other
  /// error.
  ///
  /// ```swift
  /// do {
  ///   _ = try await backend.respond(to: URLRequest(url: url))
  /// } catch {
  ///   if let failure = DoppelError(unwrapping: error), failure.kind == .unmatchedRequest {
  ///     print(failure)  // the near-miss report
  ///   }
  /// }
  /// ```
  public init?(unwrapping error: any Error) {
    if let failure = error as? DoppelError {
      self = failure
    } else if let failure = error as? any DoppelErrorConvertible {
      self = failure.doppelError
    } else if let report = DoppelIssue.unmatchedReport(in: error) {
      self.init(report, kind: .unmatchedRequest)
    } else {
      return nil
    }
  }

  /// The same error located at `location`, unless it has a location already.
  package func locatedIfUnknown(at location: CodeLocation?) -> DoppelError {
    guard self.location == nil, let location else { return self }
    var located = DoppelError(message, kind: kind, location: location)
    located.fault = fault
    return located
  }

  /// The message.
  public var description: String { message }

  /// The message, so that `localizedDescription` (what an alert or a log of the error shows) is
  /// the message too, not Foundation's "The operation couldn't be completed."
  public var errorDescription: String? { message }

  /// Whether two errors say the same thing (their messages are equal).
  public static func == (lhs: DoppelError, rhs: DoppelError) -> Bool { lhs.message == rhs.message }
}

/// An error of a module above Doppel's core (an OpenAPI or GraphQL document's) that stands for a
/// ``DoppelError``, for ``DoppelError/init(unwrapping:)``.
package protocol DoppelErrorConvertible: Error {
  /// The error as a ``DoppelError``: its kind, message and location.
  var doppelError: DoppelError { get }
}

extension DoppelError {
  /// A stub, matcher or response that cannot work as written.
  package static func invalidStub(_ message: String) -> DoppelError { DoppelError(message, kind: .invalidStub) }
  /// A file that could not be read or written.
  package static func file(_ message: String) -> DoppelError { DoppelError(message, kind: .file) }
  /// Doppel used in a way it cannot serve.
  package static func usage(_ message: String) -> DoppelError { DoppelError(message, kind: .usage) }
}
