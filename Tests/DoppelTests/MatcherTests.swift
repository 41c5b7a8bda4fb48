import Doppel
import Foundation
import TestSupport
import Testing

@Suite struct MatcherTests {
  @Test func methodMatchersCompareUpperCasedNames() {
    #expect(Matcher.method(.post).matches(request(.post, "https://a.com/x")))
    #expect(Matcher.method("post").matches(request("POST", "https://a.com/x")))
    #expect(!Matcher.method(.post).matches(request(.get, "https://a.com/x")))
  }

  @Test func absoluteURLMatchesSchemeHostPortAndPath() {
    let matcher = Matcher.get("https://api.example.com/breeds.json")
    #expect(matcher.matches(request("https://api.example.com/breeds.json")))
    #expect(matcher.matches(request("https://API.example.com:443/breeds.json")))
    #expect(!matcher.matches(request("http://api.example.com/breeds.json")))
    #expect(!matcher.matches(request("https://api.example.com:8443/breeds.json")))
    #expect(!matcher.matches(request("https://cdn.example.com/breeds.json")))
    #expect(!matcher.matches(request("https://api.example.com/breeds")))
    #expect(!matcher.matches(request(.post, "https://api.example.com/breeds.json")))
  }

  @Test func explicitPortMustMatch() {
    let matcher = Matcher.url("http://localhost:8080/health")
    #expect(matcher.matches(request("http://localhost:8080/health")))
    #expect(!matcher.matches(request("http://localhost/health")))
  }

  @Test func relativeURLMatchesAnyHost() {
    let matcher = Matcher.get("/breeds.json")
    #expect(matcher.matches(request("https://api.example.com/breeds.json")))
    #expect(matcher.matches(request("http://localhost:9000/breeds.json")))
    #expect(!matcher.matches(request("https://api.example.com/v2/breeds.json")))
  }

  @Test func pathsCompareDecoded() {
    #expect(Matcher.path("/cats/maine coon").matches(request("https://a.com/cats/maine%20coon")))
    #expect(Matcher.url("/cats/maine%20coon").matches(request("https://a.com/cats/maine%20coon")))
    #expect(Matcher.path("/").matches(request("https://a.com")))
  }

  /// A request's path loses its trailing slash (as `URL.path` does), so a stub's does too: a stub
  /// for "/dir/" answers a request for "/dir/" (found by the conformance suite's "trailing slash").
  @Test func aTrailingSlashInAStubPathMatches() {
    #expect(Matcher.path("/dir/").matches(request("https://a.com/dir/")))
    #expect(Matcher.get("/dir/").matches(request("https://a.com/dir/")))
    #expect(Matcher.url("https://a.com/dir//").matches(request("https://a.com/dir/")))
    #expect(!Matcher.path("/dir/").matches(request("https://a.com/dir/x")))
  }

  @Test func templatesCaptureSegments() async throws {
    let matcher = Matcher.get("/users/{id}/pets/{pet}.json")
    let backend = quietBackend()
    backend.stub(matcher) { request in .json(request.pathParameters) }
    let (body, _) = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/users/42/pets/tom.json")!))
    #expect(try JSONDecoder().decode([String: String].self, from: body) == ["id": "42", "pet": "tom"])
    #expect(!matcher.matches(request("https://a.com/users/42/pets/tom.xml")))
    #expect(!matcher.matches(request("https://a.com/users//pets/tom.json")))
    #expect(!matcher.matches(request("https://a.com/users/42/pets/tom.json/extra")))
  }

  @Test func globsAndRegexes() {
    #expect(Matcher.path(glob: "/images/*.png").matches(request("https://a.com/images/cat.png")))
    #expect(!Matcher.path(glob: "/images/*.png").matches(request("https://a.com/images/a/cat.png")))
    #expect(Matcher.path(glob: "/images/**.png").matches(request("https://a.com/images/a/b/cat.png")))
    #expect(Matcher.path(glob: "/v?/breeds").matches(request("https://a.com/v2/breeds")))
    #expect(Matcher.path(regex: "^/users/\\d+$").matches(request("https://a.com/users/12")))
    #expect(!Matcher.path(regex: "^/users/\\d+$").matches(request("https://a.com/users/me")))
    #expect(Matcher.url(regex: "^https://[a-z]+\\.example\\.com/").matches(request("https://cdn.example.com/x")))
  }

  @Test func schemeAndHostMatchers() {
    #expect(Matcher.host("CDN.example.com").matches(request("https://cdn.example.com/a")))
    #expect(Matcher.scheme("http").matches(request("http://cdn.example.com/a")))
    #expect(!Matcher.scheme("http").matches(request("https://cdn.example.com/a")))
    #expect(Matcher.port(443).matches(request("https://cdn.example.com/a")))
  }

  @Test func combinators() {
    let postOrders = Matcher.post("/orders")
    let get = Matcher.method(.get)
    #expect((postOrders || get).matches(request(.get, "https://a.com/anything")))
    #expect((postOrders || get).matches(request(.post, "https://a.com/orders")))
    #expect(!(postOrders || get).matches(request(.put, "https://a.com/orders")))
    #expect((.host("a.com") && !.path("/health")).matches(request("https://a.com/x")))
    #expect(!(.host("a.com") && !.path("/health")).matches(request("https://a.com/health")))
    #expect(Matcher.custom("even id") { $0.path.hasSuffix("2") }.matches(request("https://a.com/2")))
    #expect(Matcher.any.matches(request(.delete, "ftp://x/y")))
  }

  @Test func headersAreCaseInsensitiveAndMultiValued() {
    let headers: HTTPHeaders = ["accept": "application/json", "X-Tag": "a", "X-Tag": "b"]
    let req = request("https://a.com/x", headers: headers)
    #expect(Matcher.header("Accept", "application/json").matches(req))
    #expect(!Matcher.header("Accept", "text/html").matches(req))
    #expect(Matcher.header("x-tag", "b").matches(req))
    #expect(Matcher.header("X-TAG").matches(req))
    #expect(!Matcher.header("Authorization").matches(req))
    #expect(Matcher.header("Accept", regex: "json$").matches(req))
    #expect(Matcher.headers(["Accept": "application/json", "X-Tag": "a"]).matches(req))
  }

  @Test func descriptionsReadLikeTheRequest() {
    #expect(Matcher.get("https://api.example.com/breeds.json").description == "GET https://api.example.com/breeds.json")
    #expect(Matcher.get("http://localhost:8080/a?x=1").description == "GET http://localhost:8080/a?x=1")
    #expect(Matcher.post("/orders").description == "POST /orders")
    #expect(
      (Matcher.post("/orders") && .jsonBody(["sku": "A1"])).description == "POST /orders, JSON body {\"sku\":\"A1\"}")
    #expect((Matcher.get("/a") || .get("/b")).description == "(GET /a || GET /b)")
  }
}
