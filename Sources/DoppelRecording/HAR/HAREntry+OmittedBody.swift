import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension HAREntry {
  /// What a cassette holds in place of a body it does not keep:
  /// `doppel-redacted: sha256 <hex> length <bytes>`, as for a body that cannot be scanned
  /// (``Redaction/unscannableBodyDigest(of:)``), so two recordings can still be told apart.
  static func omittedBodyText(length: Int, sha256: String) -> String {
    "doppel-redacted: sha256 \(sha256) length \(length)"
  }

  /// An entry for `request` and the `response` it got, as a recorder writes it into a cassette:
  /// a response body over the cassette's per-body limit (an upstream's answer of more than 16 MiB
  /// decoded, spooled to disk as it came; or one the journal kept only as `omitted`) is written as
  /// its length and SHA-256, never read back.
  ///
  /// - Throws: the response's error when its body cannot be read (a missing file).
  package static func recorded(
    request: Request, response: Response, omitted: JournalEntry.OmittedBody? = nil, startedAt: Date = Date(),
    duration: Double = 0
  ) throws -> HAREntry {
    let kept: JournalEntry.OmittedBody?
    var response = response
    if let spool = response.body.spool {
      kept = JournalEntry.OmittedBody(length: spool.length, sha256: spool.sha256)
      response.body = Response.Body(source: .data(Data()), contentType: response.body.contentType)
    } else {
      kept = omitted
    }
    var entry = try HAREntry(request: request, response: response, startedAt: startedAt, duration: duration)
    guard let kept else { return entry }
    entry.response.content.size = kept.length
    entry.response.content.text = omittedBodyText(length: kept.length, sha256: kept.sha256)
    entry.response.content.encoding = nil
    entry.response.content.extra["comment"] = .string(
      "body not kept: \(kept), more than the \(UpstreamFetch.memoryLimit >> 20) MiB a cassette keeps of one body")
    return entry
  }
}
