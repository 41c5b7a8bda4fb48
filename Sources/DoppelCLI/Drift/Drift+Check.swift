#if Server
  import Doppel
  import Foundation

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  extension Drift {
    /// What every check shares: where to send, what to add, what to compare.
    struct Settings: Sendable {
      /// The real server's base URL.
      let base: URL
      /// The `--header` fields, sent with every request and never printed.
      let headers: HTTPHeaders
      let comparedHeaders: [String]
      let ignored: [DriftJSONPath]
      let compareValues: Bool
      let timeout: Double
      /// The `--openapi` document.
      let document: Document?
    }

    /// How one target fared.
    enum Outcome: Sendable {
      case unchanged
      case drifted([DriftDifference])
      case skipped(String)
      /// The request could not be sent or got no answer: why, as a sentence without its full stop.
      case failed(String)
    }

    /// Checks every target, at most `concurrency` at once; the outcomes are in the targets' order.
    static func check(_ targets: [Target], settings: Settings, concurrency: Int) async -> [Outcome] {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.timeoutIntervalForRequest = settings.timeout
      configuration.timeoutIntervalForResource = settings.timeout
      configuration.httpCookieStorage = nil
      configuration.urlCache = nil
      // Redirects are not followed: a moved endpoint shows as a changed status. Bodies arrive in
      // pieces, and one over 16 MiB decoded is not fetched to the end (the target fails).
      let session = UpstreamFetch.makeSession(configuration: configuration)
      defer { session.finishTasksAndInvalidate() }
      var outcomes = [Outcome?](repeating: nil, count: targets.count)
      await withTaskGroup(of: (Int, Outcome).self) { group in
        var next = 0
        func startNext() {
          guard next < targets.count else { return }
          let index = next
          next += 1
          group.addTask { (index, await check(targets[index], settings: settings, session: session)) }
        }
        for _ in 0..<concurrency { startNext() }
        for await (index, outcome) in group {
          outcomes[index] = outcome
          startNext()
        }
      }
      return outcomes.map { $0 ?? .failed("not checked") }
    }

    /// Sends one target to the real server and compares the answer with the expected one.
    static func check(_ target: Target, settings: Settings, session: URLSession) async -> Outcome {
      if let reason = target.skipped { return .skipped(reason) }
      let expected: Answer
      switch target.expected {
      case .recorded(let answer)?: expected = answer
      case .stub(let stub)?:
        guard let (body, response) = try? await stub.answer(timeout: settings.timeout) else {
          return .skipped("the stub answers with an error or a fault, not a response")
        }
        expected = Answer(response, body: body)
      case nil: return .skipped("nothing was recorded to compare with")
      }
      let base =
        settings.base.absoluteString.hasSuffix("/")
        ? String(settings.base.absoluteString.dropLast()) : settings.base.absoluteString
      guard let url = URL(string: base + target.target) else {
        return .skipped("\(base + target.target) is not a URL")
      }
      var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: settings.timeout)
      request.httpMethod = target.method
      for field in target.headers {
        let lower = field.name.lowercased()
        // A redacted value would only be refused; --header gives the real one.
        guard !unsentHeaders.contains(lower), !field.name.hasPrefix(":"), !field.value.contains(Redaction.marker),
          !settings.headers.contains(field.name)
        else { continue }
        request.addValue(field.value, forHTTPHeaderField: field.name)
      }
      for field in settings.headers { request.addValue(field.value, forHTTPHeaderField: field.name) }
      request.httpBody = target.body
      let live: Answer
      do {
        let (response, body) = try await UpstreamFetch.data(for: request, through: session)
        guard let http = response as? HTTPURLResponse else { return .failed("the answer is not HTTP") }
        live = Answer(http, body: body)
      } catch {
        return .failed(failure(error, url: url, timeout: settings.timeout))
      }
      let differences =
        compare(expected, live, method: target.method, settings: settings)
        + documentDifferences(target, sentTo: url, live: live, settings: settings)
      return differences.isEmpty ? .unchanged : .drifted(differences)
    }

    /// How `live` differs from `expected`: status, media type, the compared headers, and for JSON
    /// bodies under the same status, the shape (and with `--compare-values`, the values). A live
    /// body of another media type is not compared: the media type already differs.
    static func compare(_ expected: Answer, _ live: Answer, method: String, settings: Settings) -> [DriftDifference] {
      var found: [DriftDifference] = []
      if expected.status != live.status {
        found.append(DriftDifference(.status, recorded: "\(expected.status)", live: "\(live.status)"))
      }
      if expected.mediaType != live.mediaType {
        found.append(DriftDifference(.contentType, recorded: expected.mediaType, live: live.mediaType))
      }
      for name in settings.comparedHeaders {
        let was = expected.headers.values(for: name).joined(separator: ", ")
        let now = live.headers.values(for: name).joined(separator: ", ")
        guard was != now else { continue }
        let secret = Redaction.default.redacts(header: name, value: was.isEmpty ? now : was)
        func shown(_ value: String) -> String? { value.isEmpty ? nil : secret ? Redaction.marker : value }
        found.append(DriftDifference(.header, path: name, recorded: shown(was), live: shown(now)))
      }
      guard method.uppercased() != "HEAD", expected.status == live.status, !expected.body.isEmpty,
        expected.mediaType.map(isJSON) ?? true, live.mediaType.map(isJSON) ?? true,
        let recorded = try? JSONValue(parsing: expected.body)
      else { return found }
      guard let now = try? JSONValue(parsing: live.body) else {
        found.append(DriftDifference(.body, recorded: "JSON", live: live.body.isEmpty ? "empty" : "not JSON"))
        return found
      }
      found += DriftJSONShape(recorded).differences(to: DriftJSONShape(now), ignoring: settings.ignored)
      if settings.compareValues {
        found += DriftJSONShape.valueDifferences(
          from: recorded, to: now, ignoring: settings.ignored, redaction: .default)
      }
      return found
    }

    /// Whether a media type is JSON: `application/json`, `application/problem+json`.
    static func isJSON(_ mediaType: String) -> Bool {
      mediaType == "application/json" || mediaType.hasSuffix("+json") || mediaType == "text/json"
    }

    /// Why a request failed, for people: `could not connect to 127.0.0.1:9 (connection refused)`.
    static func failure(_ error: any Error, url: URL, timeout: Double) -> String {
      let host = url.host.map { host in url.port.map { "\(host):\($0)" } ?? host } ?? url.absoluteString
      if let error = error as? DoppelError {
        // "The answer to … is more than 16 MiB once decoded, …": a clause after "failed: ".
        let clause = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
        return clause.prefix(1).lowercased() + clause.dropFirst()
      }
      guard let urlError = error as? URLError else { return "could not reach \(host): \(error)" }
      switch urlError.code {
      case .cannotConnectToHost: return "could not connect to \(host) (connection refused)"
      case .timedOut:
        return
          "no answer from \(host) within \(timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)) s"
      case .cannotFindHost, .dnsLookupFailed: return "could not find the host \(host)"
      case .networkConnectionLost: return "\(host) closed the connection before answering"
      case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
        .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
        return "could not make a TLS connection to \(host) (URLError \(urlError.code.rawValue))"
      default: return "could not reach \(host) (URLError \(urlError.code.rawValue))"
      }
    }
  }

#endif
