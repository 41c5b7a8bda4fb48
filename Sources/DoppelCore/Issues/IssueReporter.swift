@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Where a backend sends its issues.
///
/// The default writes them to standard error. `DoppelTesting`'s trait routes them to the running
/// test instead.
public struct IssueReporter: Sendable {
  private let handler: @Sendable (DoppelIssue) -> Void

  /// A reporter that calls `report` for each issue.
  public init(_ report: @escaping @Sendable (DoppelIssue) -> Void) { self.handler = report }

  /// Reports one issue.
  public func report(_ issue: DoppelIssue) { handler(issue) }

  /// Writes each issue to standard error, prefixed with `Doppel:`; the first one in a process is
  /// followed by a line saying that this fails no test, and how to make it fail one.
  public static let standardError = IssueReporter { issue in
    let first = hintShown.withLock { shown in
      defer { shown = true }
      return !shown
    }
    FileHandleOutput.standardError(standardErrorText(issue, first: first))
  }

  /// Whether ``standardError`` wrote its hint in this process.
  private static let hintShown = Locked(false)

  /// What ``standardError`` writes for `issue`: with `first`, followed by the hint.
  package static func standardErrorText(_ issue: DoppelIssue, first: Bool) -> String {
    "Doppel: \(issue)\n"
      + (first
        ? "Doppel: (written to standard error only, so it fails no test. In a test, make the backend with DoppelTesting's .doppel trait (Swift Testing) or makeBackend() (XCTest), or pass Backend(issueReporter:), and such problems fail the test.)\n"
        : "")
  }

  /// Drops issues (they are still in the journal and in the failing requests' errors).
  public static let ignore = IssueReporter { _ in }
}
