#if Server
  import ArgumentParser
  import Doppel
  import Foundation

  #if OpenAPI
    import DoppelOpenAPI
  #endif
  #if GraphQL
    import DoppelGraphQL
  #endif

  /// `doppel lint`: checks manifests and cassettes.
  struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Check manifests and HAR cassettes: format errors, missing fixtures, secrets, drift from an OpenAPI document.",
      // The generated usage lists every option on one line, wider than a terminal.
      usage: "doppel lint <file> ... [<options>]",
      discussion: """
        Prints one line per problem, starting with the file and the position
        (line:column, and the JSON path of the field), and exits with status 1 when
        there is any. A manifest is checked as `doppel serve` would load it (every
        fixture it names must exist) and scanned for secrets; a cassette is checked
        for entries that cannot be replayed and for secrets that were not redacted
        (tokens, keys, cookies, passwords), exactly what `doppel record` would redact,
        in bodies of every encoding.

        With --openapi, every stub of a manifest and every entry of a cassette is also
        checked against the OpenAPI document, with the messages the runtime check
        gives: a stub at the line of its declaration, a cassette entry at the line of
        the entry.

        With --graphql, every GraphQL request of a cassette and its recorded answer are
        checked against the schema, at the line of the entry: the operation (fields,
        arguments, types, variables) and the answer's JSON against the operation's
        selection. A manifest's GraphQL stub names an operation without its text, so
        its answer is checked against the schema's types, at the stub's line: every
        field one its type has, values of the field's type, null only where allowed
        (a field left out, or an alias, cannot be told).
        """
    )

    @Argument(
      help: ArgumentHelp(
        "Manifests (doppel.json, or a directory holding one), fixture directories, .har cassettes, and OpenAPI documents and GraphQL schemas (checked for what doppel serve refuses).",
        valueName: "file"))
    var files: [String]

    @Option(
      name: .customLong("keep"),
      help: "Do not report this header, query or form parameter, or JSON key for its name (repeatable).")
    var keptNames: [String] = []

    @Flag(help: "Do not report bodies that cannot be scanned for secrets (as recorded with that option).")
    var keepUnscannableBodies = false

    @Option(
      name: .customLong("openapi"),
      help: ArgumentHelp(
        "Also check every stub and cassette entry against this OpenAPI document (YAML or JSON, 3.0 or 3.1).",
        valueName: "document"))
    var openAPI: String?

    @Option(
      name: .customLong("graphql"),
      help: ArgumentHelp(
        "Also check every GraphQL request of a cassette and its answer against this schema (SDL, or an introspection result in JSON).",
        valueName: "schema"))
    var graphQL: String?

    func validate() throws {
      guard !files.isEmpty else { throw ValidationError("Name at least one manifest or cassette to check.") }
      #if !OpenAPI
        if openAPI != nil {
          throw ValidationError(
            "This doppel was built without the OpenAPI trait. Build it with `swift build --traits Server,OpenAPI`.")
        }
      #endif
      #if !GraphQL
        if graphQL != nil {
          throw ValidationError(
            "This doppel was built without the GraphQL trait. Build it with `swift build --traits Server,GraphQL`.")
        }
      #endif
    }

    func run() throws {
      var problems: [String] = []
      var troubled = 0
      var warnings: [String] = []
      var unusableDocument = false
      #if OpenAPI
        var document: OpenAPIDocument?
        if let openAPI {
          do {
            document = try OpenAPIDocument(url: URL(fileURLWithPath: openAPI), name: openAPI)
          } catch {
            // Reported, and the files are still checked for everything else.
            Console.out(error.description)
            Console.error(
              "doppel lint: the OpenAPI document \(openAPI) cannot be used; the files are checked without it.")
            unusableDocument = true
          }
        }
      #endif
      #if GraphQL
        var schema: GraphQLSchemaDocument?
        if let graphQL {
          do {
            schema = try GraphQLSchemaDocument(contentsOf: URL(fileURLWithPath: graphQL))
          } catch {
            Console.out("\(graphQL):\(error.line):\(error.column): \(error.message)")
            Console.error(
              "doppel lint: the GraphQL schema \(graphQL) cannot be used; the files are checked without it.")
            unusableDocument = true
          }
        }
      #endif
      for path in files {
        var redaction = Redaction.default.keeping(names: keptNames)
        if keepUnscannableBodies { redaction = redaction.excluding(.unscannableBodies) }
        var found = Self.check(path, redaction: redaction)
        #if OpenAPI
          if let document { found += Self.check(path, against: document) }
        #endif
        #if GraphQL
          if let schema { found += Self.check(path, against: schema) }
        #endif
        if !found.isEmpty { troubled += 1 }
        problems += Self.inFileOrder(found)
        warnings += Self.warnings(path)
      }
      // What is served as written but likely a mistake does not fail the check.
      for warning in warnings { Console.out(warning) }
      for problem in problems { Console.out(problem) }
      if !problems.isEmpty {
        Console.error(
          "doppel lint: \(problems.count) \(problems.count == 1 ? "problem" : "problems") in \(troubled) of \(files.count) \(files.count == 1 ? "file" : "files")."
        )
      }
      guard problems.isEmpty, !unusableDocument else { throw ExitCode(1) }
      let warned = warnings.isEmpty ? "" : " (\(warnings.count) \(warnings.count == 1 ? "warning" : "warnings"))"
      Console.out("No problems in \(files.count) \(files.count == 1 ? "file" : "files")\(warned).")
    }

    /// The warnings of a manifest that loads: what it serves as written but is likely a mistake,
    /// such as a method no registry knows.
    static func warnings(_ path: String) -> [String] {
      let url = URL(fileURLWithPath: path)
      guard url.pathExtension.lowercased() != "har", !ServeInputs.isOpenAPIDocument(url),
        !ServeInputs.isGraphQLSchema(url), let manifest = try? Manifest.load(contentsOf: url)
      else { return [] }
      return manifest.warnings
    }

    /// The problems of one file in the order of their positions (`file:line:column: …`), those
    /// without a position first; problems at one position keep their order.
    static func inFileOrder(_ problems: [String]) -> [String] {
      func position(_ problem: String) -> (Int, Int) {
        // The first `:line:column: ` in the line; a path holds no such run before it.
        let parts = problem.split(separator: ":", omittingEmptySubsequences: false)
        for index in parts.indices.dropLast(2) {
          if let line = Int(parts[index]), let column = Int(parts[index + 1]), parts[index + 2].hasPrefix(" ") {
            return (line, column)
          }
        }
        return (0, 0)
      }
      return problems.enumerated().sorted { left, right in
        let (a, b) = (position(left.element), position(right.element))
        return a != b ? a < b : left.offset < right.offset
      }.map(\.element)
    }

    /// The problems of one input, each a line starting with its file (as typed) and position.
    static func check(_ path: String, redaction: Redaction = .default) -> [String] {
      // A relative URL keeps the path as typed in every message.
      let url = URL(fileURLWithPath: path)
      if url.pathExtension.lowercased() == "har" {
        var problems: [String] = []
        do {
          _ = try Cassette.load(from: url)
        } catch {
          // One line per problem.
          problems += "\(error)".split(separator: "\n").map(String.init)
        }
        problems += secrets(in: url, shown: path, redaction: redaction)
        return problems
      }
      // A document or schema `doppel serve` would refuse has that one problem.
      if ServeInputs.isOpenAPIDocument(url) {
        return refusal {
          var documents = ServeInputs.OpenAPIInputs()
          // What the standard does not allow is a problem here, as with `doppel serve --strict`.
          try documents.load(path, strict: true)
        }
      }
      if ServeInputs.isGraphQLSchema(url) {
        return refusal {
          var schemas = ServeInputs.GraphQLInputs()
          // What `doppel serve` serves with a warning, lint reports.
          try schemas.load(path, strict: true)
        }
      }
      let manifest: Manifest
      do {
        manifest = try Manifest.load(contentsOf: url)
      } catch {
        return error.message.split(separator: "\n").map(String.init)
      }
      // A fixture directory has no manifest file to scan.
      guard manifest.url.pathExtension.lowercased() == "json" else { return [] }
      return ServeInputs.graphQLRefusals(manifest)
        + secrets(in: manifest.url, shown: manifest.url.relativePath, redaction: redaction)
    }

    /// The error `load` throws, as the one problem of an input (naming the file as typed); none
    /// when it loads.
    static func refusal(_ load: () throws -> Void) -> [String] {
      do {
        try load()
        return []
      } catch {
        return "\(error)".split(separator: "\n").map(String.init)
      }
    }

    #if OpenAPI
      /// What `document` contradicts in the stubs of a manifest or the entries of a cassette, each
      /// line starting with the file (as typed) and the position of the stub's declaration or of
      /// the entry. An input that cannot be read is left to ``check(_:redaction:)``, which reports
      /// why.
      static func check(_ path: String, against document: OpenAPIDocument) -> [String] {
        let url = URL(fileURLWithPath: path)
        if url.pathExtension.lowercased() == "har" {
          return (cassetteExchanges(path) ?? []).flatMap { exchange in
            document.violations(in: exchange.request, response: exchange.response).map { "\(exchange.place): \($0)" }
          }
        }
        guard let manifest = try? Manifest.load(contentsOf: url) else { return [] }
        var problems: [String] = []
        for stub in stubs(of: manifest) {
          let found = document.violations(of: stub)
          guard !found.isEmpty else { continue }
          let place = "\(shown(stub.location, in: manifest, typed: path)):\(stub.location.line):\(stub.location.column)"
          problems += found.map { "\(place): \($0)" }
        }
        return problems
      }

    #endif

    #if GraphQL
      /// `request` (which sends `sent`) with the query text `registered` holds for the persisted
      /// query it sends by its hash alone (in its JSON body, or as a `GET`'s `query` item);
      /// otherwise `request` itself.
      static func withRegisteredDocument(
        _ request: Request, sending sent: GraphQLRequest?, _ registered: [String: String]
      ) -> Request {
        guard let sent, sent.document == nil, let hash = sent.persistedQueryHash, let document = registered[hash]
        else { return request }
        if let body = request.body, !body.isEmpty, case .object(var fields)? = try? JSONValue(parsing: body) {
          fields["query"] = .string(document)
          return Request(
            method: request.method, url: request.url, headers: request.headers,
            body: Data("\(JSONValue.object(fields))".utf8))
        }
        guard var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else { return request }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "query", value: document)]
        guard let url = components.url else { return request }
        return Request(method: request.method, url: url, headers: request.headers, body: request.body)
      }

      /// What `schema` contradicts in the GraphQL requests of a cassette and their answers, each
      /// line starting with the file (as typed) and the position of the entry. Other inputs, and a
      /// cassette that cannot be read (reported by ``check(_:redaction:)``), give none.
      static func check(_ path: String, against schema: GraphQLSchemaDocument) -> [String] {
        if let exchanges = cassetteExchanges(path) {
          // Apollo's automatic persisted queries send a query by its hash once the server knows
          // it: such an entry is checked with the text another entry of the cassette registered.
          let sent = exchanges.map { GraphQLRequest($0.request) }
          var registered: [String: String] = [:]
          for case let operation? in sent {
            if let hash = operation.persistedQueryHash, let document = operation.document {
              registered[hash] = document
            }
          }
          return zip(exchanges, sent).flatMap { exchange, sent -> [String] in
            guard !exchange.response.isFailure, let body = try? exchange.response.bodyData() else { return [] }
            let request = withRegisteredDocument(exchange.request, sending: sent, registered)
            return schema.violations(in: request, status: exchange.response.status, body: body).map {
              "\(exchange.place): GraphQL: \($0)"
            }
          }
        }
        // A manifest's stub names its operation, not the operation's text: its answers are
        // checked against the schema's types.
        guard URL(fileURLWithPath: path).pathExtension.lowercased() != "har",
          let manifest = try? Manifest.load(contentsOf: URL(fileURLWithPath: path))
        else { return [] }
        var problems: [String] = []
        for stub in stubs(of: manifest) {
          guard let operation = stub.declaredGraphQLOperation else { continue }
          let place = "\(shown(stub.location, in: manifest, typed: path)):\(stub.location.line):\(stub.location.column)"
          for response in stub.declaredResponses where (200..<300).contains(response.status) && !response.isFailure {
            guard let body = try? response.bodyData() else { continue }
            problems += schema.shapeViolations(ofAnswer: body, operation: operation).map { "\(place): GraphQL: \($0)" }
          }
        }
        return problems
      }
    #endif

    /// Every stub of a manifest: the base stubs, then each scenario's, in the order written.
    private static func stubs(of manifest: Manifest) -> [StubHandle] {
      let base = Backend()
      let stubs = (try? base.addStubsLeavingOutExtensions(from: manifest, scenario: .base)) ?? []
      var all = stubs
      for name in manifest.scenarioNames {
        let layered = (try? Backend().addStubsLeavingOutExtensions(from: manifest, scenario: .named(name))) ?? []
        all += layered.dropFirst(stubs.count)
      }
      return all
    }

    /// The replayable entries of the cassette at `path`, each with where it is written
    /// (`path:line:column`, the path as typed); `nil` for an input that is not a `.har` file or a
    /// cassette that cannot be read (``check(_:redaction:)`` reports why).
    static func cassetteExchanges(_ path: String) -> [(place: String, request: Request, response: Response)]? {
      let url = URL(fileURLWithPath: path)
      guard url.pathExtension.lowercased() == "har", let data = try? WholeFile.read(url),
        let cassette = try? Cassette(data: data, file: path)
      else { return nil }
      return cassette.entries.enumerated().compactMap { index, entry in
        guard let request = try? entry.makeRequest(), let response = try? entry.makeResponse(for: request.method)
        else { return nil }
        let position =
          JSONLocation.position(of: "entries[\(index)]", in: data).map { "\($0.line):\($0.column)" }
          ?? "entries[\(index)]"
        return ("\(path):\(position)", request, response)
      }
    }

    /// The file a stub was declared in, as the user would name it: the manifest as typed (or,
    /// for a directory, its `doppel.json` under the typed directory), or for a fixture directory
    /// the fixture under it.
    static func shown(_ location: CodeLocation, in manifest: Manifest, typed: String) -> String {
      let file = URL(fileURLWithPath: location.filePath).standardizedFileURL.path
      if file == manifest.url.standardizedFileURL.path { return manifest.url.relativePath }
      let directory = URL(fileURLWithPath: typed).standardizedFileURL.path
      if file.hasPrefix(directory + "/") {
        let under = file.dropFirst(directory.count + 1)
        return typed.hasSuffix("/") ? typed + under : typed + "/" + under
      }
      return location.filePath
    }

    /// Secrets left in a JSON file, with where each is.
    private static func secrets(in url: URL, shown: String, redaction: Redaction) -> [String] {
      guard let data = try? WholeFile.read(url),
        let findings = try? CassetteLint.scan(data, file: shown, redaction: redaction)
      else {
        return []
      }
      // A HAR file's entries are under "log", as the reader's messages say.
      let underLog = JSONLocation.position(of: "log", in: data) != nil
      return findings.map { finding in
        let place = JSONLocation.position(of: finding.field, in: data).map { ":\($0.line):\($0.column)" } ?? ""
        let field = underLog && finding.field.hasPrefix("entries[") ? "log." + finding.field : finding.field
        let fix =
          finding.kind == .unscannableBody
          ? "record it again without --keep-unscannable-bodies, or replace it with a made-up body"
          : "redact it, or replace it with a made-up value"
        return "\(shown)\(place): \(field): \(finding.kind) (\(fix))"
      }
    }
  }
#endif
