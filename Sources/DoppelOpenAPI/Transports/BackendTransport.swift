#if OpenAPI
  import Doppel
  import Foundation
  import HTTPTypes
  import OpenAPIRuntime

  extension Backend {
    /// A swift-openapi-generator client transport answered in memory by this backend, with no
    /// `URLSession`: a generated `Client` talks to the backend's stubs.
    ///
    /// ```swift
    /// let client = Client(serverURL: URL(string: "https://api.cattery.test/v1")!, transport: backend.openAPITransport)
    /// let breeds = try await client.listBreeds().ok.body.json.breeds
    /// ```
    ///
    /// Requests go through `respond(to:)`: the same stubs, journal, delays, redirects and
    /// diagnostics as the sessions. A request no stub matches fails (by default) with a `URLError`
    /// whose description is the near-miss report, which the generated client wraps in a
    /// `ClientError` as its `underlyingError`.
    public var openAPITransport: BackendTransport { BackendTransport(backend: self) }
  }

  /// A swift-openapi-generator `ClientTransport` answered in memory by a backend (see
  /// `Backend.openAPITransport`).
  public struct BackendTransport: ClientTransport {
    /// The backend that answers.
    public let backend: Backend

    /// Creates a transport answered by `backend`.
    public init(backend: Backend) { self.backend = backend }

    /// Sends a request to the backend: the base URL with the request's path and query, its method,
    /// header fields and whole body.
    ///
    /// - Parameters:
    ///   - request: the request the generated client built.
    ///   - body: its body, read whole before the backend sees it.
    ///   - baseURL: the server URL the client was made with.
    ///   - operationID: the operation's identifier (the backend matches by method and URL only).
    /// - Returns: the backend's response, with its body.
    /// - Throws: what `Backend.respond(to:)` throws, or `DoppelError` when the base URL and
    ///   the path do not make a URL.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
      HTTPResponse, HTTPBody?
    ) {
      let path = request.path ?? "/"
      var base = baseURL.absoluteString
      while base.hasSuffix("/") { base.removeLast() }
      guard let url = URL(string: base + (path.hasPrefix("/") ? path : "/" + path)) else {
        throw DoppelError.openAPI(
          "\(operationID): \(baseURL.absoluteString) and the path \(path) do not make a URL. Check the client's serverURL."
        )
      }
      var urlRequest = URLRequest(url: url)
      urlRequest.httpMethod = request.method.rawValue
      for field in request.headerFields {
        urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
      }
      if let body {
        urlRequest.httpBody = try await Data(collecting: body, upTo: .max)
      }
      let (data, response) = try await backend.respond(to: urlRequest)
      var fields = HTTPFields()
      let headers = response.allHeaderFields.map { ("\($0.key)", "\($0.value)") }.sorted { $0.0 < $1.0 }
      for (name, value) in headers {
        guard let name = HTTPField.Name(name) else { continue }
        fields.append(HTTPField(name: name, value: value))
      }
      let reply = HTTPResponse(status: .init(code: response.statusCode), headerFields: fields)
      return (reply, request.method == .head && data.isEmpty ? nil : HTTPBody(data))
    }
  }
#endif
