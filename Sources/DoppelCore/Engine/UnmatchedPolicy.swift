@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What a backend does with a request that no stub matches.
public struct UnmatchedPolicy: Sendable {
  enum Kind: Sendable {
    case fail
    case passthrough
    case respond(Response)
  }

  let kind: Kind

  /// The default: the request fails with `URLError(.resourceUnavailable)` whose description is the
  /// near-miss report, and the backend reports an issue.
  ///
  /// `.resourceUnavailable` was chosen because URLSession does not produce it for HTTP requests, so
  /// it cannot be mistaken for a real network failure such as `.notConnectedToInternet` or
  /// `.timedOut` that the code under test may handle.
  public static let fail = UnmatchedPolicy(kind: .fail)

  /// Sends the request to the real network through a plain `URLSession` and journals what came
  /// back. Needed for recording; never the default.
  ///
  /// A redirect comes back as it is and is followed like a stub's (see ``Backend/followsRedirects``),
  /// so each hop is journaled on its own.
  ///
  /// The answer is taken a piece at a time as URLSession decodes it: beyond 16 MiB (decoded) it
  /// goes to a temporary file rather than memory, is journaled and recorded as its length and
  /// SHA-256, and reaches a stub server's client from disk (a URLSession or in-memory client gets
  /// at most 64 MiB, ``Response/fileBodySizeLimit``); beyond 4 GiB the request fails.
  public static let passthrough = UnmatchedPolicy(kind: .passthrough)

  /// Answers every unmatched request with `response` (the request is still journaled as unmatched).
  public static func respond(_ response: Response) -> UnmatchedPolicy { UnmatchedPolicy(kind: .respond(response)) }
}
