@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// One request a backend saw, with what answered it.
public struct JournalEntry: Sendable, CustomStringConvertible {
  /// What happened to the request.
  enum Outcome: Sendable {
    /// Still being answered.
    case pending
    /// Answered with `response`, whose final headers (with `Content-Type` and `Content-Length`
    /// filled in) are `headers`.
    case answered(Response, headers: HTTPHeaders)
    /// Answered with `answer`, built before for the same URL from the stub's
    /// ``StubHandle/reusableResponse`` (the journal does not touch the response itself).
    case reused(Delivery.Answer)
    case failed(any Error)
  }

  init(request: Request, stub: StubHandle? = nil, outcome: Outcome = .pending, unmatchedReport: String? = nil) {
    self.request = request
    self.stub = stub
    self.outcome = outcome
    if let unmatchedReport { rare = Rare(RareFields(unmatchedReport: unmatchedReport)) }
    receivedAt = Date()
  }

  /// What few entries carry.
  private struct RareFields: Sendable {
    var unmatchedReport: String?
    var omittedRequestBody: OmittedBody?
    var omittedResponseBody: OmittedBody?

    var isEmpty: Bool { unmatchedReport == nil && omittedRequestBody == nil && omittedResponseBody == nil }
  }

  /// ``RareFields`` behind one reference, so that every entry stays small: the journal writes an
  /// entry per request, and an entry's size is memory each request touches.
  private final class Rare: Sendable {
    let fields: RareFields
    init(_ fields: RareFields) { self.fields = fields }
  }

  /// The near-miss report and the omitted bodies, when the entry has any.
  private var rare: Rare?

  /// The rare fields, read and written as one value: no reference is kept while all are `nil`.
  private var rareFields: RareFields {
    get { rare?.fields ?? RareFields() }
    set { rare = newValue.isEmpty ? nil : Rare(newValue) }
  }

  // Stored inline: the journal's array holds the entries themselves, so journaling a request
  // allocates nothing but its place in the array.

  /// The request, with its full body and, when a template matched, its path parameters.
  public internal(set) var request: Request

  /// When the backend received the request (by the system's wall clock): what the stub server's
  /// dashboard shows and filters a time range by.
  public internal(set) var receivedAt: Date

  /// The stub that answered, or `nil` when none matched.
  public internal(set) var stub: StubHandle?

  /// What happened to the request.
  var outcome: Outcome

  /// The response given, or `nil` while the answer is still being computed, or when the
  /// request failed.
  public var response: Response? {
    var journaled: Response
    switch outcome {
    case .answered(let response, let headers):
      journaled = response
      journaled.headers = headers
    case .reused(let answer):
      guard let response = stub?.reusableResponse else { return nil }
      journaled = response
      journaled.headers = answer.headers
    case .pending, .failed:
      return nil
    }
    return journaled
  }

  /// The error the request failed with, if it failed.
  public var error: (any Error)? {
    guard case .failed(let error) = outcome else { return nil }
    return error
  }

  /// For a request no stub matched: the near-miss report (the request, the closest stubs field by
  /// field, and the fix).
  public internal(set) var unmatchedReport: String? {
    get { rare?.fields.unmatchedReport }
    set { rareFields.unmatchedReport = newValue }
  }

  /// Whether a stub answered.
  public var isMatched: Bool { stub != nil }

  /// A body the journal kept only as its length and digest, because it was larger than the
  /// backend's ``Backend/journalBodyLimit``.
  public struct OmittedBody: Sendable, Hashable, CustomStringConvertible {
    /// The body's length in bytes.
    public let length: Int
    /// The body's SHA-256 digest, in lower-case hexadecimal: compare it with `shasum -a 256`.
    public let sha256: String

    /// The length and digest of `body`.
    init(_ body: Data) {
      length = body.count
      sha256 = SHA256.hash(body).map { String(format: "%02x", $0) }.joined()
    }

    /// A length and digest read from elsewhere (a stub server's journal).
    package init(length: Int, sha256: String) {
      self.length = length
      self.sha256 = sha256
    }

    /// `15728640 bytes, SHA-256 3b0c…`.
    public var description: String { "\(length) bytes, SHA-256 \(sha256)" }
  }

  /// The request's body when the journal kept only its length and digest (``request`` then has no
  /// body); `nil` when the body is kept whole, or there was none.
  public internal(set) var omittedRequestBody: OmittedBody? {
    get { rare?.fields.omittedRequestBody }
    set { rareFields.omittedRequestBody = newValue }
  }

  /// The response's body when the journal kept only its length and digest (``response`` then has
  /// an empty body); `nil` when the body is kept whole, or was not the entry's own.
  public internal(set) var omittedResponseBody: OmittedBody? {
    get { rare?.fields.omittedResponseBody }
    set { rareFields.omittedResponseBody = newValue }
  }

  /// This entry with each body larger than `limit` bytes replaced by its length and digest.
  ///
  /// An upstream's answer spooled to disk (see ``UpstreamFetch``) is kept as its length and digest
  /// whatever the limit, so that the journal never holds the file.
  func keepingBodies(upTo limit: Int?) -> JournalEntry {
    var entry = self
    if case .answered(var response, let headers) = outcome, let spool = response.body.spool {
      entry.omittedResponseBody = OmittedBody(length: spool.length, sha256: spool.sha256)
      response.body = Response.Body(source: .data(Data()), contentType: response.body.contentType)
      entry.outcome = .answered(response, headers: headers)
    }
    guard let limit else { return entry }
    if let body = request.body, body.count > limit {
      entry.omittedRequestBody = OmittedBody(body)
      var kept = Request(method: request.method, url: request.url, headers: request.headers, body: nil)
      kept.pathParameters = request.pathParameters
      entry.request = kept
    }
    if case .answered(var response, let headers) = entry.outcome, case .data(let data) = response.body.source,
      data.count > limit
    {
      entry.omittedResponseBody = OmittedBody(data)
      response.body.source = .data(Data())
      entry.outcome = .answered(response, headers: headers)
    }
    return entry
  }

  /// Whether the response's body is an upstream's answer spooled to disk (see ``UpstreamFetch``).
  var holdsSpool: Bool {
    if case .answered(let response, _) = outcome { return response.body.spool != nil }
    return false
  }

  /// The bytes of bodies this entry holds on its own: the request's, and the response's when it
  /// was built for this request (an answer reused from the stub, or a file, holds none of its own).
  var bodyBytes: Int {
    var total = request.body?.count ?? 0
    if case .answered(let response, _) = outcome, case .data(let data) = response.body.source {
      total += data.count
    }
    return total
  }

  /// The bytes this entry counts against the journal's byte bound (``Backend/journalByteLimit``):
  /// its bodies (``bodyBytes``), the request's URL and its header fields, each field with the 4
  /// bytes that frame it on the wire (`: ` and a line break).
  package var journaledBytes: Int {
    var total = bodyBytes + request.url.absoluteString.utf8.count
    for field in request.headers { total += field.name.utf8.count + field.value.utf8.count + 4 }
    return total
  }

  /// `GET https://… → 200 (BreedTests.swift:14)`.
  public var description: String {
    let outcome: String
    if let error {
      outcome = "error \(error)"
    } else if let response {
      outcome = "\(response.status)"
    } else {
      outcome = "pending"
    }
    return "\(request) → \(outcome)" + (stub.map { " (\($0.location))" } ?? " (no stub matched)")
  }
}
