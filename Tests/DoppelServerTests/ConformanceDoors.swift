#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import TestHTTPServer
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
    @_spi(DoppelInternals) import DoppelToolkit
  #endif

  /// The hosts a door's requests go to, and how observations are made door-independent.
  struct Endpoints: Sendable {
    var base: String
    var other: String
    var host: String
    var otherHost: String
    var hostname: String

    /// For doors in the process: the same hosts as a server's, on a port no server uses (requests
    /// never leave the process), so that answers are byte for byte the same length.
    static let inProcess = loopback(port: 50_000)

    /// For a server on loopback: `127.0.0.1` and, as another host, `localhost`.
    static func loopback(port: Int) -> Endpoints {
      Endpoints(port: port, hostname: "127.0.0.1", otherName: "localhost")
    }

    private init(port: Int, hostname: String, otherName: String) {
      self.hostname = hostname
      host = "\(hostname):\(port)"
      otherHost = "\(otherName):\(port)"
      base = "http://\(host)"
      other = "http://\(otherHost)"
    }

    /// Placeholders to values.
    func fill(_ text: String) -> String {
      text.replacingOccurrences(of: "{base}", with: base).replacingOccurrences(of: "{other}", with: other)
        .replacingOccurrences(of: "{host}", with: host).replacingOccurrences(of: "{otherhost}", with: otherHost)
        .replacingOccurrences(of: "{hostname}", with: hostname)
    }

    /// Values back to placeholders.
    func normalize(_ text: String) -> String {
      text.replacingOccurrences(of: base, with: "{base}").replacingOccurrences(of: other, with: "{other}")
        .replacingOccurrences(of: host, with: "{host}").replacingOccurrences(of: otherHost, with: "{otherhost}")
        .replacingOccurrences(of: hostname, with: "{hostname}")
    }

    func url(_ target: String) -> URL? {
      let filled = fill(target)
      return URL(string: filled.hasPrefix("/") ? base + filled : filled)
    }
  }

  /// Runs cases through doors and reports what the caller observed.
  enum ConformanceDoors {
    /// Response fields a caller sees that depend on the server program, not on the answer; and the
    /// sandbox the stub server puts on every stub answer while the admin API shares its port (a
    /// field browsers alone read; see "Pages the stubs serve" in the DoppelServer documentation).
    static let ignoredHeaders: Set<String> = [
      "date", "server", "connection", "keep-alive", "content-security-policy",
    ]

    static func observe(_ conformanceCase: ConformanceCase, through door: Door) async throws -> [Observation] {
      let cookies = CookieStoragePool.shared.take()
      defer { CookieStoragePool.shared.giveBack(cookies) }
      switch door {
      case .urlSession:
        let backend = makeBackend(conformanceCase, .inProcess)
        let configuration = makeConfiguration(cookies)
        let session = backend.makeSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        return await run(conformanceCase, .inProcess, configuration: configuration) { delegate in
          delegate.map { backend.makeSession(configuration: configuration, delegate: $0) } ?? session
        }
      case .inMemory:
        let backend = makeBackend(conformanceCase, .inProcess)
        var observations: [Observation] = []
        for step in conformanceCase.steps {
          observations.append(await inMemory(step, backend: backend, .inProcess))
        }
        return observations
      case .stubServer:
        let backend = Backend(issueReporter: .ignore)
        return try await withStubServer(backend) { server in
          let endpoints = Endpoints.loopback(port: server.port)
          install(conformanceCase, on: backend, endpoints)
          return await runOnRealStack(conformanceCase, endpoints, cookies)
        }
      case .realServer:
        // Known once the server has its port, before any request comes.
        let endpoints = Locked(Endpoints.loopback(port: 0))
        let server = try TestHTTPServer.start { request in
          realAnswer(conformanceCase.routes, to: request, endpoints.withLock { $0 })
        }
        defer { server.stop() }
        endpoints.withLock { $0 = .loopback(port: server.port) }
        return await runOnRealStack(conformanceCase, .loopback(port: server.port), cookies)
      }
    }

    private static func runOnRealStack(
      _ conformanceCase: ConformanceCase, _ endpoints: Endpoints, _ cookies: CookieStoragePool.Storage
    ) async
      -> [Observation]
    {
      let configuration = makeConfiguration(cookies)
      let session = URLSession(configuration: configuration)
      defer { session.finishTasksAndInvalidate() }
      return await run(conformanceCase, endpoints, configuration: configuration) { delegate in
        delegate.map { URLSession(configuration: configuration, delegate: $0, delegateQueue: nil) } ?? session
      }
    }

    static func makeConfiguration(_ cookies: CookieStoragePool.Storage) -> URLSessionConfiguration {
      let configuration = URLSessionConfiguration.ephemeral
      configuration.httpCookieStorage = cookies.storage
      return configuration
    }

    // MARK: Serving the routes

    static func makeBackend(_ conformanceCase: ConformanceCase, _ endpoints: Endpoints) -> Backend {
      let backend = Backend(issueReporter: .ignore)
      install(conformanceCase, on: backend, endpoints)
      return backend
    }

    static func install(_ conformanceCase: ConformanceCase, on backend: Backend, _ endpoints: Endpoints) {
      // What the real server answers when no route matches; the earliest stub, so every route wins.
      backend.stub(.any) { request in
        doppelResponse(
          404, [("Content-Type", "text/plain; charset=utf-8")],
          Data(noRoute(request.method.rawValue, request.path).utf8), endpoints)
      }
      for route in conformanceCase.routes {
        let matcher = (route.method.map { Matcher.method(HTTPMethod(rawValue: $0)) } ?? .any) && .path(route.path)
        switch route.reply {
        case .fixed(let status, let headers, let body):
          backend.stub(matcher, doppelResponse(status, headers, body, endpoints))
        case .echo:
          backend.stub(matcher) { request in
            let target =
              (URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "")
              + (request.url.query(percentEncoded: true).map { "?" + $0 } ?? "")
            let host = request.url.host(percentEncoded: true).map { host in
              request.url.port.map { "\(host):\($0)" } ?? host
            }
            let text = echo(
              method: request.method.rawValue, target: target, host: host, body: request.body ?? Data(),
              header: { request.headers[$0] })
            return doppelResponse(200, [("Content-Type", "text/plain; charset=utf-8")], Data(text.utf8), endpoints)
          }
        case .conditional(let etag, let headers, let body):
          backend.stub(matcher) { request in
            if request.headers["If-None-Match"] == etag {
              return doppelResponse(304, [("ETag", etag)] + headers, Data(), endpoints)
            }
            return doppelResponse(200, [("ETag", etag)] + headers, Data(body.utf8), endpoints)
          }
        case .never:
          backend.stub(matcher, .never)
        case .stalls(let body, let bytes):
          backend.stub(matcher, Response(status: 200, body: body).chunked(size: bytes, every: .seconds(3600)))
        }
      }
    }

    static func doppelResponse(_ status: Int, _ headers: [(String, String)], _ body: Data, _ endpoints: Endpoints)
      -> Response
    {
      Response(status: status, headers: HTTPHeaders(headers.map { ($0.0, endpoints.fill($0.1)) }), body: body)
    }

    static func noRoute(_ method: String, _ path: String) -> String { "no route for \(method) \(path)" }

    /// What both sides echo: a description of the request as it arrived.
    static func echo(method: String, target: String, host: String?, body: Data, header: (String) -> String?) -> String {
      var lines = ["\(method) \(target)", "host: \(host ?? "-")"]
      for name in ["Cookie", "Content-Type", "X-Probe", "If-None-Match", "Authorization"] {
        guard var value = header(name) else { continue }
        // The order of cookies comes from the storage's dictionary, on both sides.
        if name == "Cookie" { value = value.components(separatedBy: "; ").sorted().joined(separator: "; ") }
        lines.append("\(name.lowercased()): \(value)")
      }
      lines.append("body: \(String(decoding: body, as: UTF8.self))")
      return lines.joined(separator: "\n")
    }

    static func realAnswer(_ routes: [Route], to request: TestHTTPServer.Request, _ endpoints: Endpoints)
      -> TestHTTPServer.Response
    {
      let path = request.path.removingPercentEncoding ?? request.path
      // Later routes win, as later stubs do.
      guard
        let route = routes.last(where: { route in
          route.path == path && (route.method == nil || route.method == request.method)
        })
      else {
        return TestHTTPServer.Response(
          status: 404, headers: [("Content-Type", "text/plain; charset=utf-8")],
          body: Data(noRoute(request.method, path).utf8))
      }
      func filled(_ headers: [(String, String)]) -> [(String, String)] { headers.map { ($0.0, endpoints.fill($0.1)) } }
      switch route.reply {
      case .fixed(let status, let headers, let body):
        return TestHTTPServer.Response(status: status, headers: filled(headers), body: body)
      case .echo:
        let text = echo(
          method: request.method, target: request.target, host: request.header("Host"), body: request.body,
          header: { request.header($0) })
        return TestHTTPServer.Response(
          status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
      case .conditional(let etag, let headers, let body):
        if request.header("If-None-Match") == etag {
          return TestHTTPServer.Response(status: 304, headers: [("ETag", etag)] + filled(headers))
        }
        return TestHTTPServer.Response(status: 200, headers: [("ETag", etag)] + filled(headers), body: Data(body.utf8))
      case .never:
        var response = TestHTTPServer.Response(status: 200)
        response.hold = .beforeHead
        return response
      case .stalls(let body, let bytes):
        var response = TestHTTPServer.Response(status: 200, body: body)
        response.hold = .afterBodyBytes(bytes)
        return response
      }
    }

    // MARK: Sending the steps

    static func urlRequest(_ step: Step, _ endpoints: Endpoints) -> URLRequest? {
      guard let url = endpoints.url(step.target) else { return nil }
      var request = URLRequest(url: url)
      request.httpMethod = step.method
      for (name, value) in step.headers { request.addValue(endpoints.fill(value), forHTTPHeaderField: name) }
      request.httpBody = step.body
      if let policy = step.cachePolicy { request.cachePolicy = policy }
      if let timeout = step.timeout { request.timeoutInterval = timeout }
      return request
    }

    private static func run(
      _ conformanceCase: ConformanceCase, _ endpoints: Endpoints, configuration: URLSessionConfiguration,
      session: (CancellingDelegate?) -> URLSession
    ) async -> [Observation] {
      var observations: [Observation] = []
      for step in conformanceCase.steps {
        guard let request = urlRequest(step, endpoints) else {
          observations.append(Observation(error: "invalid URL"))
          continue
        }
        var observation: Observation
        if step.cancelsMidBody {
          let delegate = CancellingDelegate()
          let cancelling = session(delegate)
          observation = await delegate.run(request, on: cancelling)
          cancelling.finishTasksAndInvalidate()
        } else {
          do {
            let (data, response) = try await session(nil).data(for: request)
            observation = observe(data, response, endpoints)
          } catch {
            observation = Observation(error: describe(error))
          }
        }
        observation.cookies = cookies(configuration.httpCookieStorage, endpoints)
        observations.append(observation)
      }
      return observations
    }

    private static func inMemory(_ step: Step, backend: Backend, _ endpoints: Endpoints) async -> Observation {
      guard let request = urlRequest(step, endpoints) else { return Observation(error: "invalid URL") }
      if step.cancelsMidBody {
        let task = Task { try await backend.respond(to: request) }
        // Bounded: the backend journals the request as soon as it starts answering it.
        for _ in 0..<1_000_000 where backend.requests.isEmpty { await Task.yield() }
        task.cancel()
        do {
          let (data, response) = try await task.value
          return observe(data, response, endpoints)
        } catch {
          return Observation(error: describe(error))
        }
      }
      do {
        let (data, response) = try await backend.respond(to: request)
        return observe(data, response, endpoints)
      } catch {
        return Observation(error: describe(error))
      }
    }

    static func observe(_ data: Data, _ response: URLResponse, _ endpoints: Endpoints) -> Observation {
      let http = response as? HTTPURLResponse
      var headers: [String] = []
      for (name, value) in http?.allHeaderFields ?? [:] {
        let name = "\(name)".lowercased()
        guard !ignoredHeaders.contains(name) else { continue }
        // The length of an echo depends on the door's host: compare it with the body instead.
        if name == "content-length" && "\(value)" == String(data.count) {
          headers.append("content-length: (the body's)")
          continue
        }
        headers.append("\(name): \(endpoints.normalize("\(value)"))")
      }
      return Observation(
        status: http?.statusCode, headers: headers.sorted(), body: describe(data, endpoints),
        finalURL: response.url.map { endpoints.normalize($0.absoluteString) })
    }

    static func describe(_ body: Data, _ endpoints: Endpoints) -> String {
      var bytes = body
      if let text = String(data: body, encoding: .utf8) {
        let normalized = endpoints.normalize(text)
        if normalized.utf8.count <= 4096 { return normalized }
        bytes = Data(normalized.utf8)
      }
      let hash = bytes.withUnsafeBytes { raw in
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in raw { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
      }
      return "<\(body.count) bytes, fnv1a \(String(hash, radix: 16))>"
    }

    static func describe(_ error: any Error) -> String {
      if let error = error as? URLError { return "URLError(\(error.code.rawValue))" }
      return String(describing: type(of: error))
    }

    static func cookies(_ storage: HTTPCookieStorage?, _ endpoints: Endpoints) -> [String] {
      (storage?.cookies ?? []).map { cookie in
        var text = "\(cookie.name)=\(cookie.value); domain=\(endpoints.normalize(cookie.domain)); path=\(cookie.path)"
        if cookie.isSecure { text += "; secure" }
        if cookie.isHTTPOnly { text += "; httponly" }
        if !cookie.isSessionOnly { text += "; persistent" }
        return text
      }.sorted()
    }
  }

  /// Cookie storages for the doors' sessions, one per run in progress, emptied between runs.
  ///
  /// On Linux every named storage is kept in a file, and the system gives no other way to get a
  /// storage of one's own: a fixed set of names, reused, keeps the files from piling up run
  /// after run.
  final class CookieStoragePool: Sendable {
    static let shared = CookieStoragePool()

    /// A storage on loan.
    struct Storage: @unchecked Sendable {
      // Safe: HTTPCookieStorage is documented as thread-safe.
      let storage: HTTPCookieStorage
    }

    private let state = Locked<(free: [Storage], made: Int)>(([], 0))

    /// An empty storage no other run is using.
    func take() -> Storage {
      let storage = state.withLock { state -> Storage in
        if let storage = state.free.popLast() { return storage }
        state.made += 1
        return Storage(
          storage: .sharedCookieStorage(forGroupContainerIdentifier: "doppel-conformance-\(state.made)"))
      }
      empty(storage)
      return storage
    }

    /// Empties `storage` and makes it available again.
    func giveBack(_ storage: Storage) {
      empty(storage)
      state.withLock { $0.free.append(storage) }
    }

    private func empty(_ storage: Storage) {
      for cookie in storage.storage.cookies ?? [] { storage.storage.deleteCookie(cookie) }
    }
  }

  /// A session delegate that cancels a data task when its first body bytes arrive.
  final class CancellingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safe: `continuation` and `received` are only read or written while `lock` is held.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Observation, Never>?
    private var received = 0

    func run(_ request: URLRequest, on session: URLSession) async -> Observation {
      await withCheckedContinuation { continuation in
        lock.withLock { self.continuation = continuation }
        session.dataTask(with: request).resume()
      }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      lock.withLock { received += data.count }
      dataTask.cancel()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
      let (continuation, received) = lock.withLock {
        defer { self.continuation = nil }
        return (self.continuation, self.received)
      }
      var observation = Observation(error: error.map(ConformanceDoors.describe) ?? "completed")
      if received == 0 { observation.body = "no body bytes before the end" }
      continuation?.resume(returning: observation)
    }
  }
#endif
