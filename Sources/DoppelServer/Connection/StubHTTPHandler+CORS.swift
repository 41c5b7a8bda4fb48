#if Server
  import NIOCore
  import NIOHTTP1

  extension StubHTTPHandler {
    /// The request's `Origin` when ``StubServer/Configuration/corsOrigins`` lets its page read the
    /// stubs' answers; `nil` otherwise.
    func allowedCORSOrigin(_ head: HTTPRequestHead) -> String? {
      let allowed = core.configuration.corsOrigins
      guard !allowed.isEmpty, let origin = head.headers.first(name: "origin") else { return nil }
      let normalized = Self.normalizedOrigin(origin)
      return allowed.contains { $0 == "*" || Self.normalizedOrigin($0) == normalized } ? origin : nil
    }

    /// `origin` lowercased, without a trailing `/`.
    private static func normalizedOrigin(_ origin: String) -> String {
      var origin = origin.trimmingCharacters(in: .whitespaces).lowercased()
      while origin.hasSuffix("/") { origin.removeLast() }
      return origin
    }

    /// Whether `head` is a CORS preflight: `OPTIONS` asking for a method.
    func isPreflight(_ head: HTTPRequestHead) -> Bool {
      head.method == .OPTIONS && head.headers.contains(name: "access-control-request-method")
    }

    /// Answers a preflight from an allowed origin: `204`, allowing the method and headers it asks
    /// for. It is not matched against stubs, journaled or reported.
    func answerPreflight(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
      keepAlive = head.isKeepAlive
      headSent = false
      var headers = NIOHTTP1.HTTPHeaders()
      headers.add(
        name: "Access-Control-Allow-Methods",
        value: head.headers["access-control-request-method"].joined(separator: ", "))
      let asked = head.headers["access-control-request-headers"]
      if !asked.isEmpty { headers.add(name: "Access-Control-Allow-Headers", value: asked.joined(separator: ", ")) }
      headers.add(name: "Access-Control-Max-Age", value: "600")
      headers.add(name: "Content-Length", value: "0")
      writeHead(204, headers, context: context)
      end(context)
    }

    /// Adds to an answer's head the fields that let the page at `origin` read it.
    func addCORS(_ origin: String, to headers: inout NIOHTTP1.HTTPHeaders) {
      // The user chose the origin: the page may read every field of the answer, and a stub's own
      // Access-Control-* fields give way to the user's choice.
      let exposed = Set(headers.map { $0.name.lowercased() }.filter { !$0.hasPrefix("access-control-") })
        .subtracting(Self.notExposed).sorted()
      headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: origin)
      headers.replaceOrAdd(name: "Access-Control-Allow-Credentials", value: "true")
      if !exposed.isEmpty {
        headers.replaceOrAdd(name: "Access-Control-Expose-Headers", value: exposed.joined(separator: ", "))
      }
      headers.add(name: "Vary", value: "Origin")
    }

    /// Fields a page may read anyway, or that are about the connection.
    private static let notExposed: Set<String> = [
      "cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma",
      "connection", "transfer-encoding", "vary",
    ]
  }
#endif
