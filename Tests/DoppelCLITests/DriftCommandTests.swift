#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  /// `doppel drift` against a loopback server that answers differently from a cassette and a
  /// manifest in each way the command reports.
  @Suite(.timeLimit(.minutes(1))) struct DriftCommandTests {
    /// One entry per line, so that each starts on a known line (entry `i` on line `i + 2`).
    static let cassette = #"""
      {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
        {"request": {"method": "GET", "url": "https://api.example.com/v1/same", "headers": []}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{\"id\": 1, \"name\": \"a\"}"}}},
        {"request": {"method": "GET", "url": "https://api.example.com/v1/status", "headers": []}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{}"}}},
        {"request": {"method": "GET", "url": "https://api.example.com/v1/type", "headers": []}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json; charset=utf-8"}], "content": {"mimeType": "application/json", "text": "{}"}}},
        {"request": {"method": "GET", "url": "https://api.example.com/v1/header", "headers": []}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/plain"}, {"name": "X-Api-Version", "value": "1"}], "content": {"mimeType": "text/plain", "text": "ok"}}},
        {"request": {"method": "GET", "url": "https://api.example.com/v1/breeds?page=1", "headers": [{"name": "Accept", "value": "application/json"}]}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{\"data\": [{\"name\": \"Abyssinian\", \"origin\": \"Egypt\", \"age\": 3, \"image\": \"a.png\", \"nickname\": null, \"updatedAt\": \"2024-01-01\"}]}"}}},
        {"request": {"method": "POST", "url": "https://api.example.com/v1/orders", "headers": [{"name": "Content-Type", "value": "application/json"}], "postData": {"mimeType": "application/json", "text": "{\"breed\": \"Bengal\"}"}}, "response": {"status": 201, "headers": [{"name": "Content-Type", "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{\"id\": 7}"}}}
      ]}}
      """#

    /// The real server: answers each of the cassette's requests differently in one way.
    static func upstream() -> Backend {
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/v1/same"), json(#"{"id": 2, "name": "b"}"#))
      upstream.stub(.get("/v1/status"), json("{}", status: 404))
      upstream.stub(.get("/v1/type"), Response(headers: ["Content-Type": "text/html"], body: Data("<p>".utf8)))
      upstream.stub(
        .get("/v1/header"),
        Response(headers: ["Content-Type": "text/plain", "X-Api-Version": "2"], body: Data("ok".utf8)))
      upstream.stub(
        .get("/v1/breeds"),
        json(
          #"{"data": [{"name": "Bengal", "age": "3", "image": null, "nickname": "Ben", "updatedAt": 5, "coat": "short"}]}"#
        ))
      upstream.stub(.post("/v1/orders"), json(#"{"id": 8}"#, status: 201))
      return upstream
    }

    static func json(_ text: String, status: Int = 200, headers: HTTPHeaders = [:]) -> Response {
      Response(
        status: status, headers: headers.merging(["Content-Type": "application/json"]), body: Data(text.utf8))
    }

    @Test func reportsEachDifferenceAtItsEntry() async throws {
      let directory = try temporaryDirectory(holding: ["api.har": Self.cassette])
      let upstream = Self.upstream()
      try await withStubServer(upstream) { server in
        let base = server.baseURL.absoluteString
        let result = try await DoppelProcess.run(
          [
            "drift", "api.har", "--against", base, "--compare-header", "X-Api-Version",
            "--ignore", "$.data[*].updatedAt",
          ], directory: directory)
        #expect(result.status == 1)
        #expect(
          result.output.split(separator: "\n").map(String.init) == [
            "api.har:3: GET /v1/status",
            "  status: recorded 200, live 404",
            "api.har:4: GET /v1/type",
            "  Content-Type: recorded application/json, live text/html",
            "api.har:5: GET /v1/header",
            "  header X-Api-Version: recorded \"1\", live \"2\"",
            "api.har:6: GET /v1/breeds?page=1",
            "  $.data[*].age: type changed from number to string",
            "  $.data[*].coat: field added (string)",
            "  $.data[*].image: null where the recording has string",
            "  $.data[*].nickname: string where the recording has null",
            "  $.data[*].origin: field removed (was string)",
            "api.har:7: POST /v1/orders: skipped: POST is not re-sent unless asked (--method POST or --all-methods)",
            "4 of 6 entries drifted, 1 skipped (against \(base)).",
          ])
        // The POST was not sent; the recorded Accept was.
        #expect(!upstream.requests.contains { $0.method == .post })
        #expect(upstream.requests.first { $0.path == "/v1/breeds" }?.headers["Accept"] == "application/json")
        #expect(upstream.requests.first { $0.path == "/v1/breeds" }?.url.query == "page=1")
      }
    }

    @Test func aVolatileFieldIsReportedUnlessIgnored() async throws {
      let directory = try temporaryDirectory(holding: ["api.har": Self.cassette])
      try await withStubServer(Self.upstream()) { server in
        let result = try await DoppelProcess.run(
          ["drift", "api.har", "--against", server.baseURL.absoluteString, "--ignore", "nickname"],
          directory: directory)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("  $.data[*].updatedAt: type changed from string to number"))
        #expect(!lines.contains { $0.contains("nickname") })
      }
    }

    @Test func aPOSTIsSentWhenAskedFor() async throws {
      let directory = try temporaryDirectory(holding: ["api.har": Self.cassette])
      let upstream = Self.upstream()
      try await withStubServer(upstream) { server in
        let base = server.baseURL.absoluteString
        for flags in [["--method", "post"], ["--all-methods"]] {
          let result = try await DoppelProcess.run(
            ["drift", "api.har", "--against", base, "--compare-values"] + flags, directory: directory)
          #expect(result.status == 1)
          let lines = result.output.split(separator: "\n").map(String.init)
          #expect(lines.contains("api.har:7: POST /v1/orders"))
          #expect(lines.contains("  $.id: value changed from 7 to 8"))
          #expect(lines.contains("  $.name: value changed from \"a\" to \"b\""))
          #expect(lines.last == "5 of 6 entries drifted (against \(base)).")
        }
        let posts = upstream.requests.filter { $0.method == .post }
        #expect(posts.count == 2)
        #expect(posts.first?.bodyText == #"{"breed": "Bengal"}"#)
      }
    }

    @Test func nothingDriftedExitsWithZero() async throws {
      let directory = try temporaryDirectory(holding: ["api.har": Self.cassette])
      try await withStubServer(Self.upstream()) { server in
        let base = server.baseURL.absoluteString
        // Values are not compared by default: /v1/same answers other values of the same types.
        try Data(Self.firstEntryOnly.utf8).write(to: directory.appendingPathComponent("same.har"))
        let result = try await DoppelProcess.run(["drift", "same.har", "--against", base], directory: directory)
        #expect(result.output == "0 of 1 entry drifted (against \(base)).")
        #expect(result.status == 0)
      }
    }

    /// The cassette with its first entry only (`GET /v1/same`, line 2).
    static let firstEntryOnly: String = {
      let lines = cassette.split(separator: "\n")
      return [lines[0], lines[1].dropLast(), lines[7]].joined(separator: "\n")
    }()

    @Test func liveAnswersAreCheckedAgainstAnOpenAPIDocument() async throws {
      let document = """
        openapi: 3.1.0
        info: {title: Example, version: "1"}
        paths:
          /v1/same:
            get:
              responses:
                "200":
                  description: The thing.
                  content:
                    application/json:
                      schema:
                        type: object
                        properties:
                          id: {type: string}
        """
      let directory = try temporaryDirectory(holding: ["same.har": Self.firstEntryOnly, "api.yaml": document])
      try await withStubServer(Self.upstream()) { server in
        let base = server.baseURL.absoluteString
        let result = try await DoppelProcess.run(
          ["drift", "same.har", "--against", base, "--openapi", "api.yaml"], directory: directory)
        #expect(result.status == 1)
        #expect(
          result.output.split(separator: "\n").map(String.init) == [
            "same.har:2: GET /v1/same",
            "  OpenAPI: GET /v1/same: response 200 body $.id: expected a string, found the number 2 (api.yaml:14 paths./v1/same.get.responses.200.content.application/json.schema.properties.id.type)",
            "1 of 1 entry drifted (against \(base)).",
          ])
      }
    }

    @Test func jsonReportForCI() async throws {
      let directory = try temporaryDirectory(holding: ["api.har": Self.cassette])
      try await withStubServer(Self.upstream()) { server in
        let base = server.baseURL.absoluteString
        let result = try await DoppelProcess.run(
          ["drift", "api.har", "--against", base, "--json", "--ignore", "updatedAt"], directory: directory)
        #expect(result.status == 1)
        let report = try #require(
          try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(report["against"] as? String == base)
        let summary = try #require(report["summary"] as? [String: Int])
        // X-Api-Version is compared only when named.
        #expect(summary == ["entries": 6, "drifted": 3, "unchanged": 2, "skipped": 1, "failed": 0])
        let entries = try #require(report["entries"] as? [[String: Any]])
        #expect(
          entries.map { $0["outcome"] as? String } == [
            "unchanged", "drifted", "drifted", "unchanged", "drifted", "skipped",
          ])
        #expect(entries.map { $0["line"] as? Int } == [2, 3, 4, 5, 6, 7])
        #expect(entries[4]["file"] as? String == "api.har")
        #expect(entries[4]["target"] as? String == "/v1/breeds?page=1")
        let differences = try #require(entries[4]["differences"] as? [[String: Any]])
        #expect(differences.first?["kind"] as? String == "typeChanged")
        #expect(differences.first?["path"] as? String == "$.data[*].age")
        #expect(differences.first?["recorded"] as? String == "number")
        #expect(differences.first?["live"] as? String == "string")
        #expect(
          differences.map { $0["kind"] as? String } == [
            "typeChanged", "fieldAdded", "becameNull", "becameValue", "fieldRemoved",
          ])
        #expect(entries[5]["reason"] as? String == "POST is not re-sent unless asked (--method POST or --all-methods)")
      }
    }

    @Test func secretsAreRedactedInTheReport() async throws {
      let cassette = #"""
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
          {"request": {"method": "GET", "url": "https://api.example.com/v1/me?api_key=k3y-v4lue-0123456789", "headers": [{"name": "Authorization", "value": "Bearer REDACTED"}]}, "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Authorization", "value": "Bearer recorded-secret-0123456789"}], "content": {"mimeType": "application/json", "text": "{\"user\": \"tom\", \"sessionToken\": \"recorded-token-0123456789\"}"}}}
        ]}}
        """#
      let directory = try temporaryDirectory(holding: ["me.har": cassette])
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(
        .get("/v1/me"),
        Self.json(
          #"{"user": "tom", "sessionToken": "live-token-0123456789"}"#,
          headers: ["Authorization": "Bearer live-answer-secret-0123456789"]))
      try await withStubServer(upstream) { server in
        let base = server.baseURL.absoluteString
        for format in [[], ["--json"]] {
          let result = try await DoppelProcess.run(
            [
              "drift", "me.har", "--against", base, "--compare-values", "--compare-header", "Authorization",
              "--header", "Authorization: Bearer sent-secret-0123456789",
            ] + format, directory: directory)
          #expect(result.status == 1)
          for secret in [
            "sent-secret", "recorded-secret", "live-answer-secret", "recorded-token", "live-token", "k3y-v4lue",
          ] {
            #expect(!result.output.contains(secret) && !result.error.contains(secret), "\(secret) was printed")
          }
          if format.isEmpty {
            #expect(
              result.output.split(separator: "\n").map(String.init) == [
                "me.har:2: GET /v1/me?api_key=REDACTED",
                "  header Authorization: recorded \"REDACTED\", live \"REDACTED\"",
                "  $.sessionToken: value changed from REDACTED to REDACTED",
                "1 of 1 entry drifted (against \(base)).",
              ])
          }
        }
        // The header the user gave was sent instead of the recorded (redacted) one.
        #expect(
          upstream.requests.map { $0.headers["Authorization"] } == [
            "Bearer sent-secret-0123456789", "Bearer sent-secret-0123456789",
          ])
      }
    }

    static let manifest = #"""
      {
        "stubs": [
          { "request": "GET https://api.example.com/v1/status", "response": { "json": {} } },
          { "request": { "method": "GET", "pathGlob": "/v1/cats/*" }, "response": { "json": [] } },
          { "request": "GET /v1/users/{id}", "response": { "json": {} } },
          { "request": "POST /v1/orders", "drift": true, "response": { "status": 201, "json": { "id": "7" } } },
          { "request": "GET /v1/same", "drift": false, "response": { "json": {} } },
          { "request": "DELETE /v1/orders/1", "response": { "status": 204 } }
        ]
      }
      """#

    @Test func manifestStubsAreResentOrSkippedWithTheReason() async throws {
      let directory = try temporaryDirectory(holding: ["doppel.json": Self.manifest])
      let upstream = Self.upstream()
      try await withStubServer(upstream) { server in
        let base = server.baseURL.absoluteString
        let result = try await DoppelProcess.run(["drift", "doppel.json", "--against", base], directory: directory)
        #expect(result.status == 1)
        #expect(
          result.output.split(separator: "\n").map(String.init) == [
            "doppel.json:3: GET /v1/status",
            "  status: recorded 200, live 404",
            "doppel.json:4: GET /v1/cats/*: skipped: its path is a pattern (pathGlob), not one URL",
            "doppel.json:5: GET /v1/users/{id}: skipped: its path is a template (/v1/users/{id}), not one URL",
            "doppel.json:6: POST /v1/orders",
            "  $.id: type changed from string to number",
            "doppel.json:7: GET /v1/same: skipped: \"drift\": false in the manifest",
            "doppel.json:8: DELETE /v1/orders/1: skipped: DELETE is not re-sent unless asked (--method DELETE or --all-methods)",
            "2 of 6 entries drifted, 4 skipped (against \(base)).",
          ])
        // Sent concurrently: in any order.
        #expect(
          upstream.requests.map { "\($0.method.rawValue) \($0.path)" }.sorted() == [
            "GET /v1/status", "POST /v1/orders",
          ])
      }
    }

    @Test func anUnreachableServerIsReportedPerEntry() async throws {
      let directory = try temporaryDirectory(holding: ["api.har": Self.cassette])
      // A port that was just free: a server bound it and closed.
      let closed = try await withStubServer(Backend(issueReporter: .ignore)) { server in server.baseURL }
      let base = closed.absoluteString
      let result = try await DoppelProcess.run(
        ["drift", "api.har", "--against", base, "--timeout", "5"], directory: directory)
      #expect(result.status == 2)
      let lines = result.output.split(separator: "\n").map(String.init)
      let host = "\(closed.host ?? ""):\(closed.port ?? 0)"
      #expect(lines.first == "api.har:2: GET /v1/same: failed: could not connect to \(host) (connection refused)")
      #expect(lines.last == "0 of 6 entries drifted, 1 skipped, 5 failed (against \(base)).")
    }

    @Test func anAnswerThatNeverComesTimesOut() async throws {
      let directory = try temporaryDirectory(holding: ["same.har": Self.firstEntryOnly])
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/v1/same"), .never)
      try await withStubServer(upstream) { server in
        let base = server.baseURL.absoluteString
        let result = try await DoppelProcess.run(
          ["drift", "same.har", "--against", base, "--timeout", "0.5", "--json"], directory: directory)
        #expect(result.status == 2)
        let report = try #require(
          try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let entry = try #require((report["entries"] as? [[String: Any]])?.first)
        #expect(entry["outcome"] as? String == "failed")
        let host = "\(server.baseURL.host ?? ""):\(server.baseURL.port ?? 0)"
        #expect(entry["reason"] as? String == "no answer from \(host) within 0.5 s")
      }
    }

    /// A live answer larger than drift compares in memory is not read to the end: the entry fails
    /// with the reason, and the process stays small (it never holds the answer).
    @Test func aLiveAnswerOver16MiBIsNotReadToTheEnd() async throws {
      let directory = try temporaryDirectory(holding: ["same.har": Self.firstEntryOnly])
      let upstream = Backend(issueReporter: .ignore)
      upstream.stub(.get("/v1/same"), Self.json(String(repeating: " ", count: 17 << 20) + "{}"))
      try await withStubServer(upstream) { server in
        let base = server.baseURL.absoluteString
        let url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/same"
        let result = try await DoppelProcess.run(["drift", "same.har", "--against", base], directory: directory)
        #expect(result.status == 2)
        #expect(
          result.output.split(separator: "\n").first
            == "same.har:2: GET /v1/same: failed: the answer to \(url) is more than 16 MiB once decoded, more than Doppel compares in memory; it was not fetched to the end"
        )
      }
    }

    @Test func aStubThatNeedsAStateIsStillCompared() async throws {
      let manifest = #"""
        {"stubs": [
          {"request": "GET /v1/status", "requiresState": "signedIn", "response": {"json": {}}}
        ]}
        """#
      let directory = try temporaryDirectory(holding: ["doppel.json": manifest])
      try await withStubServer(Self.upstream()) { server in
        let base = server.baseURL.absoluteString
        let result = try await DoppelProcess.run(["drift", "doppel.json", "--against", base], directory: directory)
        #expect(
          result.output.split(separator: "\n").map(String.init) == [
            "doppel.json:2: GET /v1/status", "  status: recorded 200, live 404",
            "1 of 1 entry drifted (against \(base)).",
          ])
      }
    }

    @Test func aBadDriftKeyIsAManifestError() async throws {
      let manifest = """
        {"stubs": [
          {"request": "GET /a", "drift": "yes", "response": {"status": 200}},
          {"request": "GET /b", "drfit": true, "response": {"status": 200}}
        ]}
        """
      let directory = try temporaryDirectory(holding: ["doppel.json": manifest])
      let result = try await DoppelProcess.run(
        ["drift", "doppel.json", "--against", "http://127.0.0.1:1"], directory: directory)
      #expect(result.status == 2)
      #expect(
        result.error.split(separator: "\n").map(String.init) == [
          "doppel.json:2:34: stubs[0].drift: expected true or false, found the string \"yes\".",
          "doppel.json:3:25: stubs[1]: unknown key \"drfit\". Did you mean \"drift\"? The keys of a stub are: name, request, response, times, requiresState, setsState, stateMachine, drift.",
          "doppel drift: nothing was sent, since not every file could be read.",
        ])
    }

    @Test func badInputIsAUsageOrReadError() async throws {
      let directory = try temporaryDirectory(holding: ["api.har": Self.cassette, "broken.har": "{"])
      let noBase = try await DoppelProcess.run(["drift", "api.har"], directory: directory)
      #expect(noBase.status == 64)
      #expect(noBase.error.contains("Missing expected argument '--against <url>'"))
      let badPath = try await DoppelProcess.run(
        ["drift", "api.har", "--against", "http://127.0.0.1:1", "--ignore", "$.a[x]"], directory: directory)
      #expect(badPath.status == 64)
      #expect(
        badPath.error.contains(
          "--ignore $.a[x] is not a JSON path: write [*] for every element, or [\"name\"] for a field."))
      let badHeader = try await DoppelProcess.run(
        ["drift", "api.har", "--against", "http://127.0.0.1:1", "--header", "Authorization Bearer s3cr3t-value"],
        directory: directory)
      #expect(badHeader.status == 64)
      #expect(badHeader.error.contains("--header Authorization… is not a header field; write it as 'Name: value'."))
      #expect(!badHeader.error.contains("s3cr3t"))
      let unreadable = try await DoppelProcess.run(
        ["drift", "api.har", "broken.har", "--against", "http://127.0.0.1:1"], directory: directory)
      #expect(unreadable.status == 2)
      #expect(unreadable.output.isEmpty)
      #expect(unreadable.error.contains("broken.har"))
      #expect(unreadable.error.hasSuffix("doppel drift: nothing was sent, since not every file could be read."))
    }
  }
#endif
