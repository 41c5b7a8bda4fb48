import Doppel
import Foundation
import TestSupport
import Testing

/// Templated responses whose template is a fixture file's text: `"file"` with `"template": true`,
/// and `Response.file(_:).templated()`.
@Suite struct FileTemplateTests {
  /// A fresh directory for a manifest and its fixtures, removed when `body` returns.
  private func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "doppel-file-template-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
  }

  private func backend(_ stubs: String, in folder: URL) throws -> Backend {
    let manifest = try Manifest(
      data: Data(#"{"stubs": [\#(stubs)]}"#.utf8), url: folder.appendingPathComponent("doppel.json"))
    return try Backend(manifest: manifest, scenario: .base, issueReporter: .ignore)
  }

  private static let user = """
    {
      "id": "{{path.id}}",
      "page": {{query.page}},
      "name": "{{json./name}}",
      "trace": "{{header.X-Trace}}"
    }

    """

  @Test func aTemplatedFileIsRenderedForEachRequest() async throws {
    try await withFolder { folder in
      try Data(Self.user.utf8).write(to: folder.appendingPathComponent("user.json"))
      let backend = try backend(
        #"{"request": "POST /users/{id}", "response": {"status": 201, "file": "user.json", "template": true}}"#,
        in: folder)
      let (first, response) = try await backend.send(
        .post, "https://api.example.com/users/7?page=2", headers: ["X-Trace": "abc"],
        body: Data(#"{"name": "Ann \"the cat\""}"#.utf8))
      #expect(response.statusCode == 201)
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
      #expect(
        first == """
          {
            "id": "7",
            "page": 2,
            "name": "Ann \\"the cat\\"",
            "trace": "abc"
          }

          """)
      var request = URLRequest(url: URL(string: "https://api.example.com/users/8?page=3")!)
      request.httpMethod = "POST"
      request.httpBody = Data(#"{"name": "Bo"}"#.utf8)
      let (second, secondResponse) = try await backend.respond(to: request)
      #expect(secondResponse.value(forHTTPHeaderField: "Content-Type") == "application/json")
      #expect(try JSONValue(parsing: second) == ["id": "8", "page": 3, "name": "Bo", "trace": ""])
    }
  }

  @Test func theContentTypeOfTheResponseDecidesHowValuesAreEscaped() async throws {
    try await withFolder { folder in
      try Data("Hello {{query.name}}, you rolled {{random.1-1}}.\n".utf8).write(
        to: folder.appendingPathComponent("greeting.txt"))
      let backend = try backend(
        #"""
        {"request": "/hello", "response": {"file": "greeting.txt", "template": {"seed": 3}, "contentType": "text/markdown"}}
        """#, in: folder)
      let (body, response) = try await backend.send(.get, "https://a.com/hello?name=%22Ann%22")
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/markdown")
      #expect(body == "Hello \"Ann\", you rolled 1.\n")
    }
  }

  @Test func concurrentRequestsEachGetTheirOwnRendering() async throws {
    try await withFolder { folder in
      try Data("item {{path.n}}".utf8).write(to: folder.appendingPathComponent("item.txt"))
      let backend = try backend(
        #"{"request": "/items/{n}", "response": {"file": "item.txt", "template": true}}"#, in: folder)
      let bodies = try await withThrowingTaskGroup(of: String.self) { group in
        for n in 0..<32 {
          group.addTask {
            let (data, _) = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/items/\(n)")!))
            return String(decoding: data, as: UTF8.self)
          }
        }
        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
      }
      #expect(bodies == Set((0..<32).map { "item \($0)" }))
    }
  }

  @Test func anEditedFileIsServedWithoutAReloadAndCheckedWhenRead() async throws {
    try await withFolder { folder in
      let file = folder.appendingPathComponent("page.html")
      try Data("<p>{{path.id}}</p>".utf8).write(to: file)
      let backend = try backend(
        #"{"request": "/pages/{id}", "response": {"file": "page.html", "template": true}}"#, in: folder)
      #expect(try await backend.send(.get, "https://a.com/pages/1").body == "<p>1</p>")
      try Data("<h1>{{path.id}}</h1>".utf8).write(to: file)
      #expect(try await backend.send(.get, "https://a.com/pages/2").body == "<h1>2</h1>")
      try Data("<h1>\n  {{path.di}}</h1>".utf8).write(to: file)
      do {
        _ = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/pages/3")!))
        Issue.record("expected the broken template to fail the request")
      } catch let error as DoppelError {
        #expect(
          error.message
            == #"The template file \#(file.path):2:3: unknown template variable "{{path.di}}". Did you mean "{{path.id}}"? The request's path parameters are: id."#
        )
      }
    }
  }

  @Test func anUnknownVariableInAFileIsALoadTimeErrorAtItsLineAndColumn() async throws {
    try await withFolder { folder in
      let file = folder.appendingPathComponent("user.json")
      try Data("{\n  \"id\": \"{{path.id}}\",\n  \"page\": \"{{qurey.page}}\"\n}\n".utf8).write(to: file)
      let manifest = folder.appendingPathComponent("doppel.json").path
      #expect(
        throws: DoppelError(
          #"\#(manifest):1:82: stubs[0].response.file: \#(file.path):3:12: unknown template variable "{{qurey.page}}". Did you mean "query"? The variables are: method, url, path, body, path.NAME, query.NAME, header.NAME, json./POINTER, now, now.FORMAT, uuid, random, random.MIN-MAX."#
        )
      ) {
        try backend(#"{"request": "GET /users/{id}", "response": {"template": true, "file": "user.json"}}"#, in: folder)
      }
      try Data("\"{{path.idd}}\"".utf8).write(to: file)
      #expect(
        throws: DoppelError(
          #"\#(manifest):1:85: stubs[0].response.sequence[1].file: \#(file.path):1:2: unknown template variable "{{path.idd}}". Did you mean "{{path.id}}"? The request's path parameters are: id."#
        )
      ) {
        try backend(
          #"{"request": "/u/{id}", "response": {"sequence": [{"text": "a"}, {"file": "user.json", "template": true}]}}"#,
          in: folder)
      }
    }
  }

  @Test func aFileThatIsNotUTF8TextCannotBeATemplate() async throws {
    try await withFolder { folder in
      let file = folder.appendingPathComponent("logo.png")
      try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0xFF]).write(to: file)
      let manifest = folder.appendingPathComponent("doppel.json").path
      #expect(
        throws: DoppelError(
          #"\#(manifest):1:54: stubs[0].response.file: \#(file.path):1:1: the file is not UTF-8 text: the byte 0x89 at byte offset 0 is not valid UTF-8, so the file cannot be a template. Save it as UTF-8, or remove "template" to send it as it is."#
        )
      ) {
        try backend(#"{"request": "/logo", "response": {"file": "logo.png", "template": true}}"#, in: folder)
      }
      let pipe = folder.appendingPathComponent("pipe")
      #expect(mkfifo(pipe.path, 0o600) == 0)
      #expect(
        throws: DoppelError(
          #"\#(manifest):1:54: stubs[0].response.file: \#(pipe.path) is not a regular file (a device, a pipe or a socket), so it cannot be a template. Name a file, or remove "template"."#
        )
      ) {
        try backend(#"{"request": "/logo", "response": {"file": "pipe", "template": true}}"#, in: folder)
      }
      // Without "template" the bytes are sent as they are.
      let plain = try backend(#"{"request": "/logo", "response": {"file": "logo.png"}}"#, in: folder)
      let (data, _) = try await plain.respond(to: URLRequest(url: URL(string: "https://a.com/logo")!))
      #expect(data.count == 9)
    }
  }

  @Test func aFileResponseBuiltInCodeCanBeTemplated() async throws {
    try await withFolder { folder in
      let file = folder.appendingPathComponent("order.json")
      try Data(#"{"order": "{{path.id}}", "note": "{{query.note}}"}"#.utf8).write(to: file)
      let backend = quietBackend()
      backend.stub(.get("https://api.example.com/orders/{id}"), Response.file(file).templated())
      let (body, response) = try await backend.send(.get, "https://api.example.com/orders/9?note=a%22b")
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
      #expect(body == #"{"order": "9", "note": "a\"b"}"#)
      #expect(try await backend.send(.get, "https://api.example.com/orders/10").body == #"{"order": "10", "note": ""}"#)
      // DoppelRemote sends it as a manifest file template.
      let wire = try Responder.response(Response.file(file).templated(seed: 2)).manifestResponse()
      #expect(
        wire == [
          "status": 200, "file": .string(file.standardizedFileURL.path), "contentType": "application/json",
          "template": ["seed": 2],
        ])
    }
  }

  @Test func aBrokenFileTemplateInCodeMakesTheStubInvalid() async throws {
    try await withFolder { folder in
      let file = folder.appendingPathComponent("order.txt")
      try Data("order\n{{pth.id}}".utf8).write(to: file)
      let collector = IssueCollector()
      let backend = Backend(issueReporter: collector.reporter)
      backend.stub(.get("/orders/{id}"), Response.file(file).templated())
      #expect(
        collector.all.map(\.message) == [
          #"Invalid stub: The template file \#(file.path):2:1: unknown template variable "{{pth.id}}". Did you mean "path"? The variables are: method, url, path, body, path.NAME, query.NAME, header.NAME, json./POINTER, now, now.FORMAT, uuid, random, random.MIN-MAX."#
        ])
    }
  }
}
