#if Server && OpenAPI
  import DoppelTesting
  import Foundation
  import HTTPTypes
  import NIOHTTP1
  import NameCollisionApp
  import Testing

  /// Doppel keeps the names `Request`, `Response`, `HTTPHeaders` and `HTTPMethod` (issue 30,
  /// point 4): stubs reach them through implicit members and closures, which never name them, so a
  /// test file that also imports NIOHTTP1 (`HTTPHeaders`, `HTTPMethod`), swift-http-types and an app
  /// module with its own `Request`, `Response` and `HTTPMethod` compiles unchanged; where a type must
  /// be named, the module says which (`Doppel.Response`, `NameCollisionApp.Response`).
  @Suite struct NameCollisionTests {
    @Test(.doppel { $0.stub(.get("/breeds"), .json(["Abyssinian"], headers: ["X-Source": "stub"])) })
    func stubsReadTheSameBesideOtherModulesRequestAndResponse() async throws {
      let backend = Backend.current
      backend.stub(.post("/orders") && .header("Content-Type", "application/json"), .status(201))
      backend.stub(.get("/users/{id}")) { request in .json(["id": request.pathParameters["id"] ?? ""]) }
      backend.stub(.get("/flaky"), .sequence([.status(503), .text("ok")]))

      let (data, response) = try await backend.session.data(from: URL(string: "https://api.example.com/breeds")!)
      #expect(String(decoding: data, as: UTF8.self) == #"["Abyssinian"]"#)
      #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Source") == "stub")
      let (user, _) = try await backend.session.data(from: URL(string: "https://api.example.com/users/7")!)
      #expect(String(decoding: user, as: UTF8.self) == #"{"id":"7"}"#)

      // Where a type is named, its module says which one.
      let stubbed: Doppel.Response = .text("named")
      let method: Doppel.HTTPMethod = .get
      let headers: Doppel.HTTPHeaders = ["Accept": "text/plain"]
      let appRequest = NameCollisionApp.Request(path: "/breeds")
      let appResponse = NameCollisionApp.Response(status: 200)
      let appMethod = NameCollisionApp.HTTPMethod.post
      let nioHeaders: NIOHTTP1.HTTPHeaders = ["Accept": "text/plain"]
      let nioMethod = NIOHTTP1.HTTPMethod.GET
      let fields: HTTPFields = [.accept: "text/plain"]
      let typed = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/breeds")
      #expect(stubbed.status == 200)
      #expect(method.rawValue == "GET" && nioMethod.rawValue == "GET" && typed.method.rawValue == "GET")
      #expect(headers["accept"] == "text/plain" && nioHeaders["accept"] == ["text/plain"])
      #expect(fields[.accept] == "text/plain")
      #expect(appRequest.path == "/breeds" && appResponse.status == 200 && appMethod.rawValue == "POST")
    }
  }
#endif
