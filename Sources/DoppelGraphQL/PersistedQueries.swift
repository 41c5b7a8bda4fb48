#if GraphQL
  /// The persisted queries, at most ``QueryLimits/persistedQueries`` of them and
  /// ``QueryLimits/persistedBytes`` of text: the oldest go first, so a client registering
  /// without end cannot grow the process without end.
  package struct PersistedQueries {
    private var byHash: [String: String] = [:]
    private var order: [String] = []
    private var first = 0
    private var bytes = 0
    private let maximumCount: Int
    private let maximumBytes: Int

    /// An empty store keeping at most `maximumCount` queries and `maximumBytes` of their text.
    package init(
      maximumCount: Int = QueryLimits.persistedQueries, maximumBytes: Int = QueryLimits.persistedBytes
    ) {
      self.maximumCount = maximumCount
      self.maximumBytes = maximumBytes
    }

    /// The query registered under `hash`, unless it was dropped.
    package subscript(hash: String) -> String? { byHash[hash] }

    /// How many queries are kept, and how many bytes of text.
    package var count: Int { byHash.count }
    package var byteCount: Int { bytes }

    /// Keeps `query` under `hash` (a hash kept already keeps its query), dropping the oldest
    /// beyond the limits.
    package mutating func register(_ query: String, hash: String) {
      guard byHash[hash] == nil else { return }
      byHash[hash] = query
      order.append(hash)
      bytes += query.utf8.count
      while byHash.count > maximumCount || bytes > maximumBytes {
        if let oldest = byHash.removeValue(forKey: order[first]) { bytes -= oldest.utf8.count }
        first += 1
      }
      // The hashes before `first` are gone: drop them once they are half the array.
      if first > order.count / 2 {
        order.removeFirst(first)
        first = 0
      }
    }
  }
#endif
