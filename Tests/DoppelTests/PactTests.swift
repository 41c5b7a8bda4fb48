import Doppel
import Foundation
import TestSupport
import Testing

/// Consumer contracts: a backend's traffic as a Pact V4 file, through the public API.
struct PactTests {
  /// A new, empty folder for one test's pacts.
  static func folder() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("doppel-pact-\(UUID().uuidString)")
  }

  /// The pact as JSON, each interaction's `key` checked (16 hexadecimal digits) and removed.
  static func document(_ data: Data) throws -> JSONValue {
    guard case .object(var document) = try JSONValue(parsing: data),
      case .array(let interactions)? = document["interactions"]
    else { throw DoppelError("not a pact") }
    document["interactions"] = .array(
      try interactions.map { interaction in
        guard case .object(var object) = interaction, case .string(let key)? = object.removeValue(forKey: "key")
        else { throw DoppelError("an interaction without a key") }
        #expect(key.count == 16 && key.allSatisfy(\.isHexDigit))
        return .object(object)
      })
    return .object(document)
  }

  static func rule(_ matchers: JSONValue...) -> JSONValue {
    ["combine": "AND", "matchers": .array(matchers)]
  }

  static let type: JSONValue = ["match": "type"]
  static func regex(_ pattern: String) -> JSONValue { ["match": "regex", "regex": .string(pattern)] }

  @Test func eachLooseMatchBecomesAMatchingRule() async throws {
    let backend = quietBackend()
    backend.stub(.get("https://api.example.com/breeds"), .json(["Abyssinian"]))
    backend.stub(.get("/breeds/{id}"), Response.json(raw: #"{"id": "{{path.id}}", "name": "Bengal"}"#).templated())
    backend.stub(.method(.get) && .path(glob: "/images/**/*.png"), .text("png"), name: "a picture")
    backend.stub(
      .post("/orders") && .header("X-Request-ID", regex: "^[0-9a-f]{8}$")
        && .jsonBody(containing: ["sku": "A1", "item": ["qty": 2]]),
      .json(["id": 1], status: 201))
    _ = try await backend.send(.get, "https://api.example.com/breeds")
    _ = try await backend.send(.get, "https://api.example.com/breeds/7")
    _ = try await backend.send(.get, "https://api.example.com/images/a/b/c.png")
    _ = try await backend.send(
      .post, "https://api.example.com/orders",
      headers: ["X-Request-ID": "0123abcd", "Content-Type": "application/json", "Accept": "*/*"],
      body: Data(#"{"sku":"A1","item":{"qty":2,"gift":true},"note":"x"}"#.utf8))

    let pact = try Self.document(backend.pact(consumer: "App", provider: "API"))
    let expected: JSONValue = [
      "consumer": ["name": "App"],
      "provider": ["name": "API"],
      "metadata": ["pactSpecification": ["version": "4.0"]],
      "interactions": [
        [
          "type": "Synchronous/HTTP", "description": "GET /breeds/{id}", "pending": false,
          "request": [
            "method": "GET", "path": "/breeds/7",
            "matchingRules": ["path": Self.rule(Self.regex("^/breeds/[^/]+$"))],
          ],
          "response": [
            "status": 200, "headers": ["Content-Type": ["application/json"]],
            "body": ["contentType": "application/json", "encoded": false, "content": ["id": "7", "name": "Bengal"]],
            "matchingRules": ["body": ["$.id": Self.rule(Self.type)]],
          ],
        ],
        [
          "type": "Synchronous/HTTP", "description": "GET https://api.example.com/breeds", "pending": false,
          "request": ["method": "GET", "path": "/breeds"],
          "response": [
            "status": 200, "headers": ["Content-Type": ["application/json"]],
            "body": ["contentType": "application/json", "encoded": false, "content": ["Abyssinian"]],
          ],
        ],
        [
          "type": "Synchronous/HTTP",
          "description":
            #"POST /orders, X-Request-ID: /^[0-9a-f]{8}$/, JSON body containing {"item":{"qty":2},"sku":"A1"}"#,
          "pending": false,
          "request": [
            "method": "POST", "path": "/orders",
            "headers": ["X-Request-ID": ["0123abcd"], "Content-Type": ["application/json"]],
            "body": [
              "contentType": "application/json", "encoded": false, "content": ["sku": "A1", "item": ["qty": 2]],
            ],
            "matchingRules": [
              "header": ["X-Request-ID": Self.rule(Self.regex("^[0-9a-f]{8}$"))],
              "body": ["$.item.qty": Self.rule(Self.type), "$.sku": Self.rule(Self.type)],
            ],
          ],
          "response": [
            "status": 201, "headers": ["Content-Type": ["application/json"]],
            "body": ["contentType": "application/json", "encoded": false, "content": ["id": 1]],
          ],
        ],
        [
          "type": "Synchronous/HTTP", "description": "a picture", "pending": false,
          "request": [
            "method": "GET", "path": "/images/a/b/c.png",
            "matchingRules": ["path": Self.rule(Self.regex(#"^/images/.*/[^/]*\.png$"#))],
          ],
          "response": [
            "status": 200, "headers": ["Content-Type": ["text/plain; charset=utf-8"]],
            "body": ["contentType": "text/plain; charset=utf-8", "encoded": false, "content": "png"],
          ],
        ],
      ],
    ]
    #expect(pact == expected)
  }

  @Test func whatATemplateFillsInIsMatchedByTypeInTheBodyAndTheHeaders() async throws {
    let backend = quietBackend()
    backend.stub(
      .get("/breeds/{id}"),
      Response.json(raw: #"{"id": {{path.id}}, "tags": ["cat", "{{path.id}}-tag"], "name": "Bengal"}"#)
        .header("X-Breed", "breed {{path.id}}").templated())
    _ = try await backend.send(.get, "https://api.example.com/breeds/7")
    guard case .object(let document) = try Self.document(backend.pact(consumer: "App", provider: "API")),
      case .array(let interactions)? = document["interactions"], case .object(let interaction)? = interactions.first,
      case .object(let response)? = interaction["response"]
    else {
      Issue.record("not a pact")
      return
    }
    #expect(
      response["matchingRules"] == [
        "body": ["$.id": Self.rule(Self.type), "$.tags[1]": Self.rule(Self.type)],
        "header": ["X-Breed": Self.rule(Self.type)],
      ])
    #expect(response["headers"] == ["Content-Type": ["application/json"], "X-Breed": ["breed 7"]])
  }

  @Test func theFileHasSortedKeysOneValuePerLineAndAStableKey() async throws {
    let backend = quietBackend()
    backend.stub(.get("/health"), .text("ok"))
    _ = try await backend.send(.get, "https://api.example.com/health")
    let text = String(decoding: try backend.pact(consumer: "App", provider: "API"), as: UTF8.self)
    #expect(
      text == """
        {
          "consumer" : {
            "name" : "App"
          },
          "interactions" : [
            {
              "description" : "GET /health",
              "key" : "\(try Self.key(text))",
              "pending" : false,
              "request" : {
                "method" : "GET",
                "path" : "/health"
              },
              "response" : {
                "body" : {
                  "content" : "ok",
                  "contentType" : "text/plain; charset=utf-8",
                  "encoded" : false
                },
                "headers" : {
                  "Content-Type" : [
                    "text/plain; charset=utf-8"
                  ]
                },
                "status" : 200
              },
              "type" : "Synchronous/HTTP"
            }
          ],
          "metadata" : {
            "pactSpecification" : {
              "version" : "4.0"
            }
          },
          "provider" : {
            "name" : "API"
          }
        }

        """)
    // The same traffic in another backend gives the same file, key included.
    let again = quietBackend()
    again.stub(.get("/health"), .text("ok"))
    _ = try await again.send(.get, "https://api.example.com/health")
    #expect(String(decoding: try again.pact(consumer: "App", provider: "API"), as: UTF8.self) == text)
  }

  static func key(_ text: String) throws -> String {
    let line = try #require(text.split(separator: "\n").first { $0.contains("\"key\"") })
    return String(line.split(separator: "\"")[3])
  }

  @Test func unusedStubsUnmatchedAndFailedRequestsAreLeftOut() async throws {
    let backend = quietBackend()
    backend.stub(.get("/breeds"), .json(["Abyssinian"]))
    backend.stub(.get("/unused"), .status(204))
    backend.stub(.get("/down"), .error(URLError(.timedOut)))
    _ = try await backend.send(.get, "https://api.example.com/breeds")
    _ = await backend.outcome(.get, "https://api.example.com/down")
    _ = await backend.outcome(.get, "https://api.example.com/missing")
    let pact = try Self.document(backend.pact(consumer: "App", provider: "API"))
    guard case .object(let object) = pact, case .array(let interactions)? = object["interactions"] else {
      Issue.record("not a pact")
      return
    }
    #expect(interactions.map { $0.description.contains(#""description":"GET /breeds""#) } == [true])
  }

  @Test func aStubThatAnsweredSeveralRequestsGivesOneInteractionForEachDistinctOne() async throws {
    let backend = quietBackend()
    backend.stub(.get("/breeds/{id}"), .json(["name": "Bengal"]))
    for id in ["7", "8", "7"] { _ = try await backend.send(.get, "https://api.example.com/breeds/\(id)?v=1") }
    let text = String(decoding: try backend.pact(consumer: "App", provider: "API"), as: UTF8.self)
    let descriptions = text.split(separator: "\n").filter { $0.contains("\"description\"") }
    #expect(
      descriptions.map { $0.trimmingCharacters(in: .whitespaces) } == [
        #""description" : "GET /breeds/{id} — GET /breeds/7?v=1","#,
        #""description" : "GET /breeds/{id} — GET /breeds/8?v=1","#,
      ])
  }

  @Test func writingMergesWithTheFileReplacingInteractionsOfTheSameDescription() async throws {
    let folder = Self.folder()
    let first = quietBackend()
    first.stub(.get("/breeds"), .json(["Abyssinian"]), name: "breeds")
    first.stub(.get("/owners"), .json(["Ann"]), name: "owners")
    _ = try await first.send(.get, "https://api.example.com/breeds")
    _ = try await first.send(.get, "https://api.example.com/owners")
    let file = try first.writePact(consumer: "App", provider: "API", to: folder)
    #expect(file == folder.appendingPathComponent("App-API.json"))

    let second = quietBackend()
    second.stub(.get("/breeds"), .json(["Bengal"]), name: "breeds")
    second.stub(.get("/cats"), .json(["Tom"]), name: "cats")
    _ = try await second.send(.get, "https://api.example.com/breeds")
    _ = try await second.send(.get, "https://api.example.com/cats")
    try second.writePact(consumer: "App", provider: "API", to: folder)

    let merged = String(decoding: try Data(contentsOf: file), as: UTF8.self)
    let descriptions = merged.split(separator: "\n").filter { $0.contains("\"description\"") }
    #expect(descriptions.count == 3)
    #expect(descriptions.map { $0.contains("breeds") } == [true, false, false])
    #expect(descriptions.map { $0.contains("owners") } == [false, false, true])
    #expect(merged.contains("Bengal") && !merged.contains("Abyssinian"))
    #expect(merged.contains("Ann") && merged.contains("Tom"))
    #expect(!FileManager.default.fileExists(atPath: file.path + ".lock"))
  }

  @Test func aFileOfAnotherPairOrNotAPactIsLeftAsItIs() async throws {
    let folder = Self.folder()
    let backend = quietBackend()
    backend.stub(.get("/breeds"), .json(["Abyssinian"]))
    _ = try await backend.send(.get, "https://api.example.com/breeds")
    let other = try backend.writePact(consumer: "App", provider: "API", to: folder)
    let renamed = folder.appendingPathComponent("Web-API.json")
    try FileManager.default.moveItem(at: other, to: renamed)
    #expect(
      throws: DoppelError(
        "Could not add to the pact \(renamed.path): it is between App and API, not Web and API. Delete it, or write the pact to another file."
      )
    ) { try backend.writePact(consumer: "Web", provider: "API", to: folder) }

    let notAPact = folder.appendingPathComponent("notes.json")
    try Data(#"{"log": {}}"#.utf8).write(to: notAPact)
    #expect(
      throws: DoppelError(
        "Could not add to the pact \(notAPact.path): it has no \"interactions\" list. Delete it, or write the pact to another file."
      )
    ) { try backend.writePact(consumer: "App", provider: "API", to: notAPact) }
    #expect(try Data(contentsOf: notAPact) == Data(#"{"log": {}}"#.utf8))
  }

  @Test func secretsNeverReachTheFile() async throws {
    let folder = Self.folder()
    let backend = quietBackend()
    backend.stub(
      .post("/login") && .header("Authorization") && .jsonBody(["user": "ann", "password": "hunter2-secret"]),
      Response.json(["access_token": "tok-4f3e2d1c0b9a"]).header("Set-Cookie", "sid=abc123def456"))
    _ = try await backend.send(
      .post, "https://api.example.com/login",
      headers: [
        "Authorization": "Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345", "Content-Type": "application/json",
      ],
      body: Data(#"{"user":"ann","password":"hunter2-secret"}"#.utf8))
    let file = try backend.writePact(consumer: "App", provider: "API", to: folder)
    let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
    for secret in ["ghp_0123456789", "hunter2-secret", "tok-4f3e2d1c0b9a", "abc123def456"] {
      #expect(!text.contains(secret), "\(secret) reached the pact")
    }
    let pact = try Self.document(Data(text.utf8))
    guard case .object(let document) = pact, case .array(let interactions)? = document["interactions"],
      case .object(let interaction)? = interactions.first, case .object(let request)? = interaction["request"],
      case .object(let response)? = interaction["response"]
    else {
      Issue.record("not a pact")
      return
    }
    #expect(request["headers"] == ["Authorization": ["REDACTED"], "Content-Type": ["application/json"]])
    // A redacted value is matched by type, so the provider's real one passes.
    #expect(request["matchingRules"] == ["header": ["Authorization": Self.rule(Self.type)]])
    #expect(
      response["matchingRules"] == [
        "header": ["Set-Cookie": Self.rule(Self.type)], "body": ["$.access_token": Self.rule(Self.type)],
      ])
  }

  @Test func aFolderThatCannotBeMadeIsAClearError() async throws {
    let folder = Self.folder()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let blocker = folder.appendingPathComponent("pacts")
    try Data("a file, not a folder".utf8).write(to: blocker)
    let backend = quietBackend()
    let error = #expect(throws: DoppelError.self) {
      try backend.writePact(consumer: "App", provider: "API", to: blocker.appendingPathComponent("contracts"))
    }
    let message = error?.message ?? ""
    #expect(message.hasPrefix("Could not write the pact \(blocker.path)/contracts/App-API.json: "))
    #expect(
      message.hasSuffix(
        "Check that the folder is writable, or write the pact to another folder."))
    #expect(error?.kind == .file)
  }

  @Test func namesThatWouldLeaveTheFolderAreRefused() throws {
    let backend = quietBackend()
    #expect(
      throws: DoppelError(
        #"Invalid consumer name "../App" for a pact: it names the file <consumer>-<provider>.json, so it must not be empty, start with "." or hold "/", "\", ":" or a line break. Name the consumer as Pact does, such as "BreedsApp"."#
      )
    ) { try backend.writePact(consumer: "../App", provider: "API", to: Self.folder()) }
    #expect(throws: DoppelError.self) { try backend.pact(consumer: "App", provider: "") }
  }

  @Test func aFileNameEndingInJSONIsUsedAsIs() async throws {
    let file = Self.folder().appendingPathComponent("contract.json")
    let backend = quietBackend()
    #expect(try backend.writePact(consumer: "App", provider: "API", to: file) == file)
    #expect(FileManager.default.fileExists(atPath: file.path))
  }
}
