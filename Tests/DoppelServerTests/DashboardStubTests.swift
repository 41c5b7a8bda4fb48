#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Issue 48, point 3: the dashboard's "Save as stub" (`POST /__doppel/saved-stubs`) serves a stub
  /// at once and writes it into a manifest in the folder the server was given, and nowhere else;
  /// an added stub is replaced (`PUT /__doppel/stubs/{id}`) or removed. Every new endpoint keeps
  /// the admin API's trust rules.
  @Suite(.timeLimit(.minutes(1))) struct DashboardStubTests {
    /// A folder of its own for one test, removed by `body`'s caller.
    private func temporaryFolder() throws -> URL {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "doppel-saved-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      // The path as the server shows it: links followed (/tmp may be one).
      return URL(fileURLWithPath: FileContainment.realPath(folder) ?? folder.path, isDirectory: true)
    }

    private func withServer(
      saving: Bool = true, token: String? = nil, maximumBodySize: Int? = nil,
      _ body: (StubServer, URL) async throws -> Void
    ) async throws {
      let root = try temporaryFolder()
      defer { try? FileManager.default.removeItem(at: root) }
      let folder = root.appendingPathComponent("saved", isDirectory: true)
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      var configuration = StubServer.Configuration()
      if saving { configuration.admin.savedStubsDirectory = folder }
      configuration.admin.token = token
      if let maximumBodySize { configuration.maximumBodySize = maximumBodySize }
      let backend = quietBackend()
      backend.stub(.get("/greeting"), .json(["greeting": "hello"]), name: "greeting")
      try await withStubServer(backend, configuration: configuration) { server in try await body(server, folder) }
    }

    private func admin(
      _ server: StubServer, _ method: String, _ path: String, _ body: String? = nil, headers: [String: String] = [:]
    ) async throws -> (status: Int, json: JSONValue) {
      var all = headers
      if body != nil && all["Content-Type"] == nil { all["Content-Type"] = "application/json" }
      let (text, response) = try await fetch(
        server.url("/__doppel/" + path), method: method, headers: all, body: body.map { Data($0.utf8) })
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
      return (response.statusCode, try JSONValue(parsing: Data(text.utf8)))
    }

    private func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    private static let userStub =
      #"{"name": "user", "request": "GET /users/{id}", "response": {"status": 200, "headers": {"X-Source": "saved"}, "json": {"id": 42, "tags": ["a"]}}}"#

    @Test func aSavedStubIsServedAtOnceAndWrittenIntoAManifestInTheFolder() async throws {
      try await withServer { server, folder in
        let (missed, _) = try await fetch(server.url("/users/42"))
        #expect(missed.hasPrefix("No stub matched GET"))
        let saved = try await admin(
          server, "POST", "saved-stubs", #"{"file": "saved.json", "stub": \#(Self.userStub)}"#)
        #expect(saved.status == 201, "\(saved.json)")
        let file = folder.appendingPathComponent("saved.json")
        #expect(saved.json["file"] == "saved.json")
        #expect(saved.json["path"] == .string(file.path))
        #expect(saved.json["line"] == 3)
        #expect(saved.json["stub"]?["location"] == "saved.json:3")
        #expect(saved.json["stub"]?["source"] == "admin")
        #expect(saved.json["stub"]?["name"] == "user")

        // Served at once, with the template matching any id.
        let (body, response) = try await fetch(server.url("/users/7"))
        #expect(response.statusCode == 200)
        #expect(try JSONValue(parsing: Data(body.utf8)) == ["id": 42, "tags": ["a"]])
        #expect(response.value(forHTTPHeaderField: "X-Source") == "saved")

        // Written as a manifest, keys in the order sent.
        #expect(
          try text(file) == """
            {
              "stubs": [
                {
                  "name": "user",
                  "request": "GET /users/{id}",
                  "response": {
                    "status": 200,
                    "headers": {
                      "X-Source": "saved"
                    },
                    "json": {
                      "id": 42,
                      "tags": [
                        "a"
                      ]
                    }
                  }
                }
              ]
            }

            """)

        // A second stub goes at the end of the same file; the manifest serves both as written.
        let second = try await admin(
          server, "POST", "saved-stubs",
          #"{"file": "saved.json", "stub": {"request": "DELETE /users/{id}", "response": {"status": 204}}}"#)
        #expect(second.status == 201, "\(second.json)")
        #expect(second.json["stubs"] == 2)
        #expect(second.json["line"] == 19)
        let manifest = try Manifest.load(contentsOf: file)
        #expect(try Backend(manifest: manifest, issueReporter: .ignore).stubs.count == 2)
        let replayed = try Backend(manifest: manifest, issueReporter: .ignore)
        var request = URLRequest(url: URL(string: "http://127.0.0.1/users/9")!)
        let (data, _) = try await replayed.respond(to: request)
        #expect(try JSONValue(parsing: data) == ["id": 42, "tags": ["a"]])
        request.httpMethod = "DELETE"
        let (_, deleted) = try await replayed.respond(to: request)
        #expect(deleted.statusCode == 204)

        let listed = try await admin(server, "GET", "saved-stubs")
        #expect(listed.json == ["folder": .string(folder.path), "files": ["saved.json"]])
      }
    }

    @Test func savingKeepsTheManifestsOtherKeysAndRefusesAFileThatIsNoManifest() async throws {
      try await withServer { server, folder in
        let file = folder.appendingPathComponent("orders.json")
        try Data(
          #"{"description": "orders", "stubs": [{"request": "GET /orders", "response": {"json": []}}], "scenarios": {"none": {"stubs": []}}}"#
            .utf8
        ).write(to: file)
        let saved = try await admin(
          server, "POST", "saved-stubs",
          #"{"file": "orders.json", "stub": {"request": "GET /orders/{id}", "response": {"text": "one"}}}"#)
        #expect(saved.status == 201, "\(saved.json)")
        let manifest = try Manifest.load(contentsOf: file)
        #expect(try Backend(manifest: manifest, issueReporter: .ignore).stubs.count == 2)
        #expect(manifest.scenarioNames == ["none"])
        #expect(manifest.description == "orders")

        try Data("{ not json".utf8).write(to: folder.appendingPathComponent("broken.json"))
        let refused = try await admin(
          server, "POST", "saved-stubs",
          #"{"file": "broken.json", "stub": {"request": "GET /x", "response": {"status": 204}}}"#)
        #expect(refused.status == 409)
        let message = try #require(refused.json["error"]?.textValue)
        #expect(message.hasPrefix("broken.json is not a manifest this server can add a stub to: "))
        #expect(message.hasSuffix("Save the stub into another file, or make broken.json a manifest again."))
        #expect(try text(folder.appendingPathComponent("broken.json")) == "{ not json")
        // Nothing was served either.
        let (_, response) = try await fetch(server.url("/x"))
        #expect(response.statusCode == 404)
      }
    }

    @Test func aSavedStubHoldsNoSecret() async throws {
      try await withServer { server, folder in
        let stub = #"""
          {"request": {"method": "GET", "url": "/me", "headers": {"Authorization": "Bearer sk_live_4f9a8b7c6d5e4f3a2b1c"}},
           "response": {"headers": {"Set-Cookie": "session=9f8e7d6c5b4a39281706f5e4d3c2b1a0"}, "json": {"name": "Ada"}}}
          """#
        let saved = try await admin(server, "POST", "saved-stubs", #"{"file": "me.json", "stub": \#(stub)}"#)
        #expect(saved.status == 201, "\(saved.json)")
        let written = try text(folder.appendingPathComponent("me.json"))
        #expect(!written.contains("sk_live_4f9a8b7c6d5e4f3a2b1c"))
        #expect(!written.contains("9f8e7d6c5b4a39281706f5e4d3c2b1a0"))
        #expect(written.contains(#""Authorization": "REDACTED""#))
        #expect(written.contains(#""name": "Ada""#))
      }
    }

    @Test func withoutAFolderSavingIsRefusedNamingTheOption() async throws {
      try await withServer(saving: false) { server, folder in
        let refused = try await admin(
          server, "POST", "saved-stubs", #"{"file": "saved.json", "stub": \#(Self.userStub)}"#)
        #expect(refused.status == 409)
        #expect(
          refused.json["error"]
            == "This server has no folder to save stubs in. Start it with one: doppel serve --save-stubs-to DIR (StubServer.AdminAPI.savedStubsDirectory). To serve a stub without saving it, POST /__doppel/stubs."
        )
        #expect(try await admin(server, "GET", "saved-stubs").json == ["folder": nil, "files": []])
        let (_, response) = try await fetch(server.url("/users/1"))
        #expect(response.statusCode == 404)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
      }
    }

    @Test func aFileNameThatLeadsOutOfTheFolderIsRefused() async throws {
      try await withServer { server, folder in
        let outside = folder.deletingLastPathComponent()
        let stub = #"{"request": "GET /x", "response": {"status": 204}}"#
        func save(_ name: String) async throws -> (status: Int, error: String?) {
          let encoded = JSONValue.string(name).description
          let answer = try await admin(server, "POST", "saved-stubs", #"{"file": \#(encoded), "stub": \#(stub)}"#)
          return (answer.status, answer.json["error"]?.textValue)
        }
        let fix = "Name a .json file inside the folder for saved stubs (\(folder.path)), such as \"saved.json\"."
        #expect(
          try await save("../escaped.json")
            == (
              403,
              "request body: file: \"../escaped.json\" is outside the folder for saved stubs (\(folder.path)): \"..\" leads out of it. \(fix)"
            ))
        let absolute = outside.appendingPathComponent("absolute.json").path
        #expect(
          try await save(absolute)
            == (
              403,
              "request body: file: \"\(absolute)\" is outside the folder for saved stubs (\(folder.path)): it is an absolute path outside it. \(fix)"
            ))
        // A link inside the folder that leads out of it, to a file or to a folder.
        try Data("{}".utf8).write(to: outside.appendingPathComponent("target.json"))
        try FileManager.default.createSymbolicLink(
          at: folder.appendingPathComponent("link.json"),
          withDestinationURL: outside.appendingPathComponent("target.json"))
        try FileManager.default.createSymbolicLink(
          at: folder.appendingPathComponent("away"), withDestinationURL: outside)
        #expect(
          try await save("link.json")
            == (
              403,
              "request body: file: \"link.json\" is outside the folder for saved stubs (\(folder.path)): a symbolic link leads out of it, to \(outside.appendingPathComponent("target.json").path). \(fix)"
            ))
        #expect(try await save("away/through.json").status == 403)
        #expect(
          try await save("notes.txt")
            == (
              400,
              #"request body: file: "notes.txt" is not a manifest's name: a saved stub goes into a .json file whose name has letters, digits, ".", "_" and "-" only and does not start with a dot. "#
                + fix
            ))
        try FileManager.default.createDirectory(
          at: folder.appendingPathComponent("users"), withIntermediateDirectories: false)
        #expect(
          try await save("users/list.json")
            == (
              400,
              "request body: file: \"users/list.json\" names a subfolder; a saved stub goes into a file directly in the folder. \(fix)"
            ))
        #expect(try await save(".hidden.json").status == 400)
        #expect(try await save("").status == 400)
        #expect(try await save("a\u{0}b.json").status == 400)
        // Nothing was written anywhere, inside or out.
        #expect(try text(outside.appendingPathComponent("target.json")) == "{}")
        #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("escaped.json").path))
        #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("absolute.json").path))
        #expect(!FileManager.default.fileExists(atPath: outside.appendingPathComponent("through.json").path))
        #expect(
          try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["away", "link.json", "users"])
        #expect(
          try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("users").path).isEmpty)
        #expect(try await save("user-list_2.json").status == 201)
      }
    }

    @Test func aBadBodyGetsAnErrorNamingTheKeyAndTheFix() async throws {
      try await withServer { server, folder in
        func error(_ body: String) async throws -> (status: Int, error: String?) {
          let answer = try await admin(server, "POST", "saved-stubs", body)
          return (answer.status, answer.json["error"]?.textValue)
        }
        let example =
          #"{"file": "saved.json", "stub": {"request": "GET /users/{id}", "response": {"json": {"id": 1}}}}"#
        #expect(
          try await error(#"{"fil": "a.json", "stub": {}}"#)
            == (400, #"request body: unknown key "fil". Did you mean "file"? The keys are: file, stub."#))
        #expect(
          try await error(#"{"stub": {"request": "/x", "response": {}}}"#)
            == (
              400,
              "request body: \"file\" must be the name of a manifest in the folder for saved stubs, such as \"saved.json\" (it is missing), as in \(example)."
            ))
        #expect(
          try await error(#"{"file": "a.json", "stub": [1]}"#)
            == (400, "request body: \"stub\" must be a manifest stub object (it is an array), as in \(example)."))
        #expect(try await error("[]") == (400, "request body: expected a JSON object such as \(example)."))
        let (status, message) = try await error(
          #"{"file": "a.json", "stub": {"request": "GET /x", "respons": {"status": 200}}}"#)
        #expect(status == 400)
        #expect(message?.hasPrefix("request body: stub:1:") == true)
        #expect(message?.contains(#"unknown key "respons". Did you mean "response"?"#) == true)
        // A saved stub holds its answer: it names no file.
        let (fileStatus, fileMessage) = try await error(
          #"{"file": "a.json", "stub": {"request": "GET /x", "response": {"file": "x.json"}}}"#)
        #expect(fileStatus == 403)
        #expect(fileMessage?.contains("may name no file") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
      }
    }

    @Test func anAddedStubIsReplacedOrRemovedAndAFilesStubIsNotReplaced() async throws {
      try await withServer { server, _ in
        let added = try await admin(server, "POST", "stubs", #"{"request": "GET /me", "response": {"text": "one"}}"#)
        #expect(added.status == 201)
        let id = try #require(added.json["id"]?.numberValue).intString
        let replaced = try await admin(
          server, "PUT", "stubs/\(id)", #"{"request": "GET /me", "response": {"status": 202, "text": "two"}}"#)
        #expect(replaced.status == 200, "\(replaced.json)")
        #expect(replaced.json["replaced"]?.numberValue?.intString == id)
        let newID = try #require(replaced.json["id"]?.numberValue).intString
        #expect(newID != id)
        #expect(replaced.json["definition"]?["response"]?["text"] == "two")
        let (body, response) = try await fetch(server.url("/me"))
        #expect(response.statusCode == 202 && body == "two")
        #expect(try await admin(server, "GET", "stubs/\(id)").status == 404)

        // A bad replacement changes nothing.
        let bad = try await admin(
          server, "PUT", "stubs/\(newID)", #"{"request": "GET /me", "response": {"status": 1}}"#)
        #expect(bad.status == 400)
        #expect(bad.json["error"]?.textValue?.hasPrefix("request body:1:") == true)
        #expect(try await fetch(server.url("/me")).body == "two")

        let files = try await admin(server, "GET", "stubs")
        let greeting = try #require(files.json["stubs"]?[0]?["id"]?.numberValue).intString
        let location = try #require(files.json["stubs"]?[0]?["location"]?.textValue)
        let refused = try await admin(
          server, "PUT", "stubs/\(greeting)", #"{"request": "GET /greeting", "response": {"text": "no"}}"#)
        #expect(refused.status == 409)
        #expect(
          refused.json["error"]
            == .string(
              "Stub \(greeting) comes from the files (\(location)): the admin API replaces only stubs added through it. Edit the file (the server reloads it), or add a stub over it with POST /__doppel/stubs."
            ))
        let missing = try await admin(server, "PUT", "stubs/999999", #"{"request": "GET /me", "response": {}}"#)
        #expect(missing.status == 404)

        // Removing is DELETE, as before.
        #expect(try await admin(server, "DELETE", "stubs/\(newID)").status == 200)
        #expect(try await fetch(server.url("/me")).response.statusCode == 404)
      }
    }

    @Test func theNewEndpointsKeepTheAdminAPIsTrustRules() async throws {
      try await withServer(token: "t0ken-for-saving", maximumBodySize: 4_096) { server, folder in
        let body = #"{"file": "saved.json", "stub": {"request": "GET /x", "response": {"status": 204}}}"#
        let token = ["Authorization": "Bearer t0ken-for-saving"]
        for (method, path) in [("POST", "saved-stubs"), ("PUT", "stubs/0"), ("GET", "saved-stubs")] {
          let sent = method == "GET" ? nil : body
          #expect(try await admin(server, method, path, sent).status == 401)
          var foreign = token
          foreign["Origin"] = "https://evil.example"
          #expect(try await admin(server, method, path, sent, headers: foreign).status == 403)
          var crossSite = token
          crossSite["Sec-Fetch-Site"] = "cross-site"
          #expect(try await admin(server, method, path, sent, headers: crossSite).status == 403)
          if method != "GET" {
            var plain = token
            plain["Content-Type"] = "text/plain"
            #expect(try await admin(server, method, path, sent, headers: plain).status == 415)
          }
        }
        // The server's body limit holds here too.
        let large =
          #"{"file": "saved.json", "stub": {"request": "GET /x", "response": {"text": "\#(String(repeating: "x", count: 8_192))"}}}"#
        let (_, tooLarge) = try await fetch(
          server.url("/__doppel/saved-stubs"), method: "POST",
          headers: token.merging(["Content-Type": "application/json"]) { $1 }, body: Data(large.utf8))
        #expect(tooLarge.statusCode == 413)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // With the token, from the server's own origin, it saves.
        var own = token
        own["Origin"] = server.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        #expect(try await admin(server, "POST", "saved-stubs", body, headers: own).status == 201)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("saved.json").path))
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

    fileprivate subscript(index: Int) -> JSONValue? {
      if case .array(let items) = self, items.indices.contains(index) { return items[index] }
      return nil
    }
  }

  extension Double {
    /// A whole number as JSON writes it: `12`, not `12.0`.
    fileprivate var intString: String { String(Int(self)) }
  }
#endif
