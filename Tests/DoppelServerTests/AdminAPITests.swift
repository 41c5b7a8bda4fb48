#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// The admin API through a real server in process: JSON in and out, exact error texts.
  @Suite(.timeLimit(.minutes(1))) struct AdminAPITests {
    /// A manifest with a login flow and an "empty" scenario.
    static let manifestText = #"""
      {
        "stubs": [
          { "name": "me", "request": "GET https://api.example.com/me", "response": { "status": 401 } },
          { "request": "POST https://api.example.com/login", "response": { "status": 204 }, "setsState": "loggedIn" },
          { "request": "GET https://api.example.com/me", "response": { "json": {"name": "Ada"} }, "requiresState": "loggedIn" }
        ],
        "scenarios": {
          "empty": { "stubs": [ { "request": "GET https://api.example.com/breeds", "response": { "json": [] } } ] }
        }
      }
      """#

    /// A server serving the manifest, with its admin API able to switch scenarios and reset.
    private func withManifestServer(
      journalLimit: Int? = nil, fixtureDirectory: URL? = nil, _ body: (StubServer) async throws -> Void
    ) async throws {
      let manifest = try Manifest(data: Data(Self.manifestText.utf8), url: URL(fileURLWithPath: "/tmp/doppel.json"))
      let backend = Backend(issueReporter: .ignore, journalLimit: journalLimit)
      try backend.addStubs(from: manifest, scenario: .base)
      var configuration = StubServer.Configuration()
      if let fixtureDirectory { configuration.admin.fixtureDirectory = fixtureDirectory }
      configuration.admin.files = StubServer.StubFiles(scenarioNames: manifest.scenarioNames) { scenario in
        try Backend(
          manifest: manifest, scenario: scenario.map(ScenarioSelection.named) ?? .base, issueReporter: .ignore)
      }
      try await withStubServer(backend, configuration: configuration) { server in try await body(server) }
    }

    /// Sends an admin request; returns the status and the JSON answer.
    private func admin(
      _ server: StubServer, _ method: String, _ path: String, _ body: String? = nil
    ) async throws -> (status: Int, json: JSONValue) {
      let (text, response) = try await fetch(
        server.url("/__doppel/" + path), method: method,
        headers: body == nil ? [:] : ["Content-Type": "application/json"], body: body.map { Data($0.utf8) })
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
      return (response.statusCode, try JSONValue(parsing: Data(text.utf8)))
    }

    private func error(_ answer: (status: Int, json: JSONValue)) -> String? {
      if case .object(let object) = answer.json, case .string(let message)? = object["error"] { return message }
      return nil
    }

    @Test func theJournalAsHARHasWhatEachClientGotAndReplaysTheSame() async throws {
      try await withManifestServer { server in
        let paths = [("GET", "/me"), ("POST", "/login"), ("GET", "/me"), ("GET", "/nope")]
        var before: [String] = []
        for (method, path) in paths {
          let (body, response) = try await fetch(server.url(path), method: method)
          before.append("\(response.statusCode) \(body)")
        }
        let cassette = try await DoppelRemote(server.baseURL).journalHAR()
        #expect(cassette.entries.map(\.request.method) == ["GET", "POST", "GET", "GET"])
        #expect(cassette.entries.map(\.response.status) == [401, 204, 200, 404])
        #expect(cassette.entries[3].response.content.text?.hasPrefix("No stub matched GET") == true)

        // Replayed in process: the same answers, in the same order.
        let player = Backend(issueReporter: .ignore)
        try player.replay(cassette)
        var after: [String] = []
        for (method, path) in paths {
          var request = URLRequest(url: URL(string: "https://api.example.com\(path)")!)
          request.httpMethod = method
          let (data, response) = try await player.respond(to: request)
          after.append("\(response.statusCode) \(String(decoding: data, as: UTF8.self))")
        }
        #expect(after == before)
      }
    }

    /// A colon followed by an emoji modifier is one Swift character: the location is still split
    /// at its colons, as the admin API's description says (schemathesis found it).
    @Test func aLocationIsSplitAtItsColonsWhateverFollowsThem() async throws {
      try await withManifestServer { server in
        let body = #"{"request": "GET /located", "response": {"text": "ok"}}"#
        let modified = try await admin(server, "POST", "stubs?location=m:908:%F0%9F%8F%BB", body)
        #expect(modified.status == 201)
        #expect(modified.json["location"] == "m:908")
        let wrong = try await admin(server, "POST", "stubs?location=m:x", body)
        #expect(wrong.status == 400)
        #expect(error(wrong) == #"query: location: "m:x" is not a source location; write it as File.swift:42."#)
      }
    }

    @Test func aStubAddedAtRunTimeAnswersOverTheFilesAndIsListed() async throws {
      try await withManifestServer { server in
        #expect(try await fetch(server.url("/me")).response.statusCode == 401)
        let added = try await admin(
          server, "POST", "stubs", #"{"name": "ok me", "request": "GET /me", "response": {"json": {"name": "Bo"}}}"#)
        #expect(added.status == 201)
        #expect(added.json["source"] == "admin")
        #expect(added.json["location"] == "admin:1")
        let (body, response) = try await fetch(server.url("/me"))
        #expect(response.statusCode == 200)
        #expect(body == #"{"name":"Bo"}"#)

        let list = try await admin(server, "GET", "stubs")
        guard case .array(let stubs)? = list.json["stubs"] else { throw DoppelError("no stubs array") }
        #expect(stubs.count == 4)
        #expect(stubs.last?["name"] == "ok me")
        #expect(stubs.last?["callCount"] == 1)

        let removed = try await admin(server, "DELETE", "stubs")
        #expect(removed.json == ["removed": 1])
        #expect(try await fetch(server.url("/me")).response.statusCode == 401)
      }
    }

    @Test func aTemplatedStubAddedAtRunTimeFillsInTheRequest() async throws {
      try await withManifestServer { server in
        let added = try await admin(
          server, "POST", "stubs",
          #"{"request": "GET /users/{id}", "response": {"template": true, "json": {"id": "{{path.id}}"}}}"#)
        #expect(added.status == 201)
        #expect(try await fetch(server.url("/users/42")).body == #"{"id":"42"}"#)
        let typo = try await admin(
          server, "POST", "stubs",
          #"{"request": "GET /users/{id}", "response": {"template": true, "text": "{{path.ID}}"}}"#)
        #expect(
          error(typo)
            == #"request body:1:72: response.text: unknown template variable "{{path.ID}}". Did you mean "{{path.id}}"? The request's path parameters are: id."#
        )
      }
    }

    @Test func aTemplatedFileAddedAtRunTimeIsRenderedForEachRequest() async throws {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "doppel-admin-template-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let file = folder.appendingPathComponent("user.json")
      try Data(#"{"id": "{{path.id}}", "q": "{{query.q}}"}"#.utf8).write(to: file)
      try await withManifestServer(fixtureDirectory: folder) { server in
        let added = try await admin(
          server, "POST", "stubs",
          #"{"request": "GET /users/{id}", "response": {"file": "user.json", "template": true}}"#)
        #expect(added.status == 201)
        let (first, response) = try await fetch(server.url("/users/1?q=a%22b"))
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(first == #"{"id": "1", "q": "a\"b"}"#)
        #expect(try await fetch(server.url("/users/2")).body == #"{"id": "2", "q": ""}"#)
        // An edit is served at once, and checked when it is read.
        try Data("{{path.ID}}".utf8).write(to: file)
        let (broken, brokenResponse) = try await fetch(server.url("/users/3"))
        #expect(brokenResponse.statusCode == 500)
        #expect(
          broken
            == #"Doppel could not answer with the stub: The template file \#(file.path):1:1: unknown template variable "{{path.ID}}". Did you mean "{{path.id}}"? The request's path parameters are: id.\#n"#
        )
        let typo = try await admin(
          server, "POST", "stubs", #"{"request": "GET /u/{id}", "response": {"file": "user.json", "template": true}}"#)
        #expect(typo.status == 400)
        #expect(
          error(typo)
            == #"request body:1:49: response.file: \#(file.path):1:1: unknown template variable "{{path.ID}}". Did you mean "{{path.id}}"? The request's path parameters are: id."#
        )
      }
    }

    @Test func aStubReachingBeyondWhatTheServerAllowsIsForbiddenNotMalformed() async throws {
      try await withManifestServer { server in
        let file = try await admin(
          server, "POST", "stubs", #"{"request": "/a", "response": {"file": "/etc/passwd"}}"#)
        #expect(file.status == 403)
        #expect(
          error(file)
            == #"request body:1:40: response.file: a stub added through the admin API may name no file: the server has no folder for its files. Start the server with one (doppel serve --admin-files DIR, or StubServer.AdminAPI.fixtureDirectory) and name a file inside it, or send the body as "json" or "text"."#
        )
        let proxy = try await admin(
          server, "POST", "stubs", #"{"request": "/a", "response": {"proxy": "http://127.0.0.1:9"}}"#)
        #expect(proxy.status == 403)
        #expect(
          error(proxy)
            == #"request body:1:41: response.proxy: a stub added through the admin API may proxy only to the hosts the server allows (none), and 127.0.0.1 is not one. Start the server with --admin-proxy 127.0.0.1 (StubServer.AdminAPI.proxyHosts) to allow it."#
        )
        // Bounds the other way round name the same range, as the document says: accepted.
        let swapped = try await admin(
          server, "POST", "stubs",
          #"{"request": "/a", "response": {"delay": {"uniform": {"min": 2, "max": 1}}}}"#)
        #expect(swapped.status == 201)
        // As the document describes, but unusable in a way a schema cannot say: 422.
        let regex = try await admin(server, "POST", "stubs", #"{"request": {"pathRegex": "("}, "response": {}}"#)
        #expect(regex.status == 422)
        let verifyRegex = try await admin(server, "POST", "verify", #"{"request": {"pathRegex": "("}}"#)
        #expect(verifyRegex.status == 422)
        // With a mistake of another kind as well, the request is malformed: 400.
        let both = try await admin(
          server, "POST", "stubs", #"{"request": "/a", "response": {"file": "/etc/passwd"}, "tims": 1}"#)
        #expect(both.status == 400)
      }
    }

    @Test func oneStubIsRemovedByItsID() async throws {
      try await withManifestServer { server in
        let added = try await admin(server, "POST", "stubs", #"{"request": "GET /x", "response": {"status": 418}}"#)
        guard case .number(let id)? = added.json["id"] else { throw DoppelError("no id") }
        #expect(try await admin(server, "DELETE", "stubs/\(Int(id))").status == 200)
        let again = try await admin(server, "DELETE", "stubs/\(Int(id))")
        #expect(again.status == 404)
        #expect(
          error(again)
            == "There is no stub \(Int(id)): it was removed, or the files were reloaded (which numbers the stubs again). GET /__doppel/stubs lists the stubs."
        )
      }
    }

    @Test func aBadStubGetsTheManifestMessageWithPositionAndKeyPath() async throws {
      try await withManifestServer { server in
        let badStatus = try await admin(
          server, "POST", "stubs", #"{"request": "GET /x", "response": {"status": 999}}"#)
        #expect(badStatus.status == 400)
        #expect(
          error(badStatus)
            == "request body:1:46: response.status: expected an HTTP status from 100 to 599, found the number 999, which is too large."
        )
        let typo = try await admin(server, "POST", "stubs", #"{"request": "GET /x", "respons": {}}"#)
        #expect(
          error(typo)
            == #"request body:1:23: unknown key "respons". Did you mean "response"? The keys of a stub are: name, request, response, times, requiresState, setsState, stateMachine, drift."#
        )
        let malformed = try await admin(server, "POST", "stubs", #"{"request": "GET /x",}"#)
        #expect(error(malformed)?.hasPrefix("request body:1:22: malformed JSON: ") == true)
        let empty = try await admin(server, "POST", "stubs")
        #expect(error(empty) == "request body:1:1: malformed JSON: the body is empty.")
        // Nothing was added.
        guard case .array(let stubs)? = try await admin(server, "GET", "stubs").json["stubs"] else { return }
        #expect(stubs.count == 3)
      }
    }

    @Test func theScenarioSwitchesAndKeepsRunTimeStubs() async throws {
      try await withManifestServer { server in
        #expect(try await admin(server, "GET", "scenario").json == ["active": nil, "scenarios": ["empty"]])
        #expect(try await fetch(server.url("/breeds")).response.statusCode == 404)
        _ = try await admin(server, "POST", "stubs", #"{"request": "GET /x", "response": {"status": 418}}"#)
        let switched = try await admin(server, "PUT", "scenario", #"{"scenario": "empty"}"#)
        #expect(switched.json == ["active": "empty", "scenarios": ["empty"]])
        #expect(try await fetch(server.url("/breeds")).body == "[]")
        #expect(try await fetch(server.url("/x")).response.statusCode == 418)

        let typo = try await admin(server, "PUT", "scenario", #"{"scenario": "emtpy"}"#)
        #expect(typo.status == 404)
        #expect(
          error(typo)
            == #"request body: scenario: there is no scenario "emtpy". Did you mean "empty"? The scenarios are: empty."#
        )
        let wrongKey = try await admin(server, "PUT", "scenario", #"{"senario": "empty"}"#)
        #expect(
          error(wrongKey) == #"request body: unknown key "senario". Did you mean "scenario"? The keys are: scenario."#)
        _ = try await admin(server, "PUT", "scenario", #"{"scenario": null}"#)
        #expect(try await fetch(server.url("/breeds")).response.statusCode == 404)
      }
    }

    @Test func theStateIsReadSetAndReset() async throws {
      try await withManifestServer { server in
        #expect(try await admin(server, "GET", "state").json["state"] == "initial")
        _ = try await fetch(server.url("/login"), method: "POST")
        #expect(try await admin(server, "GET", "state").json["state"] == "loggedIn")
        #expect(try await fetch(server.url("/me")).response.statusCode == 200)
        #expect(try await admin(server, "DELETE", "state").json["state"] == "initial")
        #expect(try await fetch(server.url("/me")).response.statusCode == 401)
        #expect(try await admin(server, "PUT", "state", #"{"state": "loggedIn"}"#).json["state"] == "loggedIn")
        #expect(try await fetch(server.url("/me")).response.statusCode == 200)
        let bad = try await admin(server, "PUT", "state", #"{"state": ""}"#)
        #expect(
          error(bad)
            == #"request body: "state" must be a state name (a non-empty string), as in {"state": "loggedIn"}."#)
      }
    }

    @Test func aJournalRedactionHidesSecretsFromTheJournalAndItsHAR() async throws {
      let backend = quietBackend()
      backend.stub(.post("/login"), .status(204))
      var configuration = StubServer.Configuration()
      configuration.admin.journalRedaction = .default
      try await withStubServer(backend, configuration: configuration) { server in
        _ = try await fetch(
          server.url("/login?code=abc123xyz"), method: "POST", headers: ["Authorization": "Bearer s3cret-t0ken"],
          body: Data(#"{"password":"hunter2"}"#.utf8))
        let journal = try await admin(server, "GET", "requests")
        guard case .array(let entries)? = journal.json["requests"] else { throw DoppelError("no requests") }
        #expect(entries.count == 1)
        #expect(entries[0]["url"]?.description.contains("abc123xyz") == false)
        #expect(entries[0]["headers"]?.description.contains("s3cret-t0ken") == false)
        #expect(entries[0]["body"]?.description.contains("hunter2") == false)
        let har = try await DoppelRemote(server.baseURL).journalHAR()
        #expect(har.entries.count == 1)
        #expect(har.entries.first?.request.headers.contains { $0.value.contains("s3cret-t0ken") } == false)
      }
    }

    @Test func theJournalIsFilteredAndAdminRequestsAreNotInIt() async throws {
      try await withManifestServer { server in
        _ = try await fetch(server.url("/me"), headers: ["Accept": "application/json"])
        _ = try await fetch(server.url("/login"), method: "POST", body: Data([0xFF, 0x00]))
        _ = try await fetch(server.url("/users/7"), method: "PUT", body: Data(#"{"a":1}"#.utf8))
        _ = try await admin(server, "GET", "stubs")

        let all = try await admin(server, "GET", "requests")
        guard case .array(let entries)? = all.json["requests"] else { throw DoppelError("no requests") }
        #expect(entries.count == 3)
        #expect(all.json["next"] == 3)
        #expect(entries[0]["stub"] == ["id": 0, "location": "doppel.json:3", "name": "me"])
        #expect(entries[0]["status"] == 401)
        #expect(entries[1]["body"] == ["base64": "/wA="])
        #expect(entries[2]["body"] == ["text": #"{"a":1}"#])
        #expect(entries[2]["matched"] == false)
        // The status the client received: the server's 404 for a request no stub matched.
        #expect(entries[2]["status"] == 404)
        let remote = try await DoppelRemote(server.baseURL).journal().entries
        #expect(remote[2].description == "PUT https://api.example.com/users/7 → 404 (no stub matched)")
        #expect(
          entries[2]["nearMiss"]?.description.contains("No stub matched PUT https://api.example.com/users/7") == true)

        let template = try await admin(server, "GET", "requests?path=/users/%7Bid%7D&method=put")
        #expect(template.json["requests"]?.arrayCount == 1)
        let glob = try await admin(server, "GET", "requests?path=/*")
        #expect(glob.json["requests"]?.arrayCount == 2)
        let deepGlob = try await admin(server, "GET", "requests?path=/**")
        #expect(deepGlob.json["requests"]?.arrayCount == 3)
        let header = try await admin(server, "GET", "requests?header=Accept:%20application/json")
        #expect(header.json["requests"]?.arrayCount == 1)
        let since = try await admin(server, "GET", "requests?since=2")
        #expect(since.json["requests"]?.arrayCount == 1)

        let typo = try await admin(server, "GET", "requests?methd=GET")
        #expect(
          error(typo)
            == #"query: unknown parameter "methd". Did you mean "method"? The parameters are: method, path, header, status, matched, text, from, to, since, limit, last, before."#
        )
        let negative = try await admin(server, "GET", "requests?since=-1")
        #expect(
          error(negative)
            == #"query: since: "-1" is not an entry number. Pass 0 to 9007199254740991: the "next" of an earlier answer."#
        )
        let beyond = try await admin(server, "GET", "requests?since=9007199254740992")
        #expect(beyond.status == 400)
        #expect(
          error(beyond)
            == #"query: since: "9007199254740992" is not an entry number. Pass 0 to 9007199254740991: the "next" of an earlier answer."#
        )
      }
    }

    @Test func verifyCountsAndReportsTheClosestRequests() async throws {
      try await withManifestServer { server in
        _ = try await fetch(server.url("/me"))
        let ok = try await admin(server, "POST", "verify", #"{"request": "GET /me", "count": 1}"#)
        #expect(ok.json["ok"] == true)
        #expect(ok.json["count"] == 1)
        let missed = try await admin(server, "POST", "verify", #"{"request": "GET /mee", "count": 1}"#)
        #expect(missed.status == 200)
        #expect(missed.json["ok"] == false)
        #expect(
          missed.json["report"]
            == .string(
              """
              Expected exactly 1 request matching GET /mee; found 0 among the 1 request in the journal.
              Closest requests:
                1. GET https://api.example.com/me
                     ✓ method GET
                     ✗ path   expected "/mee", got "/me"
              """))
        let bad = try await admin(server, "POST", "verify", #"{"request": "GET /me", "count": -1}"#)
        #expect(bad.status == 400)
        #expect(
          error(bad)
            == "request body:1:33: count: expected a number of requests (0 to 9007199254740991), found the number -1, which is too small."
        )
        let missing = try await admin(server, "POST", "verify", #"{"count": 1}"#)
        #expect(
          error(missing)
            == #"request body:1:1: "request" is missing: the requests to count, written as a manifest stub's request, such as "GET /me" or {"method": "POST", "url": "/orders"}."#
        )
      }
    }

    @Test func verifyRefusesACountBeyondTheDocumentsLimit() async throws {
      try await withManifestServer { server in
        let largest = try await admin(
          server, "POST", "verify", #"{"request": "GET /me", "atLeast": 0, "atMost": 9007199254740991}"#)
        #expect(largest.status == 200)
        #expect(largest.json["ok"] == true)
        for key in ["count", "atLeast", "atMost"] {
          let body = #"{"request": "GET /me", "\#(key)": 9007199254740992}"#
          let tooLarge = try await admin(server, "POST", "verify", body)
          #expect(tooLarge.status == 400)
          #expect(
            error(tooLarge)
              == "request body:1:\(28 + key.count): \(key): expected a number of requests (0 to 9007199254740991), found the number 9007199254740992, which is too large."
          )
        }
      }
    }

    @Test func aRangeNoCountFitsFailsTheVerificationAndSaysToSwap() async throws {
      try await withManifestServer { server in
        let swapped = try await admin(server, "POST", "verify", #"{"request": "GET /me", "atLeast": 3, "atMost": 1}"#)
        #expect(swapped.status == 200)
        #expect(swapped.json["ok"] == false)
        #expect(swapped.json["report"] == "atMost (1) is below atLeast (3): no count passes. Swap them.")
      }
    }

    @Test func resetGoesBackToTheFiles() async throws {
      try await withManifestServer { server in
        _ = try await admin(server, "PUT", "scenario", #"{"scenario": "empty"}"#)
        _ = try await admin(server, "POST", "stubs", #"{"request": "GET /x", "response": {"status": 418}}"#)
        _ = try await fetch(server.url("/login"), method: "POST")
        let reset = try await admin(server, "POST", "reset")
        #expect(reset.json["stubs"] == 3)
        #expect(reset.json["requests"] == 0)
        #expect(try await admin(server, "GET", "state").json["state"] == "initial")
        #expect(try await admin(server, "GET", "scenario").json["active"] == .null)
        #expect(try await fetch(server.url("/x")).response.statusCode == 404)
      }
    }

    @Test func unknownEndpointsAndMethodsAreRefusedWithTheFix() async throws {
      try await withManifestServer { server in
        let unknown = try await admin(server, "GET", "stub")
        #expect(unknown.status == 404)
        #expect(
          error(unknown)
            == "/__doppel/stub is not an admin endpoint. Did you mean /__doppel/stubs? The endpoints are: /__doppel/stubs, /__doppel/saved-stubs, /__doppel/scenario, /__doppel/state, /__doppel/requests, /__doppel/requests.har, /__doppel/verify, /__doppel/reset (see Schemas/doppel-admin.openapi.yaml)."
        )
        let (_, response) = try await fetch(server.url("/__doppel/reset"), method: "GET")
        #expect(response.statusCode == 405)
        #expect(response.value(forHTTPHeaderField: "Allow") == "POST")
      }
    }

    @Test func withoutFilesThereAreNoScenariosAndResetKeepsTheCodeStubs() async throws {
      let backend = quietBackend()
      backend.stub(.get("/a"), .text("a"))
      try await withStubServer(backend) { server in
        let refused = try await admin(server, "PUT", "scenario", #"{"scenario": "empty"}"#)
        #expect(refused.status == 409)
        #expect(
          error(refused)
            == "This server has no scenarios to switch to: it was started without files (StubServer.AdminAPI.files). Start it with doppel serve and a manifest that has scenarios."
        )
        _ = try await admin(server, "POST", "stubs", #"{"request": "GET /b", "response": {"text": "b"}}"#)
        _ = try await fetch(server.url("/b"))
        _ = try await admin(server, "POST", "reset")
        #expect(backend.stubs.count == 1)
        #expect(backend.journal.isEmpty)
      }
    }

    /// A stub added from outside with a pattern that backtracks exponentially, and a request
    /// crafted against it: the server answers at once with the near miss, which says why, instead of
    /// holding a thread for hours.
    @Test func aPatternThatBacktracksTooMuchDoesNotHoldTheServer() async throws {
      let backend = quietBackend()
      try await withStubServer(backend) { server throws in
        let added = try await admin(
          server, "POST", "stubs", #"{"request": {"pathRegex": "^/(a+)+$"}, "response": {"text": "a"}}"#)
        #expect(added.status == 201)
        let crafted = "/" + String(repeating: "a", count: 40) + "!"
        let (body, response) = try await fetch(server.url(crafted))
        #expect(response.statusCode == 404)
        #expect(
          body.contains(
            #"✗ path expected matching /^/(a+)+$/, got "\#(crafted)" (the regular expression /^/(a+)+$/ gave up after about 2.5 million steps on this text; it backtracks too much (nested quantifiers such as (a+)+ do): simplify it)"#
          ))
        #expect(try await fetch(server.url("/aaaa")).body == "a")
      }
    }

    /// A journal filter whose glob backtracks on every entry: the step budget is the request's, not
    /// each search's, so the filter is refused after a few entries with what to do instead.
    @Test func aJournalFilterThatBacktracksSpendsOneBudgetAndIsRefused() async throws {
      let backend = quietBackend()
      try await withStubServer(backend) { server throws in
        // Paths of their own: a pattern answers the text it last gave up on from memory, for free.
        for n in 0..<30 { _ = try await fetch(server.url("/" + String(repeating: "a", count: 40 + n))) }
        let glob = "/" + String(repeating: "a*", count: 12) + "b"
        let refused = try await admin(server, "GET", "requests?path=\(glob)")
        #expect(refused.status == 400)
        #expect(
          error(refused)
            == "query: path: the glob \"\(glob)\" spent the step budget of one request (about 10 million steps for regular expressions and globs per request) scanning 30 journal entries. Narrow the filter: a glob with fewer * (each one multiplies the backtracking), or since=, method= or header= to scan fewer entries."
        )
        // A glob that does not backtrack reads every entry.
        let plain = try await admin(server, "GET", "requests?path=/a*")
        #expect(plain.json["requests"]?.arrayCount == 30)
      }
    }

    @Test func theAdminPrefixIsConfigurableAndCanBeTurnedOff() async throws {
      let backend = quietBackend()
      var configuration = StubServer.Configuration()
      configuration.admin.pathPrefix = "/_admin/"
      try await withStubServer(backend, configuration: configuration) { server throws in
        #expect(try await fetch(server.url("/_admin/state")).body == #"{"machines":{},"state":"initial"}"# + "\n")
        #expect(try await fetch(server.url("/__doppel/state")).response.statusCode == 404)
      }
      configuration.admin.pathPrefix = nil
      try await withStubServer(backend, configuration: configuration) { server in
        let (body, response) = try await fetch(server.url("/_admin/state"))
        #expect(response.statusCode == 404)
        #expect(body.hasPrefix("No stub matched GET"))
      }
      configuration.admin.pathPrefix = "admin"
      await #expect(throws: DoppelError.self) {
        try await withStubServer(backend, configuration: configuration) { _ in }
      }
    }

    @Test func theAdminAPICanHaveAPortOfItsOwn() async throws {
      let backend = quietBackend()
      backend.stub(.get("/__doppel/state"), .text("the app's own path"))
      var configuration = StubServer.Configuration()
      configuration.admin.port = 0
      try await withStubServer(backend, configuration: configuration) { server throws in
        let adminURL = try #require(server.adminURL)
        #expect(adminURL.port != server.port)
        #expect(adminURL.absoluteString.hasSuffix(":\(adminURL.port!)/__doppel/"))
        // The main port serves stubs only, the prefix included.
        #expect(try await fetch(server.url("/__doppel/state")).body == "the app's own path")
        // The admin port serves the admin API only.
        let state = try await fetch(adminURL.appendingPathComponent("state"))
        #expect(state.body == #"{"machines":{},"state":"initial"}"# + "\n")
        let (other, response) = try await fetch(URL(string: "/breeds", relativeTo: adminURL)!.absoluteURL)
        #expect(response.statusCode == 404)
        #expect(
          other
            == #"{"error":"This port serves the admin API only, under /__doppel/. The stubs are served at http://127.0.0.1:\#(server.port)."}"#
            + "\n")
        // DoppelRemote talks to the admin port.
        let remote = DoppelRemote(URL(string: "http://127.0.0.1:\(adminURL.port!)")!)
        try await remote.stub(.get("/added"), .text("added at run time"))
        #expect(try await fetch(server.url("/added")).body == "added at run time")
      }
    }

    @Test func aBadAdminPortIsRefusedWithTheFix() async throws {
      var configuration = StubServer.Configuration()
      configuration.admin.port = 70_000
      await #expect(
        throws: DoppelError(
          "The admin API's port 70000 is not a TCP port. Use 1 to 65535, 0 to let the system choose, or nil to serve the admin API on the server's own port."
        )
      ) {
        try await withStubServer(quietBackend(), configuration: configuration) { _ in }
      }
      do {
        try await withStubServer(quietBackend(), configuration: configuration) { _ in }
      } catch let error as DoppelError {
        #expect(error.kind == .server)
      }
      configuration.admin.port = 0
      configuration.admin.pathPrefix = nil
      await #expect(
        throws: DoppelError(
          "The admin API has a port (0) but no path prefix, so it would answer nothing. Give it a prefix, such as /__doppel/, or set the port to nil."
        )
      ) {
        try await withStubServer(quietBackend(), configuration: configuration) { _ in }
      }
    }

    @Test func namedStateMachinesAreReadAndSet() async throws {
      let backend = quietBackend()
      backend.stub(.get("/basket"), .text("empty"))
      backend.stub(.get("/basket"), .text("full")).requiresState("full").stateMachine("basket")
      try await withStubServer(backend) { server in
        #expect(
          try await admin(server, "GET", "state").json == ["state": "initial", "machines": ["basket": "initial"]])
        let set = try await admin(server, "PUT", "state", #"{"machine": "basket", "state": "full"}"#)
        #expect(set.json == ["state": "initial", "machines": ["basket": "full"]])
        #expect(try await fetch(server.url("/basket")).body == "full")
        let bad = try await admin(server, "PUT", "state", #"{"machine": 3, "state": "full"}"#)
        #expect(
          error(bad)
            == #"request body: "machine" must be a state machine's name (a non-empty string), or absent for the main one."#
        )
        #expect(try await admin(server, "DELETE", "state").json["machines"] == ["basket": "initial"])
      }
    }

    @Test func aReloadedManifestRendersItsTemplatedFileAndABrokenOneKeepsTheOld() async throws {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "doppel-reload-template-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let manifestURL = folder.appendingPathComponent("doppel.json")
      func write(_ fixture: String) throws {
        try Data(
          #"{"stubs": [{"request": "GET /hi/{name}", "response": {"file": "\#(fixture)", "template": true}}]}"#.utf8
        )
        .write(to: manifestURL)
      }
      try Data("Hi {{path.name}}".utf8).write(to: folder.appendingPathComponent("hi.txt"))
      try Data("Bye\n{{path.nmae}}".utf8).write(to: folder.appendingPathComponent("bye.txt"))
      try write("hi.txt")
      let load: @Sendable (String?) throws -> Backend = { _ in
        try Backend(
          manifest: Manifest(data: Data(contentsOf: manifestURL), url: manifestURL), scenario: .base,
          issueReporter: .ignore)
      }
      var configuration = StubServer.Configuration()
      configuration.admin.files = StubServer.StubFiles(load: load)
      try await withStubServer(try load(nil), configuration: configuration) { server in
        #expect(try await fetch(server.url("/hi/Ann")).body == "Hi Ann")
        try write("bye.txt")
        #expect(
          throws: DoppelError(
            #"\#(manifestURL.path):1:63: stubs[0].response.file: \#(folder.appendingPathComponent("bye.txt").path):2:1: unknown template variable "{{path.nmae}}". Did you mean "{{path.name}}"? The request's path parameters are: name."#
          )
        ) { try server.reloadFiles() }
        // Still serving what the manifest said before.
        #expect(try await fetch(server.url("/hi/Bo")).body == "Hi Bo")
      }
    }

    @Test func aReloadKeepsTheStateWhileAStubStillUsesIt() async throws {
      try await withManifestServer { server in
        _ = try await fetch(server.url("/login"), method: "POST")
        #expect(try server.reloadFiles() == [])
        #expect(server.backend.state() == "loggedIn")
        server.backend.setState("gone")
        #expect(
          try server.reloadFiles() == [
            #"The state "gone" is not used by any stub any more; it was reset to "initial"."#
          ])
        #expect(server.backend.state() == "initial")
      }
    }
  }

  extension JSONValue {
    subscript(key: String) -> JSONValue? {
      if case .object(let object) = self { return object[key] }
      return nil
    }

    var arrayCount: Int? {
      if case .array(let items) = self { return items.count }
      return nil
    }
  }
#endif
