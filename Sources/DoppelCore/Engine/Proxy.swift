@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Where a proxying stub forwards its requests, and what keeps the exchanges.
///
/// The engine only forwards: keeping an exchange (a cassette, in the recording layer that makes
/// ``Responder/proxy(to:recordingTo:redaction:)``) is the `recorder`'s business.
package struct Proxy: Sendable {
  package let upstream: URL
  package let recorder: (any ExchangeRecorder)?

  package init(upstream: URL, recorder: (any ExchangeRecorder)?) {
    self.upstream = upstream
    self.recorder = recorder
  }

  /// Header fields that belong to one connection, never forwarded (RFC 9110 §7.6.1), with `Host`
  /// (the upstream's is sent) and the length fields (recomputed).
  static let hopByHop: Set<String> = [
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer",
    "transfer-encoding", "upgrade", "host", "content-length",
  ]

  /// A problem with `upstream` itself, reported when the stub is made.
  var problem: DoppelError? {
    guard let scheme = upstream.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = upstream.host, !host.isEmpty
    else {
      return DoppelError.invalidStub(
        "The proxy upstream \"\(upstream.absoluteString)\" is not an absolute http or https URL. Write it as https://api.example.com (a path prefix may follow)."
      )
    }
    guard upstream.query == nil, upstream.fragment == nil else {
      return DoppelError.invalidStub(
        "The proxy upstream \"\(upstream.absoluteString)\" has a query or fragment; the request's own query is appended to it. Remove everything after the path."
      )
    }
    return nil
  }

  /// The upstream URL for `request`: the upstream's path, then the request's path and query.
  func target(for request: Request) -> URL? {
    guard var components = URLComponents(url: upstream, resolvingAgainstBaseURL: true),
      let incoming = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
    else { return nil }
    var base = components.percentEncodedPath
    while base.hasSuffix("/") { base.removeLast() }
    let path = incoming.percentEncodedPath.isEmpty ? "/" : incoming.percentEncodedPath
    components.percentEncodedPath = base + (path.hasPrefix("/") ? path : "/" + path)
    components.percentEncodedQuery = incoming.percentEncodedQuery
    return components.url
  }

  /// The request to send upstream.
  func upstreamRequest(for request: Request) -> URLRequest? {
    guard let url = target(for: request) else { return nil }
    var forwarded = URLRequest(url: url)
    forwarded.httpMethod = request.method.rawValue
    let named = Set(
      request.headers.values(for: "Connection").flatMap { $0.split(separator: ",") }.map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      })
    for field in request.headers where !Self.hopByHop.contains(field.name.lowercased()) {
      guard !named.contains(field.name.lowercased()) else { continue }
      forwarded.addValue(field.value, forHTTPHeaderField: field.name)
    }
    if let body = request.body, !body.isEmpty { forwarded.httpBody = body }
    return forwarded
  }

  /// Forwards `request` through `session` and returns the upstream's answer as a response, adding
  /// the exchange to the cassette when there is one.
  ///
  /// - Returns: the response, and a problem recording it (the response is given all the same).
  func forward(_ request: Request, session: URLSession) async -> (Response, DoppelError?) {
    if let problem { return (.error(problem), nil) }
    guard let outgoing = upstreamRequest(for: request) else {
      return (
        .error(DoppelError.invalidStub("The request \(request) cannot be forwarded to \(upstream.absoluteString).")),
        nil
      )
    }
    let started = Date()
    let response: Response
    do {
      // A piece at a time: a large answer goes to disk, not into memory.
      let (urlResponse, body) = try await UpstreamFetch.fetch(outgoing, through: session)
      let http = urlResponse as? HTTPURLResponse
      var headers = HTTPHeaders()
      for (name, value) in (http?.allHeaderFields ?? [:]) {
        let name = "\(name)"
        // The body arrives decoded and whole: its encoding and length fields no longer apply.
        guard !Self.hopByHop.contains(name.lowercased()), name.lowercased() != "content-encoding" else { continue }
        headers.add(name, "\(value)")
      }
      response = Response(status: http?.statusCode ?? 502, headers: headers, body: body).notFollowed()
    } catch {
      response = .error(error)
    }
    guard let recorder else { return (response, nil) }
    let problem = recorder.record(
      sent: Request(outgoing), answer: response, for: request, startedAt: started,
      duration: Date().timeIntervalSince(started))
    return (response, problem)
  }
}

/// What keeps the exchanges a proxying stub forwards (a cassette writer, in the recording layer).
package protocol ExchangeRecorder: Sendable {
  /// The file the exchanges are written to.
  var file: URL { get }

  /// Keeps one exchange: `sent` is the request as it went upstream (for `original`, the request
  /// the stub matched), `answer` what came back (or the error). Returns a problem keeping it.
  func record(sent: Request, answer: Response, for original: Request, startedAt: Date, duration: TimeInterval)
    -> DoppelError?
}
