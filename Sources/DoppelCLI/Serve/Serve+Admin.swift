#if Server
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  extension Serve {
    /// The admin API's prefix, or `nil` for off: `/__doppel/` unless `--admin-prefix` says
    /// otherwise, and with `--allow-remote` off unless a token is given, since anyone who reaches
    /// the server could then add stubs (and a stub can serve any file the server can read); the
    /// server refuses to serve it beyond loopback without a token.
    var effectiveAdminPrefix: String? {
      guard let adminPrefix else { return listen.allowRemote && !givesAnyToken ? nil : "/__doppel/" }
      return adminPrefix == "off" ? nil : adminPrefix
    }

    /// Whether an option or `DOPPEL_ADMIN_TOKEN` gives the admin API a token.
    var givesAnyToken: Bool { ((try? trust.resolvedToken()) ?? nil) != nil }

    /// The line `doppel serve --allow-remote` prints when the admin API is off for want of a token.
    static let remoteAdminOffLine =
      "The admin API is off: the server may listen beyond loopback (--allow-remote), where the admin API needs a token. Give one with --admin-token-file <path> or DOPPEL_ADMIN_TOKEN to turn it on."

    /// The summary of the inputs as last loaded, for the "Reloaded" line.
    static let lastSummary = Locked("")

    /// The files the OpenAPI documents' `$ref`s named when the inputs were last loaded: watched
    /// as the inputs are.
    static let lastReferencedFiles = Locked([String]())

    /// Keeps what the watcher and `--validate` need of the inputs as loaded now.
    static func remember(_ loaded: ServeInputs.Loaded) {
      lastSummary.withLock { $0 = loaded.summary }
      lastReferencedFiles.withLock { $0 = loaded.openAPI.referencedFiles }
      rememberDocuments(loaded)
      rememberSchemas(loaded)
    }

    /// Checks `--admin-prefix`, `--journal-limit`, `--journal-mib`, `--journal-body-kib` and `--save-stubs-to`.
    func validateAdmin() throws {
      guard (1...10_000_000).contains(journalLimit) else {
        throw ValidationError(
          "--journal-limit \(journalLimit) is out of range; use 1 to 10000000 (requests the journal keeps).")
      }
      guard (1...65_536).contains(journalMebibytes) else {
        throw ValidationError(
          "--journal-mib \(journalMebibytes) is out of range; use 1 to 65536 (mebibytes of bodies the journal keeps).")
      }
      guard (0...1_048_576).contains(journalBodyKibibytes) else {
        throw ValidationError(
          "--journal-body-kib \(journalBodyKibibytes) is out of range; use 0 to 1048576 (kibibytes of the largest body journaled whole)."
        )
      }
      if let adminPort {
        guard (0...65_535).contains(adminPort) else {
          throw ValidationError("--admin-port \(adminPort) is not a TCP port; use 0 to 65535.")
        }
        guard effectiveAdminPrefix != nil else {
          throw ValidationError(
            "--admin-port \(adminPort) asks for the admin API, which is off; drop --admin-port, or pass --admin-prefix."
          )
        }
        guard adminPort == 0 || adminPort != listen.port else {
          throw ValidationError("--admin-port \(adminPort) is --port too; give the admin API another port, or drop it.")
        }
      }
      if let saveStubsTo {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: saveStubsTo, isDirectory: &isDirectory), isDirectory.boolValue
        else {
          throw ValidationError(
            "--save-stubs-to \(saveStubsTo) is not a folder; create it, or name an existing one.")
        }
        guard effectiveAdminPrefix != nil else {
          throw ValidationError(
            "--save-stubs-to \(saveStubsTo) saves stubs through the admin API, which is off; drop --save-stubs-to, or pass --admin-prefix (with --allow-remote, a token too)."
          )
        }
      }
      guard let prefix = effectiveAdminPrefix else { return }
      var admin = StubServer.AdminAPI()
      admin.pathPrefix = prefix
      do {
        try admin.validate()
      } catch {
        throw ValidationError(
          "--admin-prefix \(prefix) is not a path prefix; write one such as /__doppel/, or off.")
      }
    }

    /// The backend the server keeps for its whole life (its journal bounded by `--journal-limit`,
    /// `--journal-mib` and `--journal-body-kib`),
    /// serving what `loaded` says, and the admin API's settings: the prefix and how to read the
    /// inputs again in another scenario.
    func adminBackend(
      _ loaded: ServeInputs.Loaded, inputs: ServeInputs, configuration: inout StubServer.Configuration
    ) -> Backend {
      let backend = Backend(issueReporter: .ignore, journalLimit: journalLimit)
      // Large uploads must not grow the server's memory without bound, whatever --journal-limit.
      backend.journalByteLimit = journalMebibytes * 1024 * 1024
      backend.journalBodyLimit = journalBodyKibibytes * 1024
      backend.replaceStubs(with: loaded.backend)
      Self.remember(loaded)
      configuration.admin.pathPrefix = effectiveAdminPrefix
      configuration.admin.port = adminPort
      let paths = inputs.paths
      let (matching, replayingTimings, documentOptions, strict) = (
        inputs.matching, inputs.replayingTimings, inputs.documentOptions, inputs.strict
      )
      configuration.admin.files = StubServer.StubFiles(
        scenarioNames: loaded.scenarioNames, scenario: inputs.scenario
      ) { scenario in
        let reloaded = try ServeInputs(
          paths: paths, scenario: scenario, matching: matching, replayingTimings: replayingTimings,
          documentOptions: documentOptions, strict: strict
        ).load()
        Self.remember(reloaded)
        return reloaded.backend
      }
      return backend
    }
  }
#endif
