#if Server
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  /// `doppel record`: a recording reverse proxy in front of a real server.
  struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Record a real server's traffic into a HAR cassette, through a proxy on loopback.",
      discussion: """
        Point the client at the printed URL instead of the upstream: every request is
        sent to the upstream, answered with its response, and saved to the cassette,
        with secrets redacted as in-process recording does (Authorization, cookies,
        any header, parameter or JSON key named like a token, secret, password
        (pwd, pass, passphrase, otp), refresh, CSRF, key, session or credential,
        OAuth code and state, a URL's password, HTML meta and input fields named so,
        JWTs and known key formats, and every copy of a redacted value; add more
        with the --redact options, keep a name with --keep). Bodies are scanned in
        every encoding: base64, gzip and deflate (decoded), binary (its text runs);
        a body that cannot be scanned is written as its SHA-256 digest unless
        --keep-unscannable-bodies. An answer of more than 16 MiB once decoded is
        never held in memory: the client gets it from a temporary file, and the
        cassette keeps its length and SHA-256. Request lines are printed with the same
        secrets redacted. The cassette is written as requests come and when you press
        Ctrl-C, which ends the recording within 2 s (an answer still coming is cut
        off and not recorded).
        Another recorder may write the same cassette meanwhile: each write locks the
        file and keeps the other's entries. Serve it afterwards with
        `doppel serve FILE.har`. With --to-manifest, the cassette is also written
        as a manifest when recording ends, as doppel convert writes it.

        Only requests whose Host is a loopback name or address, or an --allow-host
        name, are forwarded: another gets a 403, so that a web page that made its
        own name resolve to this computer cannot read the upstream through it.

        There is no admin API unless --admin is given: every request is recorded.
        With --admin, /__doppel/ answers as in `doppel serve` (loopback Host only,
        no foreign Origin, JSON bodies, the --admin-token when given).
        """
    )

    @Option(help: "The server to record, such as https://api.example.com (an origin: scheme, host and port).")
    var upstream: String

    @Option(name: .shortAndLong, help: "The cassette to write (.har); what it holds when recording starts is replaced.")
    var out: String

    @OptionGroup
    var listen: ListenOptions

    @OptionGroup(title: "Writing a manifest too, when recording ends")
    var manifestOutput: ManifestOutputOptions

    @Option(name: .customLong("redact-header"), help: "Also redact this header (repeatable).")
    var redactHeaders: [String] = []

    @Option(name: .customLong("redact-query"), help: "Also redact this query or form parameter (repeatable).")
    var redactQueryParameters: [String] = []

    @Option(
      name: .customLong("redact-json"),
      help: "Also redact this JSON field, a key path such as user.password (repeatable).")
    var redactJSONFields: [String] = []

    @Option(
      name: .customLong("keep"),
      help: "Do not redact this header, query or form parameter, or JSON key for its name (repeatable).")
    var keptNames: [String] = []

    @Flag(
      help:
        "Write bodies that cannot be scanned for secrets (brotli, zstd, zip, …, or gzip beyond 16 MiB) as they are, instead of as their SHA-256 digest."
    )
    var keepUnscannableBodies = false

    @Flag(name: .shortAndLong, help: "Print no line per request.")
    var quiet = false

    @Flag(
      help:
        "Serve the admin API under /__doppel/ (journal, stubs, reset), with the same rules as doppel serve; its journal is redacted as the cassette is, and answers of stubs added through it are not recorded. Off by default: every request is recorded."
    )
    var admin = false

    @OptionGroup(title: "Who may use the admin API (with --admin)")
    var trust: AdminTrustOptions

    func validate() throws {
      let url = try Serve.parseOrigin(upstream, option: "--upstream")
      guard url.path.isEmpty || url.path == "/", url.query == nil else {
        throw ValidationError(
          "--upstream \(upstream) has a path; give the origin only (\(url.scheme!)://\(url.host!)\(url.port.map { ":\($0)" } ?? "")): requests keep their own paths."
        )
      }
      guard URL(fileURLWithPath: out).pathExtension.lowercased() == "har" else {
        throw ValidationError("--out \(out) should end in .har, the cassette format.")
      }
      if !admin && (trust.givesToken || trust.files != nil || !trust.proxyHosts.isEmpty) {
        throw ValidationError(
          "--admin-token, --admin-token-file, --admin-files and --admin-proxy set up the admin API, which doppel record serves only with --admin. Add --admin, or drop them."
        )
      }
    }

    func run() async throws {
      let upstreamURL = try Serve.parseOrigin(upstream, option: "--upstream")
      let outURL = URL(fileURLWithPath: out)
      let named = Redaction.default.adding(
        headers: redactHeaders, queryParameters: redactQueryParameters, jsonFields: redactJSONFields
      ).keeping(names: keptNames)
      let redaction = keepUnscannableBodies ? named.excluding(.unscannableBodies) : named
      let backend = Backend(unmatched: .passthrough, issueReporter: .ignore)
      let recorder = Recorder(backend: backend, url: outURL, redaction: redaction)
      var configuration = StubServer.Configuration()
      configuration.allowsNonLoopback = listen.allowRemote
      configuration.origin = .fixed(upstreamURL)
      // Ctrl-C ends the recording within 2 s: an answer still coming after half a second is cut
      // off (and not recorded); every one that completed is saved.
      configuration.shutdownGracePeriod = .milliseconds(500)
      if !quiet { configuration.onRequest = { Console.out(redaction.redact(line: $0.description)) } }
      configuration.admin.pathPrefix = admin ? "/__doppel/" : nil
      // The journal holds real traffic: the admin API shows it redacted as the cassette is.
      configuration.admin.journalRedaction = redaction
      let generated = try trust.apply(to: &configuration.admin)
      let server = try await StubServer.start(
        serving: backend, host: listen.host, port: listen.port, configuration: configuration)
      try recorder.save()
      // The URL to send requests to comes first, alone, so a script reading the first line gets it
      // (not the upstream's).
      Console.out(server.baseURL.absoluteString)
      Console.out(
        "Recording what \(upstream) answers into \(out): send requests to the URL above. Press Ctrl-C to stop and save."
      )
      if admin {
        Console.out("The admin API is at \(server.baseURL.absoluteString)/__doppel/")
        if let generated { Console.out(AdminTrustOptions.tokenLine(generated)) }
      }
      let serving = Task { await server.run() }
      let signals = SignalWatcher { _ in serving.cancel() }
      defer { signals.cancel() }
      // An answer still being sent from a spool file when the server stops would leave the file.
      defer { SpoolFiles.deleteAll() }
      let saving = Task {
        while !Task.isCancelled {
          try? await Task.sleep(for: .milliseconds(500))
          do { try recorder.saveIfChanged() } catch { Console.error("\(error)") }
        }
      }
      await serving.value
      saving.cancel()
      try recorder.save()
      Console.out("Saved \(recorder.count) \(recorder.count == 1 ? "exchange" : "exchanges") to \(out).")
      try manifestOutput.write(Cassette.load(from: outURL), source: outURL.lastPathComponent, redaction: redaction)
      let skipped = recorder.skippedStubAnswers
      if skipped > 0 {
        Console.out(
          "Left out \(skipped) \(skipped == 1 ? "answer" : "answers") of stubs added through the admin API: the cassette holds only what \(upstream) answered."
        )
      }
    }
  }

  /// Writes a backend's journal to a cassette, redacted, merged with what other recorders write
  /// into the same file meanwhile.
  ///
  /// It records what the upstream answered: the journal's unmatched entries (each went through to
  /// the upstream), not the answers of stubs added through the admin API. It follows the journal
  /// by entry number and generation, so a journal cleared through the admin API (`reset`,
  /// `DELETE requests`) or trimmed by its limit loses no later exchange; and it takes each
  /// exchange as it finishes, so a clear that comes after an exchange cannot take it away first.
  final class Recorder: Sendable {
    private let backend: Backend
    private let redaction: Redaction
    private let writer: CassetteWriter
    /// Where the journal was read up to (the generation and the number of the next entry), the
    /// exchanges taken but not written yet, and how many were written.
    private let state = Locked(
      (generation: 0, next: 0, pending: [HAREntry](), recorded: 0, skippedStubAnswers: 0))

    init(backend: Backend, url: URL, redaction: Redaction) {
      self.backend = backend
      self.redaction = redaction
      writer = CassetteWriter(url: url, replacing: true)
      backend.addExchangeObserver { [weak self] _ in self?.take(finished: false) }
    }

    /// How many exchanges were written to the cassette.
    var count: Int { state.withLock { $0.recorded } }

    /// How many answers of stubs added through the admin API were left out.
    var skippedStubAnswers: Int { state.withLock { $0.skippedStubAnswers } }

    /// Writes the cassette when something was recorded since the last write.
    func saveIfChanged() throws { try write(finished: false, always: false) }

    /// Writes the cassette: at the start (replacing what the file held) and at the end, with
    /// every exchange that got an answer.
    func save() throws { try write(finished: true, always: true) }

    /// Takes the journal entries not taken yet: those with an answer (a response or an error), up
    /// to the first still waiting for one unless the recording is `finished`, so that the
    /// cassette keeps the order requests came in.
    private func take(finished: Bool) {
      state.withLock { state in
        let (journal, first, generation) = backend.journal(since: state.next, ofGeneration: state.generation)
        var next = first
        for entry in journal {
          if entry.stub != nil {
            // A stub added through the admin API answered: the upstream did not.
            if entry.response != nil || entry.error != nil || finished {
              state.skippedStubAnswers += 1
              next += 1
              continue
            }
            break
          }
          if let response = entry.response {
            if let recorded = try? HAREntry.recorded(
              request: entry.request, response: response, omitted: entry.omittedResponseBody)
            {
              state.pending.append(recorded)
            }
          } else if let error = entry.error as? URLError, error.code == .cancelled {
            // Cut off by Ctrl-C (or by its client going away): it did not complete.
          } else if let error = entry.error {
            state.pending.append(HAREntry(request: entry.request, error: error))
          } else if !finished {
            break
          }
          next += 1
        }
        state.generation = generation
        state.next = next
      }
    }

    private func write(finished: Bool, always: Bool) throws {
      take(finished: finished)
      try state.withLock { state in
        guard always || !state.pending.isEmpty else { return }
        try writer.record(state.pending, redaction: redaction)
        state.recorded += state.pending.count
        state.pending = []
      }
    }
  }
#endif
