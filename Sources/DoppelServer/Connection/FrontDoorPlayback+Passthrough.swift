#if Server
  import Doppel

  extension FrontDoorPlayback {
    /// Whether the backend sent the request on to the network (`UnmatchedPolicy.passthrough`):
    /// no stub answered and none was missed.
    var isPassthrough: Bool { stub == nil && unmatchedReport == nil }

    /// The beats with the framing headers of a response that came from the network fixed for the
    /// body as it will be sent: URLSession has already decoded a compressed body and joined a
    /// chunked one, so `Content-Encoding`, `Transfer-Encoding` and the upstream's `Content-Length`
    /// no longer describe it; hop-by-hop headers belong to the upstream's connection.
    func reframedBeats(forHead isHead: Bool) -> [Beat] {
      let bodyLength = beats.reduce(0) { total, beat in
        total
          + beat.steps.reduce(0) { sum, step in
            if case .body(let data) = step { return sum + data.count }
            return sum
          }
      }
      return beats.map { beat in
        var beat = beat
        beat.steps = beat.steps.map { step in
          guard case .head(let status, let headers) = step else { return step }
          return .head(
            status: status, headers: Self.reframed(headers, status: status, bodyLength: bodyLength, isHead: isHead))
        }
        return beat
      }
    }

    /// `headers` of an upstream's answer fixed for a body of `bodyLength` bytes as it will be sent
    /// (see ``reframedBeats(forHead:)``).
    static func reframed(_ headers: HTTPHeaders, status: Int, bodyLength: Int, isHead: Bool) -> HTTPHeaders {
      var headers = headers
      let encoded = headers["Content-Encoding"].map { $0.lowercased() != "identity" } ?? false
      for name in ["Content-Encoding", "Transfer-Encoding", "Connection", "Keep-Alive", "Proxy-Connection"] {
        headers.remove(name)
      }
      let bodiless = status < 200 || status == 204 || status == 304
      if !bodiless && !(isHead && !encoded && headers.contains("Content-Length")) {
        headers.replace("Content-Length", with: String(bodyLength))
      }
      return headers
    }
  }
#endif
