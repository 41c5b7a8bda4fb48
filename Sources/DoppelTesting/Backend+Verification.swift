import Doppel

extension Backend {
  /// The most recent request that `matcher` matches, if any.
  ///
  /// ```swift
  /// let order = try #require(backend.lastRequest(matching: .post("/orders")))
  /// #expect(try order.decodeJSON(Order.self) == expected)
  /// ```
  public func lastRequest(matching matcher: Matcher) -> Request? {
    requests.last(where: matcher.matches)
  }
}
