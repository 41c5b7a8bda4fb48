import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// When a cassette records: never, the first time, for new requests, or always.
///
/// Chosen in code (`.doppel(cassette: "breeds", record: .newEpisodes)`) or for one run with the
/// `DOPPEL_RECORD` environment variable, which wins over the code so that the command a missing
/// recording prints always works:
///
/// ```
/// DOPPEL_RECORD=newEpisodes swift test --filter fetchesBreeds
/// ```
///
/// Recording sends requests to the real server, so it never happens unless chosen: the default
/// is ``none``.
public struct RecordMode: Sendable, Hashable, CustomStringConvertible {
  enum Kind: String, Sendable, Hashable, CaseIterable {
    case none
    case once
    case newEpisodes
    case all
  }

  let kind: Kind

  /// Replay only. A request the cassette does not hold fails, and the failure prints the command
  /// that records it; a missing cassette is an error that prints the command that creates it.
  public static let none = RecordMode(kind: .none)
  /// Record every request when the cassette file does not exist yet; once it exists, as ``none``.
  public static let once = RecordMode(kind: .once)
  /// Replay the requests the cassette holds and record the others, appending them to it.
  public static let newEpisodes = RecordMode(kind: .newEpisodes)
  /// Record every request again, replacing the cassette.
  public static let all = RecordMode(kind: .all)

  /// The name of the environment variable that chooses the mode for a run: `DOPPEL_RECORD`.
  public static let environmentVariable = "DOPPEL_RECORD"

  /// The mode named `name`: `none`, `once`, `newEpisodes` (or `new_episodes`) or `all`, in any
  /// case; `nil` for anything else.
  public init?(name: String) {
    let folded = name.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: "-", with: "")
    guard let kind = Kind.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
    self.kind = kind
  }

  private init(kind: Kind) { self.kind = kind }

  /// The mode for this run: `DOPPEL_RECORD` from `environment` when it is set (and not empty),
  /// otherwise `mode`.
  ///
  /// - Throws: ``DoppelError`` when `DOPPEL_RECORD` is not a mode's name.
  public static func resolved(
    _ mode: RecordMode, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> RecordMode {
    guard let value = environment[environmentVariable], !value.isEmpty else { return mode }
    guard let chosen = RecordMode(name: value) else {
      throw DoppelError.cassette(
        "\(environmentVariable)=\(value) is not a record mode. Use none, once, newEpisodes or all, or unset \(environmentVariable)."
      )
    }
    return chosen
  }

  /// Whether requests the cassette does not hold go to the real server.
  var records: Bool { kind != .none }

  /// The mode's name: `none`, `once`, `newEpisodes` or `all`.
  public var description: String { kind.rawValue }
}
