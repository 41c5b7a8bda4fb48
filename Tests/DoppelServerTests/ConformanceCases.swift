#if Server
  import Foundation

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// The conformance table: every case is defined once here (its routes, the requests it sends)
  /// and run through every door by ``ConformanceTests``. A door that differs from the real server
  /// says so with `deviating(on:because:)`: the reason, and the observation it gets instead.
  enum ConformanceCases {
    static let all: [ConformanceCase] =
      plain + framing + encodings + cookies + redirects + urls + headers + methods + caching + timing

    // MARK: Status, bodies, HEAD

    static let plain: [ConformanceCase] = [
      ConformanceCase(
        name: "GET text", routes: [.get("/text", .text("hello"))], steps: [.get("/text")]),
      ConformanceCase(
        name: "GET JSON",
        routes: [
          .get("/breeds", .fixed(status: 200, headers: [("Content-Type", "application/json")], body: breedsJSON))
        ],
        steps: [.get("/breeds")]),
      ConformanceCase(
        name: "HEAD keeps the headers and length, drops the body",
        routes: [.any("/text", .text("hello"))], steps: [.send("HEAD", "/text")]),
      ConformanceCase(
        name: "HEAD of a 404", routes: [.any("/gone", .text("not here", status: 404))],
        steps: [.send("HEAD", "/gone")]),
      ConformanceCase(
        name: "201 with a Location is not followed",
        routes: [.any("/items", .text("made", status: 201, headers: [("Location", "/items/7")]))],
        steps: [.send("POST", "/items", body: "x")]),
      ConformanceCase(
        name: "204 has no body and no Content-Length", routes: [.get("/nothing", .status(204))],
        steps: [.get("/nothing")]),
      ConformanceCase(
        name: "204 with a Content-Type",
        routes: [.get("/nothing", .status(204, headers: [("Content-Type", "text/plain")]))],
        steps: [.get("/nothing")]),
      ConformanceCase(
        name: "304 has no body and no Content-Length",
        routes: [.get("/same", .status(304, headers: [("ETag", "\"v1\"")]))], steps: [.get("/same")]),
      ConformanceCase(
        name: "404 with a body", routes: [.get("/missing", .text("no such page", status: 404))],
        steps: [.get("/missing")]),
      ConformanceCase(
        name: "500 with JSON",
        routes: [
          .get(
            "/boom",
            .fixed(status: 500, headers: [("Content-Type", "application/json")], body: Data(#"{"error":"boom"}"#.utf8)))
        ],
        steps: [.get("/boom")]),
      ConformanceCase(
        name: "418, a status with no common reason phrase",
        routes: [.get("/teapot", .text("short and stout", status: 418))],
        steps: [.get("/teapot")]),
      ConformanceCase(
        name: "401 with a Bearer challenge",
        routes: [
          .get("/private", .text("sign in", status: 401, headers: [("WWW-Authenticate", "Bearer realm=\"api\"")]))
        ],
        steps: [.get("/private")]
      ).onLinux().deviating(
        on: .urlSession,
        because:
          "FoundationNetworking never completes a 401 with WWW-Authenticate from a URLProtocol: Doppel renames it"
      ) {
        $0[0].headers = $0[0].headers.map {
          $0.replacingOccurrences(of: "www-authenticate", with: "x-doppel-www-authenticate")
        }.sorted()
      },
      ConformanceCase(
        name: "429 with Retry-After",
        routes: [.get("/busy", .text("slow down", status: 429, headers: [("Retry-After", "120")]))],
        steps: [.get("/busy")]),
      ConformanceCase(
        name: "503 with an empty body", routes: [.get("/down", .status(503))], steps: [.get("/down")]),
    ]

    // MARK: Framing and sizes

    static let framing: [ConformanceCase] = [
      ConformanceCase(
        name: "empty body with Content-Length: 0",
        routes: [.get("/empty", .status(200, headers: [("Content-Length", "0")]))], steps: [.get("/empty")]),
      ConformanceCase(
        name: "empty 200 without headers", routes: [.get("/empty", .status(200))], steps: [.get("/empty")]),
      ConformanceCase(
        name: "Transfer-Encoding: chunked",
        routes: [.get("/chunked", .text("sent in chunks", headers: [("Transfer-Encoding", "chunked")]))],
        steps: [.get("/chunked")]),
      ConformanceCase(
        name: "chunked, 1 MB",
        routes: [
          .get(
            "/big-chunked",
            .fixed(
              status: 200, headers: [("Content-Type", "application/octet-stream"), ("Transfer-Encoding", "chunked")],
              body: pattern(1 << 20)))
        ],
        steps: [.get("/big-chunked")]),
      ConformanceCase(
        name: "10 MB body",
        routes: [
          .get(
            "/ten",
            .fixed(status: 200, headers: [("Content-Type", "application/octet-stream")], body: pattern(10 << 20)))
        ],
        steps: [.get("/ten")]),
      ConformanceCase(
        name: "binary body with every byte value",
        routes: [
          .get(
            "/bytes",
            .fixed(
              status: 200, headers: [("Content-Type", "application/octet-stream")],
              body: Data((0...255).map { UInt8($0) })))
        ],
        steps: [.get("/bytes")]),
      ConformanceCase(
        name: "UTF-8 body with a charset",
        routes: [.get("/text", .text("héllo wörld ✓ 猫"))], steps: [.get("/text")]),
    ]

    // MARK: Content-Encoding as a server sends it

    static let encodings: [ConformanceCase] = [
      ConformanceCase(
        name: "gzip Content-Encoding",
        routes: [
          .get(
            "/gz",
            .fixed(
              status: 200, headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
              body: Encoded.gzip(Data("hello, compressed world".utf8))))
        ],
        steps: [.get("/gz")]
      ).deliveredEncoded(Encoded.gzip(Data("hello, compressed world".utf8)), chunked: false),
      ConformanceCase(
        name: "deflate Content-Encoding",
        routes: [
          .get(
            "/deflate",
            .fixed(
              status: 200, headers: [("Content-Type", "text/plain"), ("Content-Encoding", "deflate")],
              body: Encoded.zlib(Data("hello, deflated world".utf8))))
        ],
        steps: [.get("/deflate")]
      ).deliveredEncoded(Encoded.zlib(Data("hello, deflated world".utf8)), chunked: false),
      ConformanceCase(
        name: "gzip Content-Encoding, chunked",
        routes: [
          .get(
            "/gz",
            .fixed(
              status: 200,
              headers: [
                ("Content-Type", "text/plain"), ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked"),
              ],
              body: Encoded.gzip(Data("zipped in chunks".utf8))))
        ],
        steps: [.get("/gz")]
      ).deliveredEncoded(Encoded.gzip(Data("zipped in chunks".utf8)), chunked: true),
      ConformanceCase(
        name: "HEAD of a gzip answer",
        routes: [
          .any(
            "/gz",
            .fixed(
              status: 200, headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
              body: Encoded.gzip(Data("hello".utf8))))
        ],
        steps: [.send("HEAD", "/gz")]),
    ]

    // MARK: Cookies

    static let cookies: [ConformanceCase] = [
      ConformanceCase(
        name: "several Set-Cookie headers",
        routes: [
          .get(
            "/login",
            .text(
              "welcome",
              headers: [("Set-Cookie", "session=abc"), ("Set-Cookie", "theme=dark"), ("Set-Cookie", "lang=en; Path=/")])
          ),
          .echo(),
        ],
        steps: [.get("/login"), .get("/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "cookie Path",
        routes: [
          .get("/account/login", .text("in", headers: [("Set-Cookie", "acct=1; Path=/account")])), .echo(),
          .echo("/account/echo"),
        ],
        steps: [.get("/account/login"), .get("/echo"), .get("/account/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "cookie default path is the request's directory",
        routes: [
          .get("/a/b/set", .text("set", headers: [("Set-Cookie", "dir=1")])), .echo("/a/b/echo"), .echo("/a/echo"),
        ],
        steps: [.get("/a/b/set"), .get("/a/b/echo"), .get("/a/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "cookie Domain of the host",
        routes: [.get("/set", .text("set", headers: [("Set-Cookie", "d=1; Domain={hostname}")])), .echo()],
        steps: [.get("/set"), .get("/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "cookie Domain of another site is refused",
        routes: [.get("/set", .text("set", headers: [("Set-Cookie", "evil=1; Domain=example.org")])), .echo()],
        steps: [.get("/set"), .get("/echo")]),
      ConformanceCase(
        name: "cookie Max-Age makes it persistent",
        routes: [.get("/set", .text("set", headers: [("Set-Cookie", "keep=1; Max-Age=3600")])), .echo()],
        steps: [.get("/set"), .get("/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "cookie Expires in the future",
        routes: [
          .get("/set", .text("set", headers: [("Set-Cookie", "keep=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT")])),
          .echo(),
        ],
        steps: [.get("/set"), .get("/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "an expired cookie deletes the stored one",
        routes: [
          .get("/set", .text("set", headers: [("Set-Cookie", "gone=1; Path=/")])),
          .get(
            "/unset", .text("unset", headers: [("Set-Cookie", "gone=1; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT")])
          ),
          .echo(),
        ],
        steps: [.get("/set"), .get("/unset"), .get("/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "a Secure cookie over http",
        routes: [.get("/set", .text("set", headers: [("Set-Cookie", "s=1; Secure")])), .echo()],
        steps: [.get("/set"), .get("/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "an HttpOnly cookie",
        routes: [.get("/set", .text("set", headers: [("Set-Cookie", "h=1; HttpOnly; Path=/")])), .echo()],
        steps: [.get("/set"), .get("/echo")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "cookies set during a redirect chain",
        routes: [
          .get("/step1", .redirect(302, to: "/step2", headers: [("Set-Cookie", "one=1; Path=/")])),
          .get("/step2", .redirect(302, to: "/echo", headers: [("Set-Cookie", "two=2; Path=/")])), .echo(),
        ],
        steps: [.get("/step1")]
      ).withoutCookieStorage(),
      ConformanceCase(
        name: "a cookie sent by the caller and a stored one",
        routes: [.get("/set", .text("set", headers: [("Set-Cookie", "stored=1")])), .echo()],
        steps: [.get("/set"), .get("/echo", headers: [("Cookie", "mine=2")])]
      ).withoutCookieStorage(callerCookie: "mine=2"),
    ]

    // MARK: Redirects

    /// Each platform's URLSession door must show what the real server shows through the same
    /// session, with these differences only:
    /// - Apple platforms: the door hands every redirect to URLSession
    ///   (`urlProtocol(_:wasRedirectedTo:redirectResponse:)`), which follows it exactly as it follows
    ///   the real server's, so no case declares a deviation there (`onLinux()` drops them), and a
    ///   delegate's `willPerformHTTPRedirection` runs (`RedirectDelegateTests`).
    /// - Linux: FoundationNetworking cannot take a redirect from a `URLProtocol`, so Doppel follows
    ///   it in the engine, by the rules URLSession applies on Apple platforms and RFC 3986; where
    ///   FoundationNetworking's own following differs, the case declares the deviation and why.
    /// The in-memory door follows redirects as the Linux URLSession door does, on every platform.
    static let redirects: [ConformanceCase] = [
      redirect(301, "GET"), redirect(301, "POST"), redirect(302, "GET"), redirect(302, "POST"),
      redirect(303, "POST"), redirect(303, "PUT"), redirect(307, "POST"), redirect(307, "PUT"),
      redirect(308, "POST"), redirect(301, "HEAD"), redirect(303, "HEAD"), redirect(302, "DELETE"),
      ConformanceCase(
        name: "absolute Location", routes: [.get("/from", .redirect(302, to: "{base}/echo")), .echo()],
        steps: [.get("/from")]),
      ConformanceCase(
        name: "relative Location", routes: [.get("/dir/from", .redirect(302, to: "to?x=1")), .echo("/dir/to")],
        steps: [.get("/dir/from")]
      ).onLinux().deviating(
        on: .urlSession, .inMemory,
        because:
          "Location is resolved against the request's URL (RFC 3986); FoundationNetworking resolves it against the root"
      ) { $0[0] = resolvedEcho("/dir/to?x=1") },
      ConformanceCase(
        name: "relative Location with dot segments",
        routes: [.get("/a/b/from", .redirect(302, to: "../echo")), .echo("/a/echo")], steps: [.get("/a/b/from")]
      ).onLinux().deviating(
        on: .urlSession, .inMemory,
        because: "Location is resolved with dot segments removed (RFC 3986); FoundationNetworking keeps /../ in the URL"
      ) { $0[0] = resolvedEcho("/a/echo") },
      ConformanceCase(
        name: "protocol-relative Location", routes: [.get("/from", .redirect(302, to: "//{otherhost}/echo")), .echo()],
        steps: [.get("/from")]),
      ConformanceCase(
        name: "redirect to another host", routes: [.get("/from", .redirect(301, to: "{other}/echo")), .echo()],
        steps: [.get("/from")]),
      ConformanceCase(
        name: "redirect drops Authorization for another host",
        routes: [.get("/from", .redirect(302, to: "{other}/echo")), .echo()],
        steps: [.get("/from", headers: [("Authorization", "Bearer secret")])]
      ).onLinux().deviating(
        on: .urlSession, .inMemory,
        because: "Authorization is not sent to another host after a redirect; FoundationNetworking re-sends it"
      ) { $0[0].body = $0[0].body.replacingOccurrences(of: "\nauthorization: Bearer secret", with: "") },
      ConformanceCase(
        name: "redirect chain of three",
        routes: [
          .get("/r1", .redirect(302, to: "/r2")), .get("/r2", .redirect(301, to: "/r3")),
          .get("/r3", .redirect(307, to: "/echo")), .echo(),
        ],
        steps: [.get("/r1")]),
      ConformanceCase(
        name: "redirect loop", routes: [.get("/loop", .redirect(302, to: "/loop"))], steps: [.get("/loop")]),
      ConformanceCase(
        name: "302 without a Location is returned", routes: [.get("/nowhere", .status(302))],
        steps: [.get("/nowhere")]),
      ConformanceCase(
        name: "300 with a Location is returned",
        routes: [.get("/choices", .text("pick", status: 300, headers: [("Location", "/echo")])), .echo()],
        steps: [.get("/choices")]),
      ConformanceCase(
        name: "redirect keeps the query of the Location",
        routes: [.get("/from", .redirect(302, to: "/echo?page=2&page=3")), .echo()], steps: [.get("/from?x=1")]),
      ConformanceCase(
        name: "redirect body is not seen",
        routes: [.get("/from", .text("moved", status: 302, headers: [("Location", "/echo")])), .echo()],
        steps: [.get("/from")]),
    ]

    // MARK: URLs

    static let urls: [ConformanceCase] = [
      ConformanceCase(
        name: "percent-encoded path", routes: [.echo("/files/a b/c")], steps: [.get("/files/a%20b/c")]),
      ConformanceCase(
        name: "encoded slash in a segment", routes: [.echo("/files/a/b")], steps: [.get("/files/a%2Fb")]),
      ConformanceCase(
        name: "non-ASCII path", routes: [.echo("/café/naïve")], steps: [.get("/caf%C3%A9/na%C3%AFve")]),
      ConformanceCase(
        name: "non-ASCII query", routes: [.echo()], steps: [.get("/echo?name=%E7%8C%AB&city=Z%C3%BCrich")]),
      ConformanceCase(
        name: "repeated query names", routes: [.echo()], steps: [.get("/echo?tag=a&tag=b&tag=c")]),
      ConformanceCase(
        name: "query with plus and encoded space", routes: [.echo()], steps: [.get("/echo?q=a+b%20c&empty=&flag")]),
      ConformanceCase(
        name: "fragment is not sent", routes: [.echo()], steps: [.get("/echo?x=1#section")]),
      ConformanceCase(name: "root path", routes: [.echo("/")], steps: [.get("/")]),
      ConformanceCase(name: "trailing slash", routes: [.echo("/dir/")], steps: [.get("/dir/")]),
      ConformanceCase(
        name: "IDN host", routes: [.echo()], steps: [.get("http://b\u{fc}cher.example/echo")]
      ).only(.urlSession, .inMemory),
      ConformanceCase(
        name: "IDN host, punycode", routes: [.echo()], steps: [.get("http://xn--bcher-kva.example/echo")]
      ).only(.urlSession, .inMemory),
    ]

    // MARK: Headers

    static let headers: [ConformanceCase] = [
      ConformanceCase(
        name: "duplicate response headers",
        routes: [.get("/dup", .text("two", headers: [("X-Dup", "a"), ("X-Dup", "b")]))], steps: [.get("/dup")]),
      ConformanceCase(
        name: "mixed-case response header names",
        routes: [.get("/case", .text("case", headers: [("x-MiXeD-CaSe", "v"), ("ETAG", "\"e\"")]))],
        steps: [.get("/case")]),
      ConformanceCase(
        name: "mixed-case request header name", routes: [.echo()],
        steps: [.get("/echo", headers: [("x-pRoBe", "hello")])]),
      ConformanceCase(
        name: "repeated request header", routes: [.echo()],
        steps: [.get("/echo", headers: [("X-Probe", "one"), ("X-Probe", "two")])]),
      ConformanceCase(
        name: "a long header value", routes: [.get("/long", .text("long", headers: [("X-Long", longValue)]))],
        steps: [.get("/long")]),
      ConformanceCase(
        name: "many response headers",
        routes: [.get("/many", .text("many", headers: (1...40).map { ("X-Field-\($0)", "value \($0)") }))],
        steps: [.get("/many")]),
      ConformanceCase(
        name: "header value with surrounding spaces",
        routes: [.get("/spaces", .text("spaces", headers: [("X-Spaced", "  inner  value  ")]))],
        steps: [.get("/spaces")]
      ).onLinux().deviating(
        on: .urlSession, .inMemory, .stubServer,
        because: "values lose the spaces around them (RFC 9110); FoundationNetworking keeps the trailing ones"
      ) { $0[0].headers = $0[0].headers.map { $0 == "x-spaced: inner  value  " ? "x-spaced: inner  value" : $0 } },
    ]

    // MARK: Methods and request bodies

    static let methods: [ConformanceCase] = [
      ConformanceCase(name: "POST body", routes: [.echo()], steps: [.send("POST", "/echo", body: "name=Tom")]),
      ConformanceCase(
        name: "PUT body of 100 KB", routes: [.echo()],
        steps: [.send("PUT", "/echo", body: String(repeating: "x", count: 100_000))]),
      ConformanceCase(name: "PATCH body", routes: [.echo()], steps: [.send("PATCH", "/echo", body: "{\"a\":1}")]),
      ConformanceCase(name: "DELETE", routes: [.echo()], steps: [.send("DELETE", "/echo")]),
      ConformanceCase(name: "GET with a body", routes: [.echo()], steps: [.send("GET", "/echo", body: "odd")]),
      ConformanceCase(name: "OPTIONS", routes: [.echo()], steps: [.send("OPTIONS", "/echo")]),
      ConformanceCase(name: "POST with an empty body", routes: [.echo()], steps: [.send("POST", "/echo", body: "")]),
      ConformanceCase(
        name: "Expect: 100-continue", routes: [.echo()],
        steps: [.send("POST", "/echo", body: "waited for", headers: [("Expect", "100-continue")])]),
    ]

    // MARK: Caching

    static let caching: [ConformanceCase] = [
      ConformanceCase(
        name: "If-None-Match sent by the caller gets a 304",
        routes: [.get("/etag", .conditional(etag: "\"v1\"", headers: [], body: "fresh"))],
        steps: [.get("/etag"), .get("/etag", headers: [("If-None-Match", "\"v1\"")])]),
      ConformanceCase(
        name: "ETag with the default cache policy",
        routes: [.get("/etag", .conditional(etag: "\"v2\"", headers: [("Cache-Control", "no-cache")], body: "fresh"))],
        steps: [.get("/etag"), .get("/etag")]),
      ConformanceCase(
        name: "ETag with a max-age and returnCacheDataElseLoad",
        routes: [
          .get("/etag", .conditional(etag: "\"v3\"", headers: [("Cache-Control", "max-age=600")], body: "fresh"))
        ],
        steps: [
          .get("/etag"),
          Step(target: "/etag", cachePolicy: .returnCacheDataElseLoad),
        ]),
      ConformanceCase(
        name: "reloadIgnoringLocalCacheData",
        routes: [
          .get("/etag", .conditional(etag: "\"v4\"", headers: [("Cache-Control", "max-age=600")], body: "fresh"))
        ],
        steps: [.get("/etag"), Step(target: "/etag", cachePolicy: .reloadIgnoringLocalCacheData)]),
    ]

    // MARK: Time

    static let timing: [ConformanceCase] = [
      ConformanceCase(
        name: "a timeout", routes: [.get("/slow", .never)], steps: [Step(target: "/slow", timeout: 0.3)]),
      ConformanceCase(
        name: "a cancellation mid-body", routes: [.get("/stream", .stalls(body: pattern(100), afterBytes: 10))],
        steps: [Step(target: "/stream", cancelsMidBody: true)]
      ).deviating(
        on: .inMemory, because: "a cancelled in-memory call throws CancellationError, as async Swift code does"
      ) { $0[0].error = "CancellationError" },
    ]

    // MARK: Helpers

    /// A redirect of `status` answering `method` with a body, to an echo.
    static func redirect(_ status: Int, _ method: String) -> ConformanceCase {
      let plain = ConformanceCase(
        name: "\(status) after \(method)", routes: [.any("/from", .redirect(status, to: "/echo")), .echo()],
        steps: [.send(method, "/from", body: ["GET", "HEAD", "DELETE"].contains(method) ? nil : "payload")])
      switch (status, method) {
      case (301, "POST"), (302, "POST"), (303, "POST"), (303, "PUT"):
        return plain.onLinux().deviating(
          on: .urlSession, .inMemory,
          because: "the redirected GET loses Content-Type with its body; FoundationNetworking keeps Content-Type"
        ) { $0[0].body = $0[0].body.replacingOccurrences(of: "\ncontent-type: text/plain", with: "") }
      case (307, _), (308, _):
        return plain.onLinux().deviating(
          on: .urlSession, .inMemory,
          because: "a 307/308 re-sends the body, as RFC 9110 and Apple platforms do; FoundationNetworking drops it"
        ) { $0[0].body = $0[0].body.replacingOccurrences(of: "body: ", with: "body: payload") }
      case (303, "HEAD"):
        return plain.deviating(
          on: .urlSession, .inMemory,
          because: "a 303 keeps HEAD (RFC 9110 allows GET or HEAD); FoundationNetworking turns it into GET"
        ) {
          $0[0].body = ""
          $0[0].headers = $0[0].headers.map { $0.hasPrefix("content-length:") ? "content-length: 39" : $0 }
        }
      default:
        return plain
      }
    }

    /// What the echo at `target` answers.
    static func resolvedEcho(_ target: String, method: String = "GET", extra: String = "", body: String = "")
      -> Observation
    {
      Observation(
        status: 200, headers: ["content-length: (the body's)", "content-type: text/plain; charset=utf-8"],
        body: "\(method) \(target)\nhost: {host}\n\(extra)body: \(body)", finalURL: "{base}\(target)")
    }

    static let breedsJSON = Data(#"[{"name":"Bengal"},{"name":"Sphynx"}]"#.utf8)

    static let longValue = String(repeating: "abcdefgh", count: 1024)

    /// `count` bytes of a repeating, non-text pattern.
    static func pattern(_ count: Int) -> Data {
      var data = Data(count: count)
      data.withUnsafeMutableBytes { raw in
        for index in raw.indices { raw[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }
      }
      return data
    }
  }

  extension ConformanceCase {
    /// The in-memory door has no cookie storage: `Set-Cookie` reaches the caller as a header, and
    /// nothing is stored or sent back (only the caller's own `Cookie`, when it sets one).
    func withoutCookieStorage(callerCookie: String? = nil) -> ConformanceCase {
      deviating(
        on: .inMemory,
        because: "no cookie storage in the in-memory door: Set-Cookie is a header there, nothing is stored or sent"
      ) { steps in
        for index in steps.indices {
          steps[index].cookies = []
          var lines = steps[index].body.components(separatedBy: "\n")
          if let cookie = lines.firstIndex(where: { $0.hasPrefix("cookie: ") }) {
            if let callerCookie { lines[cookie] = "cookie: \(callerCookie)" } else { lines.remove(at: cookie) }
          }
          steps[index].body = lines.joined(separator: "\n")
        }
      }
    }

    /// Doppel hands over a stubbed body as it is, while URLSession's HTTP stack decodes a gzip or
    /// deflate `Content-Encoding`: the URLSession and in-memory doors see the encoded bytes.
    func deliveredEncoded(_ encoded: Data, chunked: Bool) -> ConformanceCase {
      deviating(
        on: .urlSession, .inMemory,
        because: "the body is delivered as stubbed, still encoded; URLSession's HTTP stack decodes gzip and deflate"
      ) { steps in
        steps[0].body = ConformanceDoors.describe(encoded, .inProcess)
        if !chunked {
          steps[0].headers = steps[0].headers.map {
            $0.hasPrefix("content-length:") ? "content-length: (the body's)" : $0
          }
        }
      }
    }

    /// This case as run on Linux, where the deviations that follow are FoundationNetworking's; on
    /// Apple platforms they are not declared (URLSession there behaves as Doppel does).
    func onLinux() -> ConformanceCase {
      var copy = self
      #if !canImport(FoundationNetworking)
        copy.linuxOnlyDeviations = true
      #endif
      return copy
    }
  }
#endif
