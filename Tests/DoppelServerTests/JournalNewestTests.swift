#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Issue 48, point 2: the dashboard reads the newest entries that match (`last`, `before`) and
  /// how many match, never the whole of a full journal; entries are described (redacted) once.
  @Suite(.timeLimit(.minutes(1))) struct JournalNewestTests {
    private struct Page {
      var indices: [Int] = []
      var urls: [String] = []
      var matches: Int?
      var next: Int?
      var more: Bool?
      var first: Int?
    }

    private func page(_ server: StubServer, _ query: String) async throws -> Page {
      let (text, response) = try await fetch(server.url("/__doppel/requests" + query))
      #expect(response.statusCode == 200, "\(text)")
      let json = try JSONValue(parsing: Data(text.utf8))
      var page = Page()
      if case .array(let entries)? = json["requests"] {
        for entry in entries {
          if case .number(let index)? = entry["index"] { page.indices.append(Int(index)) }
          if case .string(let url)? = entry["url"] { page.urls.append(url) }
        }
      }
      if case .number(let value)? = json["matches"] { page.matches = Int(value) }
      if case .number(let value)? = json["next"] { page.next = Int(value) }
      if case .bool(let value)? = json["more"] { page.more = value }
      if case .number(let value)? = json["first"] { page.first = Int(value) }
      return page
    }

    /// 30 requests, every third a POST no stub answers.
    private func withJournal(_ body: (StubServer, Backend) async throws -> Void) async throws {
      let backend = quietBackend()
      backend.stub(.get("/ok"), .status(204))
      for index in 0..<30 {
        var request = URLRequest(url: URL(string: "https://api.example.com/ok?n=\(index)")!)
        if index % 3 == 0 { request.httpMethod = "POST" }
        _ = try? await backend.respond(to: request)
      }
      try await withStubServer(backend) { server in try await body(server, backend) }
    }

    @Test func lastReadsTheNewestEntriesThatMatchAndHowManyMatch() async throws {
      try await withJournal { server, _ in
        let newest = try await page(server, "?last=5")
        #expect(newest.indices == [25, 26, 27, 28, 29])
        #expect(newest.matches == 30 && newest.next == 30 && newest.more == false && newest.first == 0)
        let posts = try await page(server, "?last=5&method=POST")
        #expect(posts.indices == [15, 18, 21, 24, 27])
        #expect(posts.matches == 10 && posts.next == 30)
        let older = try await page(server, "?last=5&method=POST&before=15")
        #expect(older.indices == [0, 3, 6, 9, 12])
        #expect(older.matches == 5 && older.next == 15 && older.more == false)
        let unmatched = try await page(server, "?last=2&matched=false&text=n%3D2")
        #expect(unmatched.indices == [24, 27])
        #expect(unmatched.matches == 3)
        let none = try await page(server, "?last=5&before=0")
        #expect(none.indices.isEmpty && none.matches == 0)
      }
    }

    @Test func lastAndBeforeSayWhatTheyTake() async throws {
      try await withJournal { server, _ in
        let (last, lastResponse) = try await fetch(server.url("/__doppel/requests?last=0"))
        #expect(lastResponse.statusCode == 400)
        #expect(
          last
            == #"{"error":"query: last: \"0\" is not a page size. Pass 1 to 1000: the newest entries that match, in one answer."}"#
            + "\n")
        let (before, beforeResponse) = try await fetch(server.url("/__doppel/requests?last=5&before=-1"))
        #expect(beforeResponse.statusCode == 400)
        #expect(before.hasPrefix(#"{"error":"query: before: \"-1\" is not an entry number. Pass 0 to "#))
        let (unknown, _) = try await fetch(server.url("/__doppel/requests?lats=5"))
        #expect(unknown.contains(#"Did you mean \"last\"?"#))
      }
    }

    /// A description kept for entry 0 is not that of the entry 0 after the journal was cleared,
    /// through the admin API or in the process (which the admin API does not see).
    @Test(arguments: [true, false]) func aClearedJournalIsDescribedAnew(throughTheAdminAPI: Bool) async throws {
      try await withJournal { server, backend in
        let before = try await page(server, "?last=1&before=1")
        #expect(before.urls == ["https://api.example.com/ok?n=0"])
        if throughTheAdminAPI {
          let (_, cleared) = try await fetch(server.url("/__doppel/requests"), method: "DELETE")
          #expect(cleared.statusCode == 200)
        } else {
          backend.clearJournal()
        }
        let (_, answered) = try await fetch(server.url("/ok?n=new"))
        #expect(answered.statusCode == 204)
        let after = try await page(server, "?last=1")
        #expect(after.indices == [0])
        #expect(after.urls == [server.url("/ok?n=new").absoluteString])
        let search = try await page(server, "?last=5&text=n%3Dnew")
        #expect(search.indices == [0] && search.matches == 1)
      }
    }
  }
#endif
