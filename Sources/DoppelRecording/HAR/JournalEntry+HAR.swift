import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Array where Element == JournalEntry {
  /// The journal as a HAR 1.2 cassette, secrets redacted: open it in a browser's developer tools,
  /// Charles or Proxyman, attach it to a bug, or replay it with ``Backend/replay(_:matching:replayingTimings:name:fileID:filePath:line:column:)``.
  ///
  /// ```swift
  /// let traffic = try backend.journal.har()
  /// try traffic.save(to: folder.appending(path: "traffic.har"))
  /// ```
  ///
  /// Each answered request is an entry with its response; a request that failed is an entry with
  /// status `0` and the error's name in `_error` (replaying it fails the same way); one still
  /// being answered is left out. Entries are in the journal's order. A body the journal kept only
  /// as its length and digest (``Backend/journalBodyLimit``) is written as a comment saying so.
  ///
  /// - Parameter redaction: what to redact; by default what recording redacts.
  /// - Throws: ``DoppelError`` when the redacted document cannot be written.
  public func har(redaction: Redaction = .default) throws -> Cassette {
    try redaction.redacted(Cassette(entries: compactMap { $0.harEntry() }))
  }

  /// Writes ``har(redaction:)`` to `url`, creating folders as needed.
  ///
  /// - Throws: ``DoppelError`` naming the file when it cannot be written.
  public func saveHAR(to url: URL, redaction: Redaction = .default) throws {
    // Already redacted: written as it is.
    try har(redaction: redaction).save(to: url, redaction: .disabled)
  }
}

extension JournalEntry {
  /// The entry as a HAR entry, or `nil` while it is still being answered.
  ///
  /// - Parameter unmatched: the response a front door gave a request no stub matched, from its
  ///   near-miss report (the stub server's 404), instead of the error the engine failed it with.
  package func harEntry(unmatched: ((String) -> Response)? = nil) -> HAREntry? {
    var entry: HAREntry
    if let response {
      guard let made = try? HAREntry(request: request, response: response) else {
        return HAREntry(request: request, error: URLError(.cannotDecodeContentData))
      }
      entry = made
    } else if let error {
      if !isMatched, let unmatched,
        let made = try? HAREntry(request: request, response: unmatched(unmatchedReport ?? ""))
      {
        entry = made
      } else {
        entry = HAREntry(request: request, error: error)
      }
    } else {
      return nil
    }
    var notes: [String] = []
    if let omittedRequestBody { notes.append("request body not kept by the journal: \(omittedRequestBody)") }
    if let omittedResponseBody { notes.append("response body not kept by the journal: \(omittedResponseBody)") }
    if !notes.isEmpty { entry.extra["comment"] = .string(notes.joined(separator: "; ")) }
    return entry
  }
}
