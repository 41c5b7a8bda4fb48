#if Server
  import Doppel
  import Foundation

  extension Drift {
    /// A cassette entry or a manifest stub: where it is, the request to re-send, and what to
    /// compare the live answer with.
    struct Target: Sendable {
      /// The file as typed (a manifest's stub: the manifest, or the fixture under a directory).
      let file: String
      /// The line of the entry or of the stub's declaration.
      let line: Int
      let method: String
      /// The path and query (percent-encoded), put after the base URL.
      let target: String
      /// The recorded header fields to send.
      var headers = HTTPHeaders()
      var body: Data?
      let expected: Expected?
      /// A manifest stub's `"drift"`.
      var marker: Bool?
      /// Why the target is not sent, as a phrase; `nil` when it is.
      var skipped: String?

      /// `file:line: METHOD /path`.
      var heading: String { "\(file):\(line): \(method) \(target)" }
    }

    /// What the live answer is compared with.
    enum Expected: Sendable {
      /// A cassette's recorded response.
      case recorded(Answer)
      /// What a manifest stub answers, worked out when the target is checked.
      case stub(Manifest.DriftStub)
    }

    /// A status, header fields and a body: recorded, stubbed or live.
    struct Answer: Sendable {
      let status: Int
      let headers: HTTPHeaders
      let body: Data

      /// The media type of `Content-Type`, lower-cased, without parameters.
      var mediaType: String? {
        headers["Content-Type"].map { Drift.mediaType($0) }.flatMap { $0.isEmpty ? nil : $0 }
      }

      init(status: Int, headers: HTTPHeaders, body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
      }

      init(_ response: HTTPURLResponse, body: Data) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
          if let name = name as? String, let value = value as? String { headers.add(name, value) }
        }
        self.init(status: response.statusCode, headers: headers, body: body)
      }
    }

    /// `application/json` from `Application/JSON; charset=utf-8`.
    static func mediaType(_ contentType: String) -> String {
      contentType.split(separator: ";", maxSplits: 1).first.map {
        $0.trimmingCharacters(in: .whitespaces).lowercased()
      } ?? ""
    }

    /// Request header fields never re-sent: hop-by-hop fields, those the HTTP stack sets itself,
    /// and `Host` (the base URL's host is the one asked).
    static let unsentHeaders: Set<String> = [
      "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
      "content-length", "accept-encoding",
    ]

    /// The path and query of `url`, percent-encoded: `/v1/breeds?page=2`.
    static func pathAndQuery(of url: URL) -> String {
      let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
      let path = components?.percentEncodedPath ?? url.path
      let query = components?.percentEncodedQuery.map { "?" + $0 } ?? ""
      return (path.isEmpty ? "/" : path) + query
    }

    /// The entries of a cassette or the stubs of a manifest at `path`, in the order written.
    ///
    /// - Throws: ``DoppelError`` naming the file when it cannot be read.
    static func targets(in path: String) throws -> [Target] {
      let url = URL(fileURLWithPath: path)
      if url.pathExtension.lowercased() == "har" { return try cassetteTargets(url, shown: path) }
      if ServeInputs.isOpenAPIDocument(url) {
        throw DoppelError(
          "\(path) is an OpenAPI document: pass it as --openapi \(path) to check live answers against it.")
      }
      let manifest = try Manifest.load(contentsOf: url)
      return manifest.driftStubs.map { stub in
        let location = stub.location
        let file = Lint.shown(location, in: manifest, typed: path)
        let resend = stub.resend
        let written = resend.url.hasPrefix("/") ? "http://localhost" + resend.url : resend.url
        // A stub that is not sent is shown as written.
        let sent = resend.unsendable == nil ? URL(string: written).map(pathAndQuery) : nil
        var target = Target(
          file: file, line: location.line, method: resend.method, target: sent ?? resend.url, expected: .stub(stub),
          marker: stub.drift)
        target.headers = HTTPHeaders(resend.headers.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })
        target.body = resend.body
        if let reason = resend.unsendable { target.skipped = reason }
        return target
      }
    }

    private static func cassetteTargets(_ url: URL, shown: String) throws -> [Target] {
      let data = try WholeFile.read(url) {
        DoppelError("\(shown): could not read the cassette: \($0). Check the path.")
      }
      let cassette = try Cassette(data: data, file: shown)
      let lines = JSONLocation.entryLines(in: data)
      return cassette.entries.enumerated().map { index, entry in
        let line = lines.indices.contains(index) ? lines[index] : 0
        let recordedURL = URL(string: entry.request.url)
        let path = recordedURL.map(pathAndQuery) ?? entry.request.url
        guard let request = try? entry.makeRequest() else {
          return Target(
            file: shown, line: line, method: entry.request.method, target: path, expected: nil,
            skipped: "the entry's request cannot be read (doppel lint \(shown) says why)")
        }
        guard entry.response.status != 0, let response = try? entry.makeResponse(for: request.method),
          let body = try? response.bodyData()
        else {
          return Target(
            file: shown, line: line, method: request.method.rawValue, target: path, expected: nil,
            skipped: "the entry recorded a failed request, not an answer")
        }
        var headers = response.headers
        if !headers.contains("Content-Type"), !entry.response.content.mimeType.isEmpty {
          headers.add("Content-Type", entry.response.content.mimeType)
        }
        var target = Target(
          file: shown, line: line, method: request.method.rawValue, target: path,
          expected: .recorded(Answer(status: response.status, headers: headers, body: body)))
        target.headers = request.headers
        target.body = request.body
        return target
      }
    }
  }
#endif
