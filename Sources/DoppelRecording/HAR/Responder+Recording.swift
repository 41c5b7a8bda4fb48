import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Responder {
  /// Forwards each request to a real server, so one endpoint can be real while the rest is stubbed:
  ///
  /// ```swift
  /// backend.stub(.get("/weather/{city}"), .proxy(to: URL(string: "https://weather.example.com/v2")!))
  /// ```
  ///
  /// The request's path and query are appended to `upstream` (`/weather/paris?units=metric` goes
  /// to `https://weather.example.com/v2/weather/paris?units=metric`), with its method, headers and
  /// body; hop-by-hop headers (`Connection`, `Keep-Alive`, `Transfer-Encoding`, `Upgrade`, `TE`,
  /// `Trailer`, `Proxy-*` and the fields `Connection` names) are dropped, and `Host` is the
  /// upstream's. The call goes through a session of its own that Doppel does not intercept, so it
  /// never loops back into a backend; a redirect comes back to the caller as it is. The upstream's answer (status, headers, body) is what the caller gets, journaled
  /// like any stub's; when it cannot be reached, the caller gets the `URLError`. An answer of
  /// more than 16 MiB decoded is never held in memory: it is kept in a temporary file, sent from
  /// there, and journaled and recorded as its length and SHA-256 (see ``UnmatchedPolicy/passthrough``).
  ///
  /// Doppel makes no network call unless a stub says so: this responder is that explicit choice.
  ///
  /// - Parameters:
  ///   - upstream: the real server: an absolute `http` or `https` URL, with a path prefix or none.
  ///   - cassette: a HAR file that each forwarded exchange is added to (created when missing),
  ///     redacted with `redaction` before it is written, so it can be replayed later
  ///     (``Backend/replay(_:matching:replayingTimings:name:fileID:filePath:line:column:)``). `nil` (the default) records nothing.
  ///   - redaction: what is removed from recorded exchanges; ``Redaction/default`` by default.
  public static func proxy(to upstream: URL, recordingTo cassette: URL? = nil, redaction: Redaction = .default)
    -> Responder
  {
    Responder(
      kind: .proxy(
        Proxy(
          upstream: upstream,
          recorder: cassette.map {
            CassetteRecorder(writer: CassetteWriter(url: $0, replacing: false), redaction: redaction)
          }
        )))
  }
}

/// Keeps a proxying stub's exchanges in a cassette, redacted.
struct CassetteRecorder: ExchangeRecorder {
  let writer: CassetteWriter
  let redaction: Redaction

  var file: URL { writer.url }

  func record(sent: Request, answer: Response, for original: Request, startedAt: Date, duration: TimeInterval)
    -> DoppelError?
  {
    let entry: HAREntry
    if let failure = answer.error {
      entry = HAREntry(request: sent, error: failure, startedAt: startedAt, duration: duration)
    } else {
      do {
        entry = try HAREntry.recorded(request: sent, response: answer, startedAt: startedAt, duration: duration)
      } catch {
        return DoppelError.cassette("Could not record the proxied exchange for \(original): \(error)")
      }
    }
    do {
      try writer.record([entry], redaction: redaction)
    } catch {
      return error as? DoppelError ?? DoppelError.cassette("Could not write the cassette: \(error)")
    }
    return nil
  }
}
