import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

// Consumer contracts: what a test's stubs answered, written as a Pact V4 file that the provider's
// team verifies against the real service. Read from the journal and the stubs' matchers; the
// engine knows nothing of it.

extension Backend {
  /// The backend's traffic as a consumer contract: a Pact Specification V4 document between
  /// `consumer` and `provider`, as JSON with sorted keys.
  ///
  /// ```swift
  /// let contract = try backend.pact(consumer: "BreedsApp", provider: "BreedsAPI")
  /// ```
  ///
  /// Each stub that answered gives one `Synchronous/HTTP` interaction per distinct request it
  /// answered, described by the stub's name or, without one, its matcher (`GET /breeds/{id}`);
  /// when one stub answered several distinct requests, each description ends with its request
  /// (`GET /breeds/{id} — GET /breeds/7`). Stubs that never answered, requests no stub matched,
  /// requests that failed (a fault, an error), and requests whose body the journal kept only as
  /// a digest are left out. Interactions are ordered by description.
  ///
  /// The request holds the method, the path, the query, the body, and only the headers the stub's
  /// matcher names (with `Content-Type` when there is a body). Where the stub matched loosely, the
  /// interaction says so with matching rules: a path template or glob, or a path regular
  /// expression, becomes a `regex` rule on the path; a header regular expression a `regex` rule on
  /// that header, a header required only to be present a `type` rule; `.jsonBody(containing:)`
  /// writes only the fields it names, each with a `type` rule. In the response, the values a
  /// ``Response/templated(seed:)`` response fills in get `type` rules, in its JSON body and its
  /// headers. `Content-Length`, `Date` and other headers of the connection are left out.
  ///
  /// Secrets are replaced by `redaction` first, as in a recorded cassette; a value it replaced
  /// gets a `type` rule, so the real one still passes verification.
  ///
  /// - Throws: ``DoppelError`` when a name cannot name a pact file (see
  ///   ``writePact(consumer:provider:to:redaction:)``).
  public func pact(consumer: String, provider: String, redaction: Redaction = .default) throws -> Data {
    _ = try PactFile.url(consumer: consumer, provider: provider, at: URL(fileURLWithPath: "/"))
    let interactions = try PactInteraction.all(in: journal, redaction: redaction).map(\.json)
    return try PactFile.encoded(PactFile.document(consumer: consumer, provider: provider, interactions: interactions))
  }

  /// Writes ``pact(consumer:provider:redaction:)`` to a file, merged with the contract the file
  /// already holds, and returns the file.
  ///
  /// ```swift
  /// try backend.writePact(consumer: "BreedsApp", provider: "BreedsAPI", to: pactsFolder)
  /// // pactsFolder/BreedsApp-BreedsAPI.json
  /// ```
  ///
  /// `location` is a folder, where the file is named `<consumer>-<provider>.json` as Pact names
  /// it, or a file whose name ends in `.json`. Folders are created as needed; nothing is read or
  /// written outside the folder given (the names may not hold `/`, `\`, `:` or start with `.`).
  ///
  /// An existing file is merged as Pact's own libraries do: an interaction with the same
  /// description as a new one is replaced by it, the others are kept, so tests that share a
  /// contract each add theirs. Writers hold a lock on `<file>.lock`, so tests running at once lose
  /// nothing.
  ///
  /// - Throws: ``DoppelError`` naming the file when it cannot be written, or when it holds
  ///   something other than a Pact V4 contract between the same consumer and provider.
  @discardableResult
  public func writePact(
    consumer: String, provider: String, to location: URL, redaction: Redaction = .default
  ) throws -> URL {
    let file = try PactFile.url(consumer: consumer, provider: provider, at: location)
    let interactions = try PactInteraction.all(in: journal, redaction: redaction)
    try PactFile.write(interactions, consumer: consumer, provider: provider, to: file)
    return file
  }
}
