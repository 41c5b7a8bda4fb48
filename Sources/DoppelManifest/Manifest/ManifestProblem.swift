import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// One problem in a manifest: where it is, and the whole message (`file:line:column: key path:
/// what is wrong. The fix.`).
struct ManifestProblem: Error, Sendable {
  /// The UTF-8 offset the message points at, to report problems in the order of the file.
  let offset: Int
  let message: String
  /// What kind of problem it is, for a caller that tells them apart (the admin API answers each
  /// with a status of its own).
  var fault = DoppelError.Fault.malformed
}

/// The problems a manifest reader found so far. The reader keeps reading past a problem wherever
/// the rest does not depend on the faulty part (the next stub, the next key of a stub), so one
/// load reports every problem of a file.
///
/// A class so that the reader's methods stay non-mutating; a reader and its log live on one thread
/// for one load.
final class ManifestProblemLog {
  private(set) var problems: [ManifestProblem] = []
  /// What is served as written but likely a mistake (a method no registry knows), for
  /// `doppel lint` and `doppel serve` to warn about.
  private(set) var warnings: [ManifestProblem] = []

  func record(_ problem: ManifestProblem) { problems.append(problem) }

  func warn(_ warning: ManifestProblem) { warnings.append(warning) }

  /// Every problem, in the order of the file (problems at the same place in the order found).
  var sorted: [ManifestProblem] {
    problems.enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element)
  }
}

extension ManifestReader {
  /// Runs `body`; when it fails, records the problem and returns `nil`, so the caller can go on
  /// with the next independent part.
  func collecting<T>(_ body: () throws(ManifestProblem) -> T) -> T? {
    do {
      return try body()
    } catch {
      log.record(error)
      return nil
    }
  }

  /// Records a problem found without throwing.
  func record(_ problem: ManifestProblem) { log.record(problem) }
}
