@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A response ready to hand to a caller: final headers and body bytes, or the failure.
enum Delivery: Sendable {
  case success(Answer)
  case failure(any Error)

  /// A class, so the answer travels through resolution, playback and the journal as one reference.
  final class Answer: Sendable {
    // The parts a reused answer is read for come first, so they share a cache line.
    /// The ``Request/answerKey`` of the request this answer was built for.
    let key: String?
    let body: Data
    /// For a file body a front door streams from disk (the stub server): the file, and the bytes
    /// the head announces. ``body`` is then empty: the bytes are never all in memory.
    let file: StreamedFile?
    /// The `HTTPURLResponse` for these parts, built when first asked for (the stub server and
    /// the journal never need one, and building one costs microseconds on Linux), and what a
    /// front door made of them (see ``FrontDoorAnswer``).
    private let built: Locked<Built>
    let status: Int
    /// Whether the headers set cookies (a `Set-Cookie` field), worked out once per answer.
    let setsCookies: Bool
    let headers: HTTPHeaders
    let url: URL

    init(
      url: URL, key: String? = nil, status: Int, headers: HTTPHeaders, body: Data, file: StreamedFile? = nil,
      prebuilt: HTTPURLResponse? = nil
    ) {
      self.url = url
      self.key = key
      self.status = status
      self.headers = headers
      self.body = body
      self.file = file
      built = Locked(Built(response: prebuilt.map(UncheckedSendable.init)))
      setsCookies = headers.contains("Set-Cookie")
    }

    /// What is built from the answer's parts when first needed, under one lock.
    private struct Built {
      var response: UncheckedSendable<HTTPURLResponse>?
      var frontDoor: (any AnyObject & Sendable)?
    }

    /// Whether this answer was built for `request`'s URL.
    @inline(__always)
    func isFor(_ request: Request) -> Bool {
      if let key = request.answerKey { return key == self.key }
      return url == request.url
    }

    /// Whether this answer, with its whole body, is the one `request` gets from the same response:
    /// the same URL, and not `HEAD` (whose answer has no body).
    @inline(__always)
    func serves(_ request: Request) -> Bool {
      request.method != .head && isFor(request)
    }

    var httpURLResponse: HTTPURLResponse {
      built.withLock { built in
        if let response = built.response?.value { return response }
        let response =
          key.map { Self.shared(key: $0, url: url, status: status, headers: headers) }
          ?? Self.build(url: url, status: status, headers: headers)
        built.response = UncheckedSendable(response)
        return response
      }
    }

    /// The `HTTPURLResponse` for these parts, shared by every answer with the same URL string,
    /// status and headers in the process: tests declare the same stubs over and over, each test's
    /// backend builds its answers anew, and an `HTTPURLResponse` costs microseconds to build on
    /// Linux (it sanitizes its header fields). Sharing one is safe: it cannot be changed once made.
    private static func shared(key: String, url: URL, status: Int, headers: HTTPHeaders) -> HTTPURLResponse {
      let parts = ResponseParts(key: key, status: status, headers: headers)
      if let response = builtResponses[parts] { return response.value }
      let response = build(url: url, status: status, headers: headers)
      builtResponses.insert(UncheckedSendable(response), for: parts)
      return response
    }

    private struct ResponseParts: Hashable {
      let key: String
      let status: Int
      let headers: HTTPHeaders
    }

    // `HTTPURLResponse` is not `Sendable` in FoundationNetworking, but is never changed once made.
    /// The `HTTPURLResponse`s shared so far: far more than a suite's distinct answers.
    private static let builtResponses = BoundedCache<ResponseParts, UncheckedSendable<HTTPURLResponse>>(limit: 1_024)

    /// The `HTTPURLResponse` built for this answer so far, if any.
    var builtResponse: HTTPURLResponse? { built.withLock { $0.response?.value } }

    /// What a front door made of this answer's parts the first time it played them (`make`), or
    /// made before: one value per answer, of the front door's own type.
    func frontDoorValue<Value: AnyObject & Sendable>(_ make: () -> Value) -> Value {
      // Compared by type, then cast without a dynamic cast's search.
      if let value = built.withLock({ $0.frontDoor }), type(of: value) == Value.self {
        return unsafeDowncast(value, to: Value.self)
      }
      // Made outside the lock; two threads making it at once make equal values, and one is kept.
      let value = make()
      built.withLock { $0.frontDoor = value }
      return value
    }

    static func build(url: URL, status: Int, headers: HTTPHeaders) -> HTTPURLResponse {
      HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
        ?? HTTPURLResponse(url: url, statusCode: 500, httpVersion: "HTTP/1.1", headerFields: [:])!
    }
  }

  /// Reads the body, fills in `Content-Type` and `Content-Length`, and drops the body of a
  /// response to `HEAD` (keeping its length), as an HTTP server does.
  ///
  /// With `streamingFiles` (a front door that can send a file from disk as the client reads it, and
  /// an answer played at once), a file body larger than ``largestFileBodyKept`` is not read: the
  /// answer names the file instead (``Answer/file``).
  static func make(_ response: Response, for request: Request, streamingFiles: Bool = false) -> Delivery {
    // The common case first: the same answer as last time, body and all.
    if let answer = response.reusableAnswer(for: request) { return .success(answer) }
    if let failure = response.failure { return .failure(failure) }
    if let script = response.webSocket { return make(.upgradeRequired(for: script), for: request) }
    guard (100...599).contains(response.status) else {
      return .failure(
        DoppelError.invalidStub(
          "A stub answered with status \(response.status), which is not an HTTP status. Use a status from 100 to 599, or .error(...) for a failure."
        ))
    }
    // A file body is read again when the file changed (its size, modification time or inode), so
    // an edited fixture is served as edited.
    let file = response.body.source.fileSignature
    if streamingFiles, let file, file.size > Int64(largestFileBodyKept),
      case .file(let url, let path) = response.body.source
    {
      return .success(
        streamed(
          response, for: request,
          file: StreamedFile(url: url, path: path, length: Int(file.size), spool: response.body.spool)))
    }
    if let spool = response.body.spool, spool.length > Response.fileBodySizeLimit {
      return .failure(
        DoppelError.usage(
          "The upstream's answer to \(request) is \(spool.length) bytes once decoded, more than the 64 MiB a client of this front door may be handed in memory (Response.fileBodySizeLimit). Fetch it through the stub server (StubServer, doppel serve or doppel record), which sends it from disk as the client reads it."
        ))
    }
    let cacheable = response.body.source.isData || file != nil
    let cached = cacheable ? response.cache.lookup(request, file: file) : (prepared: nil, answer: nil)
    let noBody = request.method == .head || response.status == 204 || response.status == 304
    let prepared: ResponseCache.Prepared
    if let hit = cached.prepared {
      prepared = hit
    } else {
      let body: Data
      do {
        body = try response.bodyData()
      } catch {
        return .failure(error)
      }
      prepared = ResponseCache.Prepared(headers: finalHeaders(of: response, bodyLength: body.count), body: body)
    }
    // The answer built last time for this URL, with the whole body: the same parts, so the same
    // answer (and what was built from it: its `HTTPURLResponse`, a front door's head).
    if let last = cached.answer, cached.prepared != nil, !noBody { return .success(last) }
    let urlResponse = cached.answer?.builtResponse
    let answer = Answer(
      url: request.url, key: request.answerKey, status: response.status, headers: prepared.headers,
      body: noBody ? Data() : prepared.body, prebuilt: urlResponse)
    // A file changed within the last second may change again without its modification time
    // moving (the kernel's file clock is coarse): it is read again next time.
    let settled = file.map { $0.isSettled(now: Date()) } ?? true
    // A file's bytes are kept only while every kept file body fits in ``Response/fileBodyMemoryLimit``;
    // beyond it, the file is read again for each request.
    var kept: KeptFileBytes?
    if file != nil && cached.prepared == nil {
      // What was kept for another state of the file goes first, so that its bytes count no more.
      response.cache.forget()
      kept = FileMemoryBudget.shared.keep(prepared.body.count)
    }
    if cacheable && settled && cached.answer == nil && (file == nil || cached.prepared != nil || kept != nil) {
      response.cache.store(
        prepared, file: file, kept: kept,
        noBody
          ? Answer(
            url: request.url, key: request.answerKey, status: response.status, headers: prepared.headers,
            body: prepared.body, prebuilt: urlResponse)
          : answer)
    }
    return .success(answer)
  }
}

extension Delivery {
  /// The largest file body a front door that streams files (the stub server) reads and keeps: 1 MiB.
  /// A larger one is sent from disk, a piece at a time, for each request.
  static let largestFileBodyKept = 1024 * 1024

  /// The headers an answer with a body of `bodyLength` bytes goes out with: values trimmed,
  /// `Content-Type` from how the body was made, and `Content-Length` where HTTP has one.
  private static func finalHeaders(of response: Response, bodyLength: Int) -> HTTPHeaders {
    // As an HTTP client parses them: no spaces or tabs around a value (RFC 9110 §5.5).
    var headers = response.headers.trimmingValueWhitespace()
    if !headers.contains("Content-Type"), let type = response.body.contentType, bodyLength > 0 {
      headers.add("Content-Type", type)
    }
    // A server sends no length for 1xx, 204 and 304 responses (RFC 9110 §8.6).
    let bodiless = response.status < 200 || response.status == 204 || response.status == 304
    // An event stream has no length: it ends when the server ends it.
    if !bodiless && !response.isEventStream && !headers.contains("Content-Length")
      && !headers.contains("Transfer-Encoding")
    {
      headers.add("Content-Length", String(bodyLength))
    }
    return headers
  }

  /// The answer for a file body sent from disk: the head says the file's length, and the body is
  /// the file's to read (none for `HEAD`, 204 and 304).
  private static func streamed(_ response: Response, for request: Request, file: StreamedFile) -> Answer {
    let noBody = request.method == .head || response.status == 204 || response.status == 304
    return Answer(
      url: request.url, key: request.answerKey, status: response.status,
      headers: finalHeaders(of: response, bodyLength: file.length), body: Data(), file: noBody ? nil : file)
  }
}

/// A file body a front door sends from disk as the client reads it, rather than from memory.
struct StreamedFile: Sendable {
  /// The file.
  let url: URL
  /// Its path, as the file system is asked for it.
  let path: String
  /// Its size when the answer was made: the `Content-Length` the head announces.
  let length: Int
  /// For an upstream's answer spooled to disk: what keeps the file until it is opened.
  var spool: SpooledBody? = nil
}

/// A limit on the bytes of file bodies kept in memory, and what is kept now: one for the whole
/// process (``shared``, of ``Response/fileBodyMemoryLimit``), counted across every backend.
package final class FileMemoryBudget: Sendable {
  /// The most bytes kept at once.
  package let limit: Int
  private let total = Locked(0)

  /// The process's budget: ``Response/fileBodyMemoryLimit``.
  package static let shared = FileMemoryBudget(limit: Response.fileBodyMemoryLimit)

  package init(limit: Int) { self.limit = limit }

  /// The bytes kept now.
  package var kept: Int { total.withLock { $0 } }

  /// Counts `count` bytes for as long as the value returned lives, or `nil` when they would take
  /// what is kept beyond the limit (the caller then does not keep them).
  package func keep(_ count: Int) -> KeptFileBytes? {
    let fits = total.withLock { total in
      guard total + count <= limit else { return false }
      total += count
      return true
    }
    return fits ? KeptFileBytes(count: count, budget: self) : nil
  }

  fileprivate func release(_ count: Int) {
    total.withLock { $0 -= count }
  }
}

/// Bytes of a file body kept in memory, counted against a ``FileMemoryBudget`` for as long as this
/// value lives: made when a file body is kept, and given back when it is let go (the file changed,
/// the stub was removed, the backend ended).
final package class KeptFileBytes: Sendable {
  /// The bytes counted.
  package let count: Int
  private let budget: FileMemoryBudget

  fileprivate init(count: Int, budget: FileMemoryBudget) {
    self.count = count
    self.budget = budget
  }

  deinit {
    budget.release(count)
  }
}

/// What delivering a response computed: its final headers and body, and the last answer built
/// from them (building an `HTTPURLResponse` costs microseconds on Linux), reused while requests
/// come for the same URL.
struct ResponseCache: Sendable {
  struct Prepared: Sendable {
    let headers: HTTPHeaders
    let body: Data
  }

  private struct State {
    var prepared: Prepared?
    var last: Delivery.Answer?
    /// The file `prepared` was read from, as it was then; `nil` for a body in memory.
    var file: FileIdentity?
    /// For a file body, its bytes as counted against the process's limit.
    var kept: KeptFileBytes?
  }

  /// Shared by every copy: the cache is one object however often a response is copied.
  private let state = Locked(State())

  /// The prepared headers and body, and the answer built last time when it was for `request`'s
  /// URL: one lock.
  /// For a file body, `file` is the file as it is now: what was kept for another state of the file
  /// is not used.
  func lookup(_ request: Request, file: FileIdentity? = nil) -> (prepared: Prepared?, answer: Delivery.Answer?) {
    let (prepared, last, kept) = state.withLock { ($0.prepared, $0.last, $0.file) }
    guard kept == file else { return (nil, nil) }
    guard let last, last.isFor(request) else { return (prepared, nil) }
    return (prepared, last)
  }

  /// The answer built last time, when it serves `request` whole (see ``Delivery/Answer/serves(_:)``).
  func answer(for request: Request) -> Delivery.Answer? {
    guard let last = state.withLock({ $0.last }), last.serves(request) else { return nil }
    return last
  }

  /// Keeps `prepared` and the answer with its whole body for the next request.
  /// Lets go of what was kept (and of the file bytes it counted).
  func forget() {
    state.withLock { $0 = State() }
  }

  /// For a file body, `kept` counts its bytes (`nil` when they were counted before, with the same
  /// `prepared`).
  func store(_ prepared: Prepared, file: FileIdentity? = nil, kept: KeptFileBytes? = nil, _ answer: Delivery.Answer) {
    state.withLock { state in
      state.prepared = prepared
      state.last = answer
      state.file = file
      if kept != nil || file == nil { state.kept = kept }
    }
  }
}

extension Response.Body.Source {
  /// Whether the body is bytes in memory (and so the same for every request).
  var isData: Bool {
    if case .data = self { return true }
    return false
  }

  /// For a file body, the file as it is now (see ``FileIdentity``); `nil` for other bodies and for
  /// a file that cannot be looked at or is not a regular file (reading it then reports why, or
  /// reads it every time).
  var fileSignature: FileIdentity? {
    guard case .file(_, let path) = self, let identity = FileIdentity(path: path), identity.isRegularFile else {
      return nil
    }
    return identity
  }
}

extension FileIdentity {
  /// Whether the file was last modified at least a second before `now`.
  func isSettled(now: Date) -> Bool {
    now.timeIntervalSince1970 - (Double(seconds) + Double(nanoseconds) / 1e9) >= 1
  }
}
