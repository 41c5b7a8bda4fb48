import Doppel
import Foundation

#if canImport(Testing)
  import Testing
#endif

/// When a test that uses a backend gets the backend's traffic attached: its journal as a HAR file
/// (`doppel-journal.har`, secrets redacted as recording redacts them) and, for each request no stub
/// matched, its near-miss report (`doppel-unmatched-1.txt`, …).
///
/// Swift Testing keeps attachments with the test's results: `swift test --attachments-path DIR`
/// writes them to `DIR`, and Xcode shows them in the test report. They need Swift 6.2 or later.
///
/// The environment variable `DOPPEL_ATTACH` (`always`, `on-failure` or `never`), set for a whole
/// run (in CI, say), wins over the policy a test chose.
public enum AttachmentPolicy: String, Sendable, Equatable, CaseIterable {
  /// Attach only to a test that failed: one that recorded an issue or threw. The default.
  case onFailure = "on-failure"
  /// Attach to every test that uses a backend, passed or failed.
  case always
  /// Never attach.
  case never

  /// The policy in force: `DOPPEL_ATTACH` when it names one, otherwise `chosen`.
  static func effective(_ chosen: AttachmentPolicy?, environment: [String: String]) -> AttachmentPolicy {
    if let value = environment["DOPPEL_ATTACH"], let policy = AttachmentPolicy(rawValue: value) { return policy }
    return chosen ?? .onFailure
  }

  /// Whether a test that `failed` (or not) gets the attachments under this policy.
  func attaches(failed: Bool) -> Bool {
    switch self {
    case .always: true
    case .onFailure: failed
    case .never: false
    }
  }
}

/// The files attached for `backend`: the journal as HAR, then each unmatched request's report.
/// A journal that cannot be written as HAR is attached as a text file saying why.
func attachments(for backend: Backend) -> [(name: String, contents: [UInt8])] {
  var files: [(name: String, contents: [UInt8])] = []
  let journal = backend.journal
  do {
    files.append(("doppel-journal.har", Array(try journal.har().encoded(redaction: .disabled))))
  } catch {
    files.append(("doppel-journal-error.txt", Array("The journal could not be written as HAR: \(error)\n".utf8)))
  }
  let reports = journal.compactMap(\.unmatchedReport)
  for (index, report) in reports.enumerated() {
    files.append(("doppel-unmatched-\(index + 1).txt", Array((report + "\n").utf8)))
  }
  return files
}

#if canImport(Testing) && compiler(>=6.2)
  /// Records `backend`'s attachments on the running Swift Testing test.
  func recordAttachments(for backend: Backend, sourceLocation: SourceLocation) {
    for file in attachments(for: backend) {
      Attachment.record(file.contents, named: file.name, sourceLocation: sourceLocation)
    }
  }
#endif
