import Doppel
import Foundation

#if canImport(Testing)
  import Testing
#endif

/// When a test that uses a backend gets the backend's traffic attached: its journal as a HAR file
/// (`<Suite>.<test>-doppel-journal.har`, secrets redacted as recording redacts them, its
/// `log.comment` naming the test and the run) and, for each request no stub matched, its near-miss
/// report (`<Suite>.<test>-doppel-unmatched-1.txt`, …).
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

/// The test attachments belong to: it names the files and the HAR's `log.comment`.
struct AttachedTest: Sendable, Equatable {
  /// The suite and test names, joined by `.`, in characters safe in any file name
  /// (`BreedListTests.showsEmptyState`).
  var fileName: String
  /// The test as the HAR's comment names it (`BreedListTests/showsEmptyState()`, and where).
  var description: String

  /// A test named by its suites and its own name (`["BreedListTests", "showsEmptyState()"]`).
  init(nameComponents: [String], location: String) {
    let words = nameComponents.map { component -> String in
      // A function's parameter list (`showsTheRightCount(count:)`) is left out of the file name.
      let name = component.prefix { $0 != "(" }
      return String(
        String.UnicodeScalarView(
          name.unicodeScalars.map { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
              || scalar == "-" || scalar == "_" ? scalar : "_"
          }))
    }
    fileName = String(words.filter { !$0.isEmpty }.joined(separator: ".").prefix(120))
    description = "\(nameComponents.joined(separator: "/")) (\(location))"
  }

  /// The test run, for the HAR's comment: when this process started its tests, and its id.
  static let run: String = {
    let formatter = ISO8601DateFormatter()
    return "the test run of \(formatter.string(from: Date())), process \(ProcessInfo.processInfo.processIdentifier)"
  }()
}

/// The files attached for `backend`: the journal as HAR, then each unmatched request's report,
/// named after `test` (`BreedListTests.showsEmptyState-doppel-journal.har`), whose HAR's
/// `log.comment` names the test and the run. A journal that cannot be written as HAR is attached as
/// a text file saying why.
func attachments(for backend: Backend, test: AttachedTest? = nil) -> [(name: String, contents: [UInt8])] {
  let prefix = test.map { $0.fileName.isEmpty ? "doppel-" : "\($0.fileName)-doppel-" } ?? "doppel-"
  var files: [(name: String, contents: [UInt8])] = []
  let journal = backend.journal
  do {
    var har = try journal.har()
    if let test {
      har.har.log.extra["comment"] = .string("Doppel's journal of \(test.description), \(AttachedTest.run).")
    }
    files.append(("\(prefix)journal.har", Array(try har.encoded(redaction: .disabled))))
  } catch {
    files.append(("\(prefix)journal-error.txt", Array("The journal could not be written as HAR: \(error)\n".utf8)))
  }
  let reports = journal.compactMap(\.unmatchedReport)
  for (index, report) in reports.enumerated() {
    files.append(("\(prefix)unmatched-\(index + 1).txt", Array((report + "\n").utf8)))
  }
  return files
}

#if canImport(Testing) && compiler(>=6.2)
  extension AttachedTest {
    /// The Swift Testing test `test`.
    init(_ test: Test) {
      self.init(
        nameComponents: test.id.nameComponents,
        location: "\(test.sourceLocation.fileName):\(test.sourceLocation.line)")
    }
  }

  /// Records `backend`'s attachments on the running Swift Testing test.
  func recordAttachments(for backend: Backend, test: Test) {
    for file in attachments(for: backend, test: AttachedTest(test)) {
      Attachment.record(file.contents, named: file.name, sourceLocation: test.sourceLocation)
    }
  }
#endif
