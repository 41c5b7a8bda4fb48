#if Server
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  /// `doppel serve`: a manifest, a fixture directory, cassettes or OpenAPI documents over HTTP.
  struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Serve a manifest, a fixture directory, HAR cassettes or OpenAPI documents over HTTP on loopback.",
      // Wrapped by hand: ArgumentParser prints the generated usage on one line.
      usage: """
        doppel serve [<input> ...] [--scenario <scenario>] [--port <port>]
                     [--host <host>] [--allow-remote] [--origin <origin>]
                     [--unmatched-status <unmatched-status>]
                     [--cors <origin> ...] [--allow-host <name> ...]
                     [--admin-token-file <path>] [--admin-files <dir>]
                     [--admin-proxy <host> ...] [--save-stubs-to <dir>]
                     [--tls] [--tls-name <name> ...]
                     [--validate <refuse|report>] [--examples <conforming|as-is>]
                     [--seed <seed>] [--strict] [--[no-]watch] [--quiet]
        """,
      discussion: """
        Prints the server's URL on the first line, then one line per request with what answered it:
          GET /CatFancy/breeds.json → 200 (doppel.json:5 "standard")
          GET /nope → 404, no stub matched (closest: GET …/breeds.json; path differs);
            a stub for it: {"request":"GET …/nope","response":{"status":200}}

        Stubs are usually written for the real backend (https://api.example.com/…).
        When they name one origin, requests to the server are matched as sent to it;
        otherwise send a Host header naming the host, or choose with --origin. An
        unmatched request gets the near-miss report as its body. Edited inputs are
        reloaded while serving.

        An OpenAPI document (3.0 or 3.1, YAML or JSON; needs the OpenAPI trait)
        answers every operation with its example, else a body made from its
        schema, and only requests no other input's stubs take. A request picks
        another answer with Prefer: code=404 or Prefer: example=<name>; a named
        example is a scenario for --scenario. A request that breaks the document
        gets its operation's 400 or 422 answer (else application/problem+json),
        as Prism answers it; a documented path asked with another method gets
        405. With --validate, every request and answer is checked against the
        documents and each violation is printed as a line starting with
        "OpenAPI:"; --validate report answers invalid requests as valid ones.

        A GraphQL schema (.graphql or .graphqls SDL, or an introspection result
        in .json; needs the GraphQL trait) answers POST /graphql and
        GET /graphql?query=… on any host with made-up data, the same for the
        same request, and only requests no other input's stubs take. So does a
        manifest's "graphql". Introspection is answered from the schema, variables
        are checked as the specification says, and first/last give that many
        items (at most 100). Each GraphQL request the schema contradicts, and
        each answer of another stub there that does not fit the operation, is
        printed as a line starting with "GraphQL:". A schema with a definition
        given twice is served with a warning at its line; --strict refuses it.

        The admin API (under /__doppel/) answers only requests a web page cannot
        send: a loopback Host (or one given with --allow-host), no foreign Origin,
        JSON bodies, and the token when --admin-token-file (or DOPPEL_ADMIN_TOKEN,
        or --admin-token, which ps shows to every user) gives one. Stubs added
        through it name no file unless --admin-files gives a folder, and proxy
        only to --admin-proxy hosts. The dashboard (the prefix in a browser) saves
        a request as a stub into a manifest in the --save-stubs-to folder, and
        nowhere else. Refused requests are printed. While it
        shares the port, every other answer is sandboxed (Content-Security-Policy:
        sandbox), so pages the stubs serve cannot reach it; --admin-port gives it
        a port of its own. Proxying stubs forward only requests whose Host is
        loopback or an --allow-host name.

        With --tls the server speaks HTTPS, with a certificate for localhost,
        127.0.0.1, ::1 and each --tls-name, signed by your local certificate
        authority (made the first time; doppel trust prints how to trust it).
        """
    )

    @Argument(
      help: ArgumentHelp(
        "doppel.json, a directory holding one, a fixture directory (<host>/<path> files), .har cassettes, OpenAPI documents (.yaml, .yml, or .json with an openapi key), or GraphQL schemas (.graphql, .graphqls, or .json with __schema). Later inputs take precedence; a document or schema answers only what the others do not. Default: ./doppel.json.",
        valueName: "input"))
    var inputs: [String] = []

    @Option(
      help:
        "The manifest scenario to layer over the base stubs, or the OpenAPI documents' named example to answer with (default: $DOPPEL_SCENARIO)."
    )
    var scenario: String?

    @OptionGroup
    var listen: ListenOptions

    @Option(help: "Match every request as sent to this origin, such as https://api.example.com.")
    var origin: String?

    @Option(help: "The status of the answer to an unmatched request.")
    var unmatchedStatus = 404

    @Option(help: "Seconds a client may take to send a request head, in total; a late one gets 408.")
    var headerTimeout = 30.0

    @Option(help: "Seconds a request body may pause between reads; a stalled one gets 408.")
    var bodyTimeout = 30.0

    @Option(help: "Seconds a connection may wait for its next request before it is closed.")
    var idleTimeout = 60.0

    @Option(
      name: .customLong("websocket-idle-timeout"),
      help: "Seconds a WebSocket may go without a frame before a ping; closed when the ping gets no answer.")
    var webSocketIdleTimeout = 60.0

    @Option(help: "The most connections open at once, WebSockets included; more wait until one closes.")
    var maxConnections = 1_024

    @Option(
      name: .customLong("max-head-kib"),
      help:
        "The largest request head (request line and header fields) accepted, in kibibytes; a larger one gets 431. 1 to 16384."
    )
    var maxHeadKibibytes = 64

    @Flag(inversion: .prefixedNo, help: "Reload when an input changes.")
    var watch = true

    @Flag(name: .shortAndLong, help: "Print no line per request.")
    var quiet = false

    @Flag(
      help:
        "Refuse documents with deviations that are otherwise served with a warning at their line (such as an OpenAPI operation written as a $ref, 3.0's exclusiveMinimum: true in 3.1, or a GraphQL field defined twice)."
    )
    var strict = false

    @Option(
      name: .customLong("validate"),
      help: ArgumentHelp(
        "Check every request and answer against the OpenAPI documents among the inputs, and print each violation (even with --quiet): refuse (a request that breaks a document gets 400 or 422 from its operation, the default even without --validate) or report (it is answered as a valid one).",
        valueName: "refuse|report")
    )
    var validation: Validation?

    /// What `--validate` asks for.
    enum Validation: String, ExpressibleByArgument, CaseIterable {
      case refuse, report
    }

    @Option(
      help: ArgumentHelp(
        "What an OpenAPI document's example that breaks its own schema gives: conforming (a generated answer, the default) or as-is (the example as written).",
        valueName: "conforming|as-is")
    )
    var examples: ExampleHandling = .conforming

    @Option(
      help:
        "The seed of the values made up for answers (OpenAPI documents, GraphQL schemas, random stubs): the same seed gives the same answers. Default: a manifest's seed, else 0."
    )
    var seed: UInt64?

    /// What `--examples` asks for.
    enum ExampleHandling: String, ExpressibleByArgument, CaseIterable {
      case conforming
      case asIs = "as-is"
    }

    /// Whether `--validate` was given.
    var validatesAgainstDocuments: Bool { validation != nil }

    @Option(
      help:
        "The path prefix of the admin API (JSON: stubs, scenario, state, requests, verify, reset), or off. Default: /__doppel/; with --allow-remote, off unless a token is given."
    )
    var adminPrefix: String?

    @Option(help: "A port of its own for the admin API (0: the system chooses); by default it shares --port.")
    var adminPort: Int?

    @Option(
      name: .customLong("save-stubs-to"),
      help: ArgumentHelp(
        "The folder the dashboard's \"Save as stub\" (POST /__doppel/saved-stubs) writes manifests into, and no other; by default stubs are not saved.",
        valueName: "dir"))
    var saveStubsTo: String?

    @Option(help: "The most requests the journal keeps (the oldest are dropped; 1 to 10000000).")
    var journalLimit = 10_000

    @Option(
      name: .customLong("journal-mib"),
      help:
        "The most mebibytes of request and response bodies the journal keeps (the oldest entries are dropped; 1 to 65536)."
    )
    var journalMebibytes = 256

    @Option(
      name: .customLong("journal-body-kib"),
      help: "A body over this many kibibytes is journaled as its length and SHA-256 only (0 to 1048576).")
    var journalBodyKibibytes = 1024

    @Option(
      name: .customLong("cors"),
      help: ArgumentHelp(
        "Let web pages from this origin read the stubs' answers, such as http://localhost:3000 (repeatable; * for any). The admin API never allows one.",
        valueName: "origin"))
    var corsOrigins: [String] = []

    @OptionGroup(title: "Who may use the admin API")
    var trust: AdminTrustOptions

    @OptionGroup(title: "Matching the .har inputs")
    var cassettes: CassetteMatchingOptions

    @OptionGroup(title: "HTTPS")
    var https: TLSOptions

    func validate() throws {
      guard (100...599).contains(unmatchedStatus) else {
        throw ValidationError("--unmatched-status \(unmatchedStatus) is not an HTTP status; use 100 to 599.")
      }
      if let origin { _ = try Self.parseOrigin(origin, option: "--origin") }
      for origin in corsOrigins where origin != "*" { _ = try Self.parseOrigin(origin, option: "--cors") }
      for (option, seconds) in [
        ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout), ("--idle-timeout", idleTimeout),
        ("--websocket-idle-timeout", webSocketIdleTimeout),
      ] {
        _ = try Self.timeout(seconds, option: option)
      }
      guard (1...1_000_000).contains(maxConnections) else {
        throw ValidationError("--max-connections \(maxConnections) is out of range; use 1 to 1000000.")
      }
      guard (1...16_384).contains(maxHeadKibibytes) else {
        throw ValidationError("--max-head-kib \(maxHeadKibibytes) is out of range; use 1 to 16384 (kibibytes).")
      }
      try validateAdmin()
      if validatesAgainstDocuments, let reason = Self.validationNeedsTrait { throw ValidationError(reason) }
    }

    /// A timeout given on the command line in seconds: more than 0, at most a day.
    static func timeout(_ seconds: Double, option: String) throws -> Duration {
      guard seconds >= 0.001 && seconds <= 86_400 else {
        throw ValidationError("\(option) \(seconds) is out of range; use seconds from 0.001 to 86400.")
      }
      return .milliseconds(Int64((seconds * 1_000).rounded()))
    }

    /// An origin given on the command line: `https://api.example.com` or `http://localhost:3000`.
    static func parseOrigin(_ text: String, option: String) throws -> URL {
      guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
        url.host != nil
      else {
        throw ValidationError("\(option) \(text) is not an http or https URL; write it as https://api.example.com.")
      }
      return url
    }

    func run() async throws {
      let environment = ProcessInfo.processInfo.environment[ScenarioSelection.environmentVariable]
      if inputs.isEmpty && !FileManager.default.fileExists(atPath: Manifest.defaultFileName) {
        throw ValidationError(
          "Nothing to serve: the current directory has no \(Manifest.defaultFileName). Pass a manifest (or the directory holding it), a fixture directory, .har cassettes, or an OpenAPI document."
        )
      }
      let inputs = ServeInputs(
        paths: inputs.isEmpty ? ["."] : inputs, scenario: scenario ?? environment.flatMap { $0.isEmpty ? nil : $0 },
        matching: cassettes.matching, replayingTimings: cassettes.replayTimings,
        documentOptions: ServeInputs.DocumentOptions(
          answersInvalidRequests: validation == .report, examplesAsIs: examples == .asIs, seed: seed),
        strict: strict,
        scenarioSource: scenario != nil
          ? "from --scenario" : "from the \(ScenarioSelection.environmentVariable) environment variable")
      let loaded = try inputs.load()
      for warning in loaded.graphQL.warnings { Console.error(warning) }
      var configuration = StubServer.Configuration()
      let backend = adminBackend(loaded, inputs: inputs, configuration: &configuration)
      try startValidating(loaded, backend: backend)
      Self.printGraphQLViolations(of: backend)
      configuration.allowsNonLoopback = listen.allowRemote
      configuration.unmatchedStatus = unmatchedStatus
      configuration.headerTimeout = try Self.timeout(headerTimeout, option: "--header-timeout")
      configuration.bodyTimeout = try Self.timeout(bodyTimeout, option: "--body-timeout")
      configuration.idleTimeout = try Self.timeout(idleTimeout, option: "--idle-timeout")
      configuration.webSocketIdleTimeout = try Self.timeout(
        webSocketIdleTimeout, option: "--websocket-idle-timeout")
      configuration.maximumConnections = maxConnections
      // Ctrl-C ends the server within 2 s: an answer still going after half a second is cut off.
      configuration.shutdownGracePeriod = .milliseconds(500)
      configuration.maximumHeadSize = maxHeadKibibytes * 1024
      if let origin { configuration.origin = .fixed(try Self.parseOrigin(origin, option: "--origin")) }
      if !quiet { configuration.onRequest = { Console.out(Redaction.default.redact(line: $0.description)) } }
      configuration.corsOrigins = corsOrigins
      let generated = try trust.apply(to: &configuration.admin)
      configuration.admin.savedStubsDirectory = saveStubsTo.map { URL(fileURLWithPath: $0).standardizedFileURL }
      let authority: TLSOptions.Authority? = try https.apply(to: &configuration)
      let server = try await StubServer.start(
        serving: backend, host: listen.host, port: listen.port, configuration: configuration)
      Console.out("Serving \(loaded.summary) at \(server.baseURL.absoluteString)")
      // What a document does that the standard does not allow (--strict refuses it).
      for warning in loaded.openAPI.warnings { Console.error(warning) }
      for warning in loaded.manifestWarnings { Console.error(warning) }
      TLSOptions.announce(authority)
      if let generated, effectiveAdminPrefix != nil { Console.out(AdminTrustOptions.tokenLine(generated)) }
      if listen.allowRemote && adminPrefix == nil && effectiveAdminPrefix == nil {
        Console.out(Self.remoteAdminOffLine)
      }
      if adminPort != nil, let adminURL = server.adminURL {
        Console.out("The admin API is at \(adminURL.absoluteString)")
      }
      Console.out(
        origin == nil
          ? "Requests are matched as sent to the stubs' origin when they name one. Press Ctrl-C to stop."
          : "Requests are matched as sent to \(origin!). Press Ctrl-C to stop.")
      let serving = Task { await server.run() }
      let signals = SignalWatcher { _ in serving.cancel() }
      defer { signals.cancel() }
      // An answer still being sent from a spool file when the server stops would leave the file.
      defer { SpoolFiles.deleteAll() }
      let watching = watch ? Task { await Self.watch(inputs, server: server) } : nil
      await serving.value
      watching?.cancel()
      Console.out("Stopped.")
    }

    /// Reloads the inputs into a new backend when they change; a broken edit keeps the old one.
    private static func watch(_ inputs: ServeInputs, server: StubServer) async {
      // The files a document's `$ref`s name are watched too (those of its last good version).
      func fingerprint() -> String { inputs.fingerprint(referencedFiles: Self.lastReferencedFiles.withLock { $0 }) }
      var last = fingerprint()
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(1))
        let now = fingerprint()
        guard now != last else { continue }
        last = now
        do {
          let notes = try server.reloadFiles()
          Console.out("Reloaded \(Self.lastSummary.withLock { $0 })")
          for note in notes { Console.out(note) }
        } catch {
          Console.error("Not reloaded, still serving the previous version: \(error)")
        }
      }
    }
  }
#endif
