#if GraphQL
  import Doppel
  import DoppelGraphQL
  import Foundation
  import TestSupport
  import Testing

  /// Apollo's automatic persisted queries, as Apollo iOS sends them.
  @Suite struct PersistedQueryTests {
    static let query = "query Me { viewer { __typename id } }"
    /// The SHA-256 of `query`, as `shasum -a 256` prints it.
    static let hash = "cba6161bff3cd9c3c75ea115538d430a1bf5208ff15134ae6a6019b073d5cb75"

    func extensions(_ hash: String) -> JSONValue {
      ["persistedQuery": ["version": 1, "sha256Hash": .string(hash)]]
    }

    @Test func anUnknownHashThenRegisteringThenTheHashAlone() async throws {
      let served = try Schemas.served()
      let first = try await served.backend.send(nil, operationName: "Me", extensions: extensions(Self.hash))
      #expect(first.status == 200)
      #expect(
        first.body
          == #"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#)
      let registered = try await served.backend.send(Self.query, operationName: "Me", extensions: extensions(Self.hash))
      #expect(registered.body.hasPrefix(#"{"data":{"viewer":{"__typename":"User","id":"#))
      let again = try await served.backend.send(nil, operationName: "Me", extensions: extensions(Self.hash))
      #expect(again.body == registered.body)
      #expect(served.messages == [])
    }

    @Test func aHashThatIsNotTheQuerysIsRefused() async throws {
      let served = try Schemas.served()
      let wrong = String(repeating: "0", count: 64)
      let answer = try await served.backend.send(Self.query, operationName: "Me", extensions: extensions(wrong))
      #expect(answer.status == 400)
      #expect(
        answer.body
          == #"{"errors":[{"message":"provided sha does not match query","extensions":{"code":"BAD_USER_INPUT"}}]}"#)
      let after = try await served.backend.send(nil, operationName: "Me", extensions: extensions(wrong))
      #expect(after.body.contains("PersistedQueryNotFound"))
    }

    @Test func aGETWithTheExtensionsQueryItem() async throws {
      let served = try Schemas.served()
      _ = try await served.backend.send(Self.query, operationName: "Me", extensions: extensions(Self.hash))
      var components = URLComponents(url: Schemas.endpoint, resolvingAgainstBaseURL: false)!
      components.queryItems = [
        URLQueryItem(name: "operationName", value: "Me"),
        URLQueryItem(name: "extensions", value: extensions(Self.hash).description),
      ]
      let (data, response) = try await served.backend.respond(to: URLRequest(url: components.url!))
      #expect(response.statusCode == 200)
      #expect(String(decoding: data, as: UTF8.self).hasPrefix(#"{"data":{"viewer":{"__typename":"User","id":"#))
    }

    /// A client registering without end cannot grow the process without end: beyond the count or
    /// the bytes, the oldest queries go first, and a query kept already is not counted twice.
    @Test func theOldestPersistedQueriesGoFirstBeyondTheLimits() {
      var byCount = PersistedQueries(maximumCount: 3, maximumBytes: 1_000)
      for index in 0..<1_000 { byCount.register("query Q\(index) { viewer { id } }", hash: "h\(index)") }
      #expect(byCount.count == 3)
      #expect(byCount["h996"] == nil)
      #expect(byCount["h997"] == "query Q997 { viewer { id } }")
      #expect(byCount["h999"] == "query Q999 { viewer { id } }")
      byCount.register("another text", hash: "h999")
      #expect(byCount["h999"] == "query Q999 { viewer { id } }")
      #expect(byCount.count == 3)

      var byBytes = PersistedQueries(maximumCount: 100, maximumBytes: 25)
      byBytes.register(String(repeating: "a", count: 10), hash: "a")
      byBytes.register(String(repeating: "b", count: 10), hash: "b")
      #expect(byBytes.byteCount == 20)
      byBytes.register(String(repeating: "c", count: 10), hash: "c")
      #expect(byBytes["a"] == nil)
      #expect(byBytes["b"] != nil && byBytes["c"] != nil)
      #expect(byBytes.byteCount == 20)
      // One query larger than the limit is not kept at all.
      byBytes.register(String(repeating: "d", count: 30), hash: "d")
      #expect(byBytes.count == 0 && byBytes.byteCount == 0)
      // The served endpoint keeps the documented limits.
      let served = PersistedQueries()
      #expect(served.count == 0)
      #expect(QueryLimits.persistedQueries == 10_000 && QueryLimits.persistedBytes == 32 << 20)
    }
  }
#endif
