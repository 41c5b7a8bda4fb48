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
  /// like any stub's; when it cannot be reached, the caller gets the `URLError`.
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
          upstream: upstream, cassette: cassette, redaction: redaction,
          writer: cassette.map { CassetteWriter(url: $0, replacing: false) })))
  }
}

/// Where a proxying stub forwards its requests, and where it records them.
struct Proxy: Sendable {
  let upstream: URL
  let cassette: URL?
  let redaction: Redaction
  let writer: CassetteWriter?

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
      let (data, urlResponse) = try await session.data(for: outgoing)
      let http = urlResponse as? HTTPURLResponse
      var headers = HTTPHeaders()
      for (name, value) in (http?.allHeaderFields ?? [:]) {
        let name = "\(name)"
        // The body arrives decoded and whole: its encoding and length fields no longer apply.
        guard !Self.hopByHop.contains(name.lowercased()), name.lowercased() != "content-encoding" else { continue }
        headers.add(name, "\(value)")
      }
      response = Response(status: http?.statusCode ?? 502, headers: headers, body: data).notFollowed()
    } catch {
      response = .error(error)
    }
    guard let writer else { return (response, nil) }
    let recorded = Request(outgoing)
    let entry: HAREntry
    if let failure = response.error {
      entry = HAREntry(
        request: recorded, error: failure, startedAt: started, duration: Date().timeIntervalSince(started))
    } else {
      do {
        entry = try HAREntry(
          request: recorded, response: response, startedAt: started, duration: Date().timeIntervalSince(started))
      } catch {
        return (response, DoppelError.cassette("Could not record the proxied exchange for \(request): \(error)"))
      }
    }
    do {
      try writer.record([entry], redaction: redaction)
    } catch {
      return (response, error as? DoppelError ?? DoppelError.cassette("Could not write the cassette: \(error)"))
    }
    return (response, nil)
  }
}
