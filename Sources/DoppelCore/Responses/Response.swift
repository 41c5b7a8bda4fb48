@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What a stub answers: an HTTP response (status, headers, body) or a failure.
///
/// Use the static factories for the common cases and the modifiers to adjust them:
///
/// ```swift
/// .json(breeds)                                   // 200, application/json
/// .json(order, status: 201).header("Location", "/orders/7")
/// .status(404)
/// .text("Slow down", status: 429, headers: ["Retry-After": "30"])
/// .file(fixturesURL.appending(path: "breeds.json"))
/// .error(.notConnectedToInternet)
/// ```
///
/// When not given, `Content-Type` is set from how the body was made (JSON, text, a file's
/// extension) and `Content-Length` from the body's size.
public struct Response: Sendable {
  /// The parts, shared by copies until one of them changes (copy on write): a response travels
  /// through resolution and the journal as one reference.
  private final class Storage: @unchecked Sendable {
    // Why `@unchecked` is safe: a `Storage` is written only through `Response.unique()`, which
    // first copies it unless this `Response` holds the only reference. A storage that two values
    // (and so possibly two threads) share is therefore never written, only read.
    var status: Int
    var headers: HTTPHeaders
    var body: Body
    var failure: (any Error)?
    var timing: Timing
    var cache: ResponseCache
    /// What few responses have, kept out of line: most responses have none of it, and a stub keeps
    /// its response for as long as it lives (168 bytes inline, 8 as a reference).
    var extras: Extras?

    init(
      status: Int, headers: HTTPHeaders, body: Body, failure: (any Error)? = nil, timing: Timing = Timing(),
      cache: ResponseCache = ResponseCache(), extras: Extras? = nil
    ) {
      self.status = status
      self.headers = headers
      self.body = body
      self.failure = failure
      self.timing = timing
      self.cache = cache
      self.extras = extras
    }

    func copy() -> Storage {
      Storage(
        status: status, headers: headers, body: body, failure: failure, timing: timing, cache: cache, extras: extras)
    }
  }

  /// A WebSocket script, what is decided at random, and a template: each changed by replacing the
  /// whole (immutable) object, so copies of a storage can share it.
  private final class Extras: Sendable {
    let webSocket: WebSocketScript?
    let chance: Chance?
    let template: TemplateMark?

    init(webSocket: WebSocketScript?, chance: Chance?, template: TemplateMark?) {
      self.webSocket = webSocket
      self.chance = chance
      self.template = template
    }

    /// `extras` with one part changed; `nil` when nothing is left.
    static func changing(
      _ extras: Extras?, webSocket: WebSocketScript?? = nil, chance: Chance?? = nil, template: TemplateMark?? = nil
    ) -> Extras? {
      let webSocket = webSocket ?? extras?.webSocket
      let chance = chance ?? extras?.chance
      let template = template ?? extras?.template
      if webSocket == nil && chance == nil && template == nil { return nil }
      return Extras(webSocket: webSocket, chance: chance, template: template)
    }
  }

  private var storage: Storage

  /// The storage, copied first unless this value holds the only reference to it.
  private mutating func unique() -> Storage {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    return storage
  }

  /// Changes what the delivered answer is made from, and so starts a new cache.
  private mutating func changeContent(_ change: (Storage) -> Void) {
    let storage = unique()
    change(storage)
    storage.cache = ResponseCache()
  }

  /// The status code.
  public var status: Int {
    get { storage.status }
    set { changeContent { $0.status = newValue } }
  }
  /// The header fields; `Content-Type` and `Content-Length` are added at delivery when absent.
  public var headers: HTTPHeaders {
    get { storage.headers }
    set { changeContent { $0.headers = newValue } }
  }
  package var body: Body {
    get { storage.body }
    set { changeContent { $0.body = newValue } }
  }
  package var failure: (any Error)? {
    get { storage.failure }
    set { unique().failure = newValue }
  }
  /// The conversation of a WebSocket endpoint (see ``webSocket(_:headers:)``).
  package var webSocket: WebSocketScript? {
    get { storage.extras?.webSocket }
    set { changeContent { $0.extras = Extras.changing($0.extras, webSocket: .some(newValue)) } }
  }
  package var timing: Timing {
    get { storage.timing }
    set { unique().timing = newValue }
  }
  /// What is decided at random for each request (a random delay, a failure rate); `nil` for a
  /// response that is the same every time.
  package var chance: Chance? {
    get { storage.extras?.chance }
    set {
      let storage = unique()
      storage.extras = Extras.changing(storage.extras, chance: .some(newValue))
    }
  }
  /// For a response made with ``templated(seed:)``: what fills it in for each request.
  package var template: TemplateMark? {
    get { storage.extras?.template }
    set {
      let storage = unique()
      storage.extras = Extras.changing(storage.extras, template: .some(newValue))
    }
  }
  /// What delivering this response computed, kept for the next request. Copies share it until one
  /// of them changes what it depends on.
  var cache: ResponseCache { storage.cache }

  /// Whether every request to the same URL (but `HEAD`) gets the same answer, body and all, so the
  /// answer can be built once and reused: a body in memory, a valid status that carries a body
  /// (not 204 or 304), and no failure or WebSocket script.
  var answersAreReusable: Bool {
    let storage = storage
    guard storage.failure == nil, storage.extras == nil,
      storage.status != 204, storage.status != 304, (100...599).contains(storage.status),
      case .data = storage.body.source
    else { return false }
    return true
  }

  /// The answer delivered last time, when `request` gets exactly the same one: a body in memory,
  /// the same URL, and a full body (not `HEAD`, 204 or 304).
  func reusableAnswer(for request: Request) -> Delivery.Answer? {
    guard answersAreReusable else { return nil }
    return storage.cache.answer(for: request)
  }

  /// Creates a response from its parts.
  public init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data()) {
    storage = Storage(status: status, headers: headers, body: Body(source: .data(body), contentType: nil))
  }

  init(status: Int, headers: HTTPHeaders, body: Body) {
    storage = Storage(status: status, headers: headers, body: body)
  }

  package struct Body: Sendable {
    package enum Source: Sendable {
      case data(Data)
      /// A file, and its path (`url.path`, worked out once: a file body is looked at for every request).
      case file(URL, path: String)
      case problem(DoppelError)
    }
    package var source: Source
    package var contentType: String?
    /// For an upstream's answer too large to hold (see ``UpstreamFetch``): the file `source`
    /// names, kept until the last value holding it goes away.
    package var spool: SpooledBody? = nil

    package init(source: Source, contentType: String?, spool: SpooledBody? = nil) {
      self.source = source
      self.contentType = contentType
      self.spool = spool
    }
  }

  /// A problem known when the response was made (a value that failed to encode, a missing bundle
  /// resource); requests answered with this response fail with it.
  package var problem: DoppelError? {
    if case .problem(let problem) = body.source { return problem }
    return nil
  }

  /// Whether this response is a failure rather than an HTTP response.
  public var isFailure: Bool { failure != nil }

  /// The `Content-Type` delivery adds to a non-empty body when ``headers`` have none (from how the
  /// body was made), for static checks of a stub's responses.
  package var impliedContentType: String? { body.contentType }

  /// The failure this response stands for, if it is one.
  public var error: (any Error)? { failure }

  /// The body bytes, reading a file body from disk.
  ///
  /// - Throws: ``DoppelError`` naming the file when a file body cannot be read, or when the body
  ///   could not be built (for example a value that failed to encode as JSON).
  public func bodyData() throws -> Data {
    switch body.source {
    case .data(let data): return data
    case .problem(let problem): throw problem
    case .file(let url, _): return try Self.readFile(url)
    }
  }

  /// The most bytes a file body (``file(_:status:headers:contentType:)``, a manifest's `"file"`)
  /// may hold when it is read into memory: 64 MiB. The URLSession and in-memory doors read a file
  /// body whole when a request first needs it, and again only when the file changes (its size,
  /// modification time or inode); the bytes are kept with the stub in between, within
  /// ``fileBodyMemoryLimit``. A larger file (a 1.5 GB file named by mistake) would take that much
  /// memory; it is refused, without being read, with a message that names the file, its size and
  /// this limit.
  ///
  /// The stub server reads and keeps only file bodies of up to 1 MiB. It sends a larger one from
  /// disk, a piece at a time as the client reads it, for each request, so this limit does not apply
  /// there, unless the answer is delayed, paced or cut short (``Response/delayed(by:)-(Duration)``,
  /// ``Response/throttled(bytesPerSecond:)`` and the like), which needs the bytes in memory.
  public static let fileBodySizeLimit = 64 * 1024 * 1024

  /// The most bytes of file bodies kept in memory at once, across every stub and backend in the
  /// process: 256 MiB. A file body read while the kept ones already take this much is not kept: it
  /// is read again for the next request, so memory stays bounded however many large fixtures a
  /// manifest names.
  public static let fileBodyMemoryLimit = 256 * 1024 * 1024

  /// The contents of a body file, or an error naming it and the fix.
  static func readFile(_ url: URL) throws(DoppelError) -> Data {
    do {
      return try WholeFile.read(url, limit: fileBodySizeLimit)
    } catch let tooLarge as WholeFile.TooLarge {
      throw DoppelError.file(
        "Could not read the response body file \(url.path): it is \(tooLarge.size) bytes, more than the 64 MiB a file body may be (Response.fileBodySizeLimit), since it is read whole and kept in memory. Point the stub at a smaller file, or build the body in a handler closure."
      )
    } catch is WholeFile.NotRegular {
      throw DoppelError.file(
        "Could not read the response body file \(url.path): \(WholeFile.notRegularReason). Point the stub at a regular file."
      )
    } catch {
      throw DoppelError.file(
        "Could not read the response body file \(url.path): \(Self.reason(error)). Check that the file exists and is readable; for a fixture shipped with a target, declare it in the target's resources and load it with .resource(_:withExtension:in:)."
      )
    }
  }

  private static func reason(_ error: any Error) -> String {
    if let error = error as? CocoaError, error.code == .fileReadNoSuchFile { return "no such file" }
    return (error as NSError).localizedDescription
  }
}

// MARK: - Factories

extension Response {
  /// 200 with an empty body.
  public static var ok: Response { Response(status: 200) }

  /// An empty body with this status: `.status(204)`, `.status(404)`.
  public static func status(_ status: Int, headers: HTTPHeaders = [:]) -> Response {
    Response(status: status, headers: headers)
  }

  /// Raw bytes, `application/octet-stream` unless `headers` says otherwise.
  public static func data(
    _ data: Data, status: Int = 200, headers: HTTPHeaders = [:],
    contentType: String = "application/octet-stream"
  ) -> Response {
    Response(status: status, headers: headers, body: Body(source: .data(data), contentType: contentType))
  }

  /// UTF-8 text, `text/plain; charset=utf-8` unless `headers` says otherwise.
  public static func text(
    _ text: String, status: Int = 200, headers: HTTPHeaders = [:],
    contentType: String = "text/plain; charset=utf-8"
  ) -> Response {
    Response(
      status: status, headers: headers, body: Body(source: .data(Data(text.utf8)), contentType: contentType))
  }

  /// Any `Encodable` value as JSON (`application/json`), encoded with `encoder`.
  ///
  /// A value that fails to encode does not crash: requests answered with it fail with an error
  /// that names the type and the encoder's reason.
  public static func json<T: Encodable>(
    _ value: T, status: Int = 200, headers: HTTPHeaders = [:], encoder: JSONEncoder = JSONEncoder()
  ) -> Response {
    let source: Body.Source
    do {
      source = .data(try encoder.encode(value))
    } catch {
      source = .problem(DoppelError.invalidStub("Could not encode \(T.self) as the JSON body of a response: \(error)."))
    }
    return Response(status: status, headers: headers, body: Body(source: source, contentType: "application/json"))
  }

  /// A JSON literal such as `["breeds": [], "page": 1]` (`application/json`).
  public static func json(_ json: JSONValue, status: Int = 200, headers: HTTPHeaders = [:]) -> Response {
    Self.json(json, status: status, headers: headers, encoder: JSONEncoder())
  }

  /// JSON text given as is, well-formed or not (handy for malformed-response tests),
  /// served as `application/json`.
  public static func json(raw: String, status: Int = 200, headers: HTTPHeaders = [:]) -> Response {
    text(raw, status: status, headers: headers, contentType: "application/json")
  }

  /// The contents of a file, read when a request is answered; `Content-Type` comes from the file's
  /// extension unless given. A missing file fails the request with an error naming the path, as
  /// does a file larger than ``fileBodySizeLimit``.
  public static func file(
    _ url: URL, status: Int = 200, headers: HTTPHeaders = [:], contentType: String? = nil
  ) -> Response {
    Response(
      status: status, headers: headers,
      body: Body(
        source: .file(url, path: url.path), contentType: contentType ?? MediaType.forExtension(url.pathExtension)))
  }

  /// A resource from a bundle (for a package target, `Bundle.module`), as ``file(_:status:headers:contentType:)``.
  /// A resource that is not in the bundle fails the request with an error naming it and the bundle.
  public static func resource(
    _ name: String, withExtension ext: String? = nil, subdirectory: String? = nil, in bundle: Bundle,
    status: Int = 200, headers: HTTPHeaders = [:], contentType: String? = nil
  ) -> Response {
    guard let url = bundle.url(forResource: name, withExtension: ext, subdirectory: subdirectory) else {
      let file = ext.map { "\(name).\($0)" } ?? name
      let place = subdirectory.map { " in \($0)/" } ?? ""
      return Response(
        status: status, headers: headers,
        body: Body(
          source: .problem(
            DoppelError.invalidStub(
              "The resource \(file)\(place) is not in the bundle at \(bundle.bundleURL.path). Add it to the target's resources in Package.swift (for example resources: [.copy(\"Fixtures\")]) and pass subdirectory: when it is inside a folder."
            )),
          contentType: nil))
    }
    return file(url, status: status, headers: headers, contentType: contentType)
  }

  /// A failure with a `URLError` code, as the network would give: `.error(.timedOut)`.
  public static func error(_ code: URLError.Code) -> Response {
    error(URLError(code))
  }

  /// A failure with any error; `URLSession` callers receive it as is.
  public static func error(_ error: any Error) -> Response {
    var response = Response(status: 0)
    response.failure = error
    return response
  }
}

// MARK: - Modifiers

extension Response {
  /// This response with a header field added (existing fields of that name are kept).
  public func header(_ name: String, _ value: String) -> Response {
    var copy = self
    copy.headers.add(name, value)
    return copy
  }

  /// This response with these header fields replacing any of the same names.
  public func headers(_ fields: HTTPHeaders) -> Response {
    var copy = self
    copy.headers = headers.merging(fields)
    return copy
  }

  /// This response with another status.
  public func status(_ status: Int) -> Response {
    var copy = self
    copy.status = status
    return copy
  }
}

/// Media types by file extension, for file bodies.
enum MediaType {
  static func forExtension(_ ext: String) -> String {
    switch ext.lowercased() {
    case "json", "har": "application/json"
    case "txt", "text": "text/plain; charset=utf-8"
    case "html", "htm": "text/html; charset=utf-8"
    case "css": "text/css; charset=utf-8"
    case "js": "text/javascript; charset=utf-8"
    case "xml": "application/xml"
    case "csv": "text/csv; charset=utf-8"
    case "png": "image/png"
    case "jpg", "jpeg": "image/jpeg"
    case "gif": "image/gif"
    case "webp": "image/webp"
    case "svg": "image/svg+xml"
    case "pdf": "application/pdf"
    default: "application/octet-stream"
    }
  }
}
