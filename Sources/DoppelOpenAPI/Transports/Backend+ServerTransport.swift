#if OpenAPI
  import Doppel
  import Foundation
  import HTTPTypes
  import OpenAPIRuntime

  /// A backend is a swift-openapi-generator server transport: a hand-written implementation of a
  /// generated `APIProtocol` answers the backend's requests, through every front door.
  ///
  /// ```swift
  /// struct FakeCattery: APIProtocol {
  ///   func getBreed(_ input: Operations.getBreed.Input) async throws -> Operations.getBreed.Output {
  ///     .ok(.init(body: .json(.init(id: input.path.breedId, name: "Abyssinian", lifespan: 14))))
  ///   }
  ///   // … the other operations
  /// }
  ///
  /// let backend = Backend()
  /// try FakeCattery().registerHandlers(on: backend)
  /// let (data, _) = try await backend.session.data(from: URL(string: "https://api.cattery.test/breeds/1")!)
  /// ```
  ///
  /// The compiler checks the fake against the document: every operation, parameter and response
  /// body has the generated types. Requests reach it through `session`,
  /// `respond(to:)` (and `handler`) and the stub server, and are journaled as
  /// any other.
  extension Backend: ServerTransport {
    /// Adds a stub for one operation of a generated server: `method` and the path template `path`
    /// (`/breeds/{breedId}`), any scheme and host. The generated server calls it from
    /// `registerHandlers(on:serverURL:configuration:middlewares:)`; pass that call's `serverURL`
    /// (`URL(string: "/v1")!`) when the server's paths begin with a prefix.
    ///
    /// Like the stubs of `addStubs(fromOpenAPI:scenario:seed:invalidRequests:examples:)`, these answer only the
    /// requests no stub added in code, from a manifest or a cassette takes, whether that stub was
    /// added before or after them; among the stubs of documents and generated servers, the latest
    /// wins. So a test can replace one operation of a fake with an ordinary stub.
    ///
    /// The handler gets the request with its path captures in `ServerRequestMetadata` and its body
    /// as an `HTTPBody`; the body it returns is read whole. An error it throws that carries an HTTP
    /// response (`HTTPResponseConvertible`, as the runtime's errors for a request that does not
    /// decode) answers with that response; a `URLError` thrown by the fake (wrapped by the
    /// generated code in a `ServerError`) reaches the caller as that `URLError`, as
    /// `Response.error(_:)` would; any other error reaches the caller as the
    /// generated code's `ServerError`.
    ///
    /// - Parameters:
    ///   - handler: the generated code's handler of the operation.
    ///   - method: the operation's method.
    ///   - path: the operation's path template.
    /// - Throws: `DoppelError` for a path template that cannot be used.
    public func register(
      _ handler:
        @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
      method: HTTPRequest.Method,
      path: String
    ) throws {
      let matcher = .method(HTTPMethod(rawValue: method.rawValue)) && .path(path)
      if let problem = matcher.problem {
        throw DoppelError.openAPI("The generated server registered \(method.rawValue) \(path): \(problem.message)")
      }
      let location = CodeLocation(
        fileID: "DoppelOpenAPI/registerHandlers(on:)", filePath: "registerHandlers(on:)", line: 1, column: 1)
      fallbackStub(matcher, name: "\(method.rawValue) \(path)", location: location) { request in
        let metadata = ServerRequestMetadata(
          pathParameters: request.pathParameters.mapValues { Substring(OpenAPIConversion.encodedPathValue($0)) })
        do {
          let (response, body) = try await handler(
            OpenAPIConversion.httpRequest(request), request.body.map { HTTPBody($0) }, metadata)
          return try await OpenAPIConversion.response(response, body: body)
        } catch {
          return try await OpenAPIConversion.response(for: error)
        }
      }
    }
  }

  /// Conversions between Doppel's requests and responses and HTTPTypes'.
  enum OpenAPIConversion {
    /// Characters a path parameter keeps unescaped: RFC 3986's unreserved ones. The generated code
    /// percent-decodes what it gets; the backend's captures are decoded already.
    private static let unreserved = CharacterSet(
      charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encodedPathValue(_ value: String) -> String {
      value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }

    /// The request as HTTPTypes has it: the path with its query, percent-encoded as sent.
    static func httpRequest(_ request: Request) -> HTTPRequest {
      let components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
      var path = components?.percentEncodedPath ?? "/"
      if path.isEmpty { path = "/" }
      if let query = components?.percentEncodedQuery { path += "?" + query }
      var authority = components?.percentEncodedHost
      if let host = authority, let port = components?.port { authority = "\(host):\(port)" }
      return HTTPRequest(
        method: HTTPRequest.Method(request.method.rawValue) ?? .get, scheme: components?.scheme,
        authority: authority, path: path, headerFields: fields(request.headers))
    }

    /// The header fields whose names HTTP allows, in order (the others cannot have been sent).
    static func fields(_ headers: HTTPHeaders) -> HTTPFields {
      var fields = HTTPFields()
      for header in headers {
        guard let name = HTTPField.Name(header.name) else { continue }
        fields.append(HTTPField(name: name, value: header.value))
      }
      return fields
    }

    /// A response as the backend gives it, with its body read whole.
    static func response(_ response: HTTPResponse, body: HTTPBody?) async throws -> Response {
      var headers = HTTPHeaders()
      for field in response.headerFields { headers.add(field.name.rawName, field.value) }
      var data = Data()
      if let body { data = try await Data(collecting: body, upTo: .max) }
      return Response(status: response.status.code, headers: headers, body: data)
    }

    /// What an error thrown by a generated server's handler becomes (see `Backend.register`).
    static func response(for error: any Error) async throws -> Response {
      let underlying = (error as? ServerError)?.underlyingError ?? error
      if let fault = underlying as? URLError { return .error(fault) }
      if let convertible = underlying as? any HTTPResponseConvertible {
        return try await response(
          HTTPResponse(status: convertible.httpStatus, headerFields: convertible.httpHeaderFields),
          body: convertible.httpBody)
      }
      return .error(error)
    }
  }
#endif
