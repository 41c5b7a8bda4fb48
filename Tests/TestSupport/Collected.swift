import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A backend whose issues are collected instead of printed.
public final class Collected: Sendable {
  package let issues = Locked([DoppelIssue]())
  /// The backend, with an issue reporter that collects.
  public let backend: Backend

  /// A new backend that collects its issues.
  public init() {
    let issues = issues
    backend = Backend(issueReporter: IssueReporter { issue in issues.withLock { $0.append(issue) } })
  }

  /// The messages of the issues reported so far, in order.
  public var messages: [String] { issues.withLock { $0.map(\.message) } }
}

/// A file named `name` holding `text`, in a new temporary folder whose name starts with `prefix`:
/// for documents that are wrong on purpose.
public func temporaryFile(_ name: String, _ text: String, prefix: String) throws -> URL {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let url = folder.appendingPathComponent(name)
  try Data(text.utf8).write(to: url)
  return url
}
