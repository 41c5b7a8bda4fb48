#if Server
  import Doppel

  /// One request the stub server answered, as reported to ``StubServer/Configuration/onRequest``:
  /// what came in, what matched, and what went out.
  ///
  /// Its ``description`` is the line `doppel serve` prints:
  ///
  /// ```
  /// GET /CatFancy/breeds.json → 200 (doppel.json:5 "standard")
  /// GET /nope → 404, no stub matched (closest: GET https://api.example.com/breeds.json; path differs); a stub for it: {"request":"GET https://api.example.com/nope","response":{"status":200}}
  /// ```
  public struct ServedRequest: Sendable, CustomStringConvertible {
    /// The request as the backend matched it (with the origin applied to its URL).
    public let request: Request
    /// The request target as sent: `/breeds.json?page=2`.
    public let target: String
    /// The stub that answered, or `nil` when none matched.
    public let stub: StubHandle?
    /// The status sent, or `nil` when the connection failed or the response never comes.
    public let status: Int?
    /// What happened, in words: `no stub matched (closest: …)`, `connection reset`, … Empty for an
    /// ordinary answer from a stub.
    public let outcome: String

    /// `METHOD target → status (stub)`, followed by the outcome.
    public var description: String {
      var line = "\(request.method) \(target) →"
      if let status { line += " \(status)" }
      if !outcome.isEmpty { line += (status == nil ? " " : ", ") + outcome }
      if let stub {
        line += " (\(stub.location)" + (stub.name.map { " \"\($0)\"" } ?? "") + ")"
      }
      return line
    }
  }
#endif
