#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Issue 48, points 1 and 2: a journal entry opens to its request and its answer
  /// (`GET /__doppel/requests/{index}`), redacted as the journal is, and the journal filters by
  /// status, matched or not, text and time, for the dashboard.
  @Suite(.timeLimit(.minutes(1))) struct DashboardJournalTests {
    private func withServer(
      token: String? = nil, _ body: (StubServer) async throws -> Void
    ) async throws {
      var configuration = StubServer.Configuration()
      configuration.admin.token = token
      let backend = quietBackend()
      backend.stub(
        .post("/orders"),
        .json(["id": 7, "items": ["tea"]], status: 201).delayed(by: .milliseconds(5)), name: "new order")
      backend.stub(.get("/logo.png"), .data(Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])))
      backend.stub(.get("/hello"), .text("hi"))
      try await withStubServer(backend, configuration: configuration) { server in try await body(server) }
    }

    private func detail(_ server: StubServer, _ index: Int) async throws -> JSONValue {
      let (text, response) = try await fetch(server.url("/__doppel/requests/\(index)"))
      #expect(response.statusCode == 200, "\(text)")
      return try JSONValue(parsing: Data(text.utf8))
    }

    private func header(_ fields: JSONValue?, _ name: String) -> String? {
      guard case .array(let items)? = fields else { return nil }
      for item in items where item["name"]?.textValue?.lowercased() == name.lowercased() {
        return item["value"]?.textValue
      }
      return nil
    }

    @Test func anEntryOpensToItsRequestAndItsAnswer() async throws {
      try await withServer { server in
        let (_, posted) = try await fetch(
          server.url("/orders?page=2"), method: "POST",
          headers: ["Content-Type": "application/json", "X-Trace": "abc"], body: Data(#"{"tea":1,"b":[true]}"#.utf8))
        #expect(posted.statusCode == 201)
        var entry = try await detail(server, 0)
        let received = try #require(entry["receivedAt"]?.textValue)
        let date = try #require(ISO8601DateFormatter.fractional.date(from: received))
        #expect(abs(date.timeIntervalSinceNow) < 60)
        #expect(entry["request"]?["method"] == "POST")
        #expect(entry["request"]?["url"] == .string(server.url("/orders?page=2").absoluteString))
        #expect(entry["request"]?["path"] == "/orders")
        #expect(header(entry["request"]?["headers"], "X-Trace") == "abc")
        #expect(
          entry["request"]?["body"]
            == [
              "kind": "json", "size": 20, "mimeType": "application/json",
              "text": "{\n  \"b\" : [\n    true\n  ],\n  \"tea\" : 1\n}",
            ])
        if case .object(var fields) = entry {
          fields["receivedAt"] = nil
          fields["request"] = nil
          entry = .object(fields)
        }
        #expect(
          entry == [
            "index": 0, "matched": true, "pending": false,
            "response": [
              "status": 201,
              "headers": [
                ["name": "Content-Length", "value": "24"], ["name": "Content-Type", "value": "application/json"],
              ],
              "body": [
                "kind": "json", "size": 24, "mimeType": "application/json",
                "text": "{\n  \"id\" : 7,\n  \"items\" : [\n    \"tea\"\n  ]\n}",
              ],
              "timing": "after 5 ms",
            ],
            "stub": ["id": 0, "name": "new order", "location": "DashboardJournalTests.swift:22"],
          ])
      }
    }

    @Test func aBinaryBodyIsItsSizeAndAHexPreviewAndAMissIsItsReport() async throws {
      try await withServer { server in
        _ = try await fetch(server.url("/logo.png"))
        let (_, missed) = try await fetch(server.url("/helo"))
        #expect(missed.statusCode == 404)
        let binary = try await detail(server, 0)
        #expect(
          binary["response"]?["body"]
            == ["kind": "binary", "size": 6, "mimeType": "application/octet-stream", "hexPreview": "89 50 4e 47 00 ff"])
        #expect(binary["response"]?["timing"] == "at once")
        let miss = try await detail(server, 1)
        #expect(miss["matched"] == false)
        #expect(miss["stub"] == nil)
        #expect(miss["response"]?["status"] == 404)
        #expect(header(miss["response"]?["headers"], "X-Doppel-Unmatched") == "1")
        let report = try #require(miss["nearMiss"]?.textValue)
        #expect(report.hasPrefix("No stub matched GET \(server.url("/helo").absoluteString)"))
        #expect(report.contains("GET /hello"))
        #expect(miss["response"]?["body"]?["text"]?.textValue == report + "\n")
      }
    }

    @Test func anUnknownEntryIsA404ThatSaysWhichEntriesThereAre() async throws {
      try await withServer { server in
        let (empty, none) = try await fetch(server.url("/__doppel/requests/3"))
        #expect(none.statusCode == 404)
        #expect(
          empty
            == #"{"error":"There is no journal entry 3: no request has been journaled with that number yet. The journal keeps no entries now. GET /__doppel/requests lists them."}\#n"#
        )
        _ = try await fetch(server.url("/hello"))
        _ = try await fetch(server.url("/hello"))
        let (later, _) = try await fetch(server.url("/__doppel/requests/2"))
        #expect(later.contains("The journal keeps entries 0 to 1."))
        let (_, cleared) = try await fetch(server.url("/__doppel/requests"), method: "DELETE")
        #expect(cleared.statusCode == 200)
        _ = try await fetch(server.url("/hello"))
        let (word, wordResponse) = try await fetch(server.url("/__doppel/requests/first"))
        #expect(wordResponse.statusCode == 404)
        #expect(
          word
            == #"{"error":"There is no journal entry \"first\": entries are numbered 0, 1, 2, … (the \"index\" of an entry in GET /__doppel/requests)."}\#n"#
        )
        let (_, post) = try await fetch(server.url("/__doppel/requests/0"), method: "POST")
        #expect(post.statusCode == 405)
        #expect(post.value(forHTTPHeaderField: "Allow") == "GET")
      }
    }

    @Test func anEntryIsBehindTheTokenAsTheRestOfTheAdminAPI() async throws {
      try await withServer(token: "s3cret") { server in
        _ = try await fetch(server.url("/hello"))
        let (_, refused) = try await fetch(server.url("/__doppel/requests/0"))
        #expect(refused.statusCode == 401)
        let (_, wrong) = try await fetch(
          server.url("/__doppel/requests/0"), headers: ["Authorization": "Bearer guess"])
        #expect(wrong.statusCode == 401)
        let (text, answered) = try await fetch(
          server.url("/__doppel/requests/0"), headers: ["Authorization": "Bearer s3cret"])
        #expect(answered.statusCode == 200)
        #expect(text.contains(#""path":"\/hello""#) || text.contains(#""path":"/hello""#))
      }
    }

    #if canImport(Glibc)
      @Test func aForeignPageCannotReadAnEntry() async throws {
        try await withServer { server in
          _ = try await fetch(server.url("/hello"))
          let port = server.port
          for headers in [
            ["Host: 127.0.0.1:\(port)", "Origin: https://evil.example"],
            ["Host: evil.example:\(port)"],
            ["Host: 127.0.0.1:\(port)", "Sec-Fetch-Site: cross-site"],
          ] {
            let connection = try await RawConnection.connect(port: port)
            defer { connection.close() }
            let lines = ["GET /__doppel/requests/0 HTTP/1.1"] + headers + ["Connection: close"]
            try await connection.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
            let response = try #require(try await connection.readResponse())
            #expect(response.head.hasPrefix("HTTP/1.1 403 Forbidden"), "\(headers)")
            #expect(!response.body.contains("/hello"), "\(headers)")
          }
        }
      }
    #endif

    @Test func noPlantedSecretReachesAnOpenedEntry() async throws {
      let backend = quietBackend()
      for planted in PlantedSecrets.all {
        // A redirect would be followed to the planted host: answered with 200 instead.
        let response = (300..<400).contains(planted.response.status) ? .text("ok") : planted.response
        backend.stub(.method(planted.request.method) && .path(planted.request.url.path), response)
      }
      try await withStubServer(backend) { server in
        for planted in PlantedSecrets.all {
          _ = try await OneRedactionServerTests.send(planted, to: server)
        }
        var shown: [String] = []
        for index in PlantedSecrets.all.indices {
          let (text, response) = try await fetch(server.url("/__doppel/requests/\(index)"))
          #expect(response.statusCode == 200)
          shown.append(text)
        }
        let all = shown.joined(separator: "\n")
        #expect(all.contains("REDACTED"))
        #expect(PlantedSecrets.leaks(in: all) == [], "the opened entries, which the dashboard shows")
        // A search finds what the dashboard shows, never a secret.
        for secret in PlantedSecrets.all.flatMap(\.secrets) {
          let query = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
          let (found, _) = try await fetch(server.url("/__doppel/requests?text=\(query)"))
          #expect(found.contains(#""requests":[]"#), "text=\(secret)")
        }
      }
    }

    @Test func theJournalFiltersByStatusMatchedTextAndTime() async throws {
      try await withServer { server in
        let before = Date().addingTimeInterval(-1)
        _ = try await fetch(server.url("/hello"))
        _ = try await fetch(server.url("/missing"))
        _ = try await fetch(
          server.url("/orders"), method: "POST", headers: ["Content-Type": "application/json"],
          body: Data(#"{"tea": "Assam"}"#.utf8))
        func indices(_ query: String) async throws -> [Double] {
          let (text, response) = try await fetch(server.url("/__doppel/requests?" + query))
          #expect(response.statusCode == 200, "\(query): \(text)")
          guard case .array(let items)? = try JSONValue(parsing: Data(text.utf8))["requests"] else { return [] }
          return items.compactMap { $0["index"]?.numberValue }
        }
        #expect(try await indices("status=4xx") == [1])
        #expect(try await indices("status=2XX") == [0, 2])
        #expect(try await indices("status=201") == [2])
        #expect(try await indices("matched=false") == [1])
        #expect(try await indices("matched=true&method=post") == [2])
        #expect(try await indices("text=assam") == [2])
        #expect(try await indices("text=No%20stub%20matched") == [1])
        let from = ISO8601DateFormatter.fractional.string(from: before)
        let future = ISO8601DateFormatter.fractional.string(from: Date().addingTimeInterval(3600))
        #expect(try await indices("from=\(from)") == [0, 1, 2])
        #expect(try await indices("from=\(future)") == [])
        #expect(try await indices("to=\(from)") == [])
        #expect(try await indices("from=\(from)&to=\(future)&status=2xx&path=/hello") == [0])

        let (bad, badResponse) = try await fetch(server.url("/__doppel/requests?status=6xx"))
        #expect(badResponse.statusCode == 400)
        #expect(
          bad
            == #"{"error":"query: status: \"6xx\" is not a status or a class of them. Write one such as 404, or a class: 1xx, 2xx, 3xx, 4xx or 5xx."}\#n"#
        )
        let (time, _) = try await fetch(server.url("/__doppel/requests?from=yesterday"))
        #expect(
          time
            == #"{"error":"query: from: \"yesterday\" is not a time. Write it in RFC 3339 (ISO 8601), such as 2025-01-31T09:30:00Z or 2025-01-31T09:30:00.250+01:00."}\#n"#
        )
        let (matched, _) = try await fetch(server.url("/__doppel/requests?matched=yes"))
        #expect(matched.contains("is not true or false"))
      }
    }

    @Test func thePageHasTheFiltersAndItsScriptOpensRowsAsText() async throws {
      try await withServer { server in
        let (page, _) = try await fetch(server.url("/__doppel/"), headers: ["Accept": "text/html"])
        for id in [
          "filter-method", "filter-status", "filter-matched", "filter-path", "filter-text", "filter-from", "filter-to",
        ] {
          #expect(page.contains(#"id="\#(id)""#), "\(id)")
        }
        let (script, _) = try await fetch(server.url("/__doppel/dashboard.js"))
        #expect(script.contains(#"call("GET", "requests/" + index)"#))
        #expect(!script.contains("innerHTML") && !script.contains("insertAdjacentHTML") && !script.contains("eval("))
      }
    }
  }

  extension JSONValue {
    fileprivate var textValue: String? {
      if case .string(let text) = self { return text }
      return nil
    }

    fileprivate var numberValue: Double? {
      if case .number(let number) = self { return number }
      return nil
    }
  }

  extension ISO8601DateFormatter {
    /// With fractions of a second, as the journal writes times.
    fileprivate static var fractional: ISO8601DateFormatter {
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      return formatter
    }
  }
#endif
