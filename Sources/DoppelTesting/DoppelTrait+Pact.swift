#if canImport(Testing)
  import Doppel
  import Foundation
  import Testing

  /// What `.doppel(pact:pactDirectory:redaction:_:)` asks of a test's backend.
  struct PactOptions: Sendable {
    /// `Consumer-Provider`, as the trait was given it.
    var pair: String
    var directory: URL?
    var redaction: Redaction

    /// The folder the pact goes in: `directory`, else `DOPPEL_PACT_DIR`, else `pacts` in the
    /// package's folder (the nearest folder above the test file that holds `Package.swift`).
    func folder(for test: Test, environment: [String: String]) -> URL {
      if let directory { return directory }
      if let variable = environment["DOPPEL_PACT_DIR"], !variable.isEmpty {
        return URL(fileURLWithPath: variable, isDirectory: true)
      }
      var folder = URL(fileURLWithPath: test.sourceLocation.filePath).deletingLastPathComponent()
      let testFolder = folder
      while folder.path != "/" {
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
          return folder.appendingPathComponent("pacts", isDirectory: true)
        }
        folder.deleteLastPathComponent()
      }
      return testFolder.appendingPathComponent("pacts", isDirectory: true)
    }

    /// The consumer and provider names: `pair` split at its first `-`.
    func names() throws -> (consumer: String, provider: String) {
      guard let dash = pair.firstIndex(of: "-"), dash != pair.startIndex, pair.index(after: dash) != pair.endIndex
      else {
        throw DoppelError(
          "Invalid pact \"\(pair)\" in .doppel(pact:): name the consumer and the provider joined by \"-\", such as \"BreedsApp-BreedsAPI\" (the consumer's name ends at the first \"-\"; for a consumer whose name holds one, call Backend.current.writePact(consumer:provider:to:) at the end of the test).",
          kind: .usage)
      }
      return (String(pair[..<dash]), String(pair[pair.index(after: dash)...]))
    }
  }

  extension DoppelTrait {
    /// Runs `body`, then, when it returned, writes what the backend's stubs answered to the trait's
    /// pact, reporting an issue when it cannot. Without a pact, just runs `body`.
    func withPact(_ backend: Backend, for test: Test, _ body: @Sendable () async throws -> Void) async throws {
      guard let options = pact else { return try await body() }
      try await body()
      do {
        let (consumer, provider) = try options.names()
        let folder = options.folder(for: test, environment: ProcessInfo.processInfo.environment)
        try backend.writePact(consumer: consumer, provider: provider, to: folder, redaction: options.redaction)
      } catch {
        reportIssue("\(error)", at: CodeLocation(test.sourceLocation))
      }
    }
  }

  extension Trait where Self == DoppelTrait {
    /// Gives each test its own `Backend`, and when the test returns, writes what its stubs
    /// answered as a consumer contract: a Pact V4 file the provider's team can verify against the
    /// real service.
    ///
    /// ```swift
    /// @Test(.doppel(pact: "BreedsApp-BreedsAPI") { $0.stub(.get("/breeds.json"), .json(breeds), name: "breeds") })
    /// func listsBreeds() async {
    ///   let model = BreedListModel(session: Backend.current.session)
    ///   await model.load()
    ///   #expect(model.state == .breeds(Breed.all))
    /// }
    /// ```
    ///
    /// `pact` names the consumer and the provider, joined by `-`: the consumer's name ends at the
    /// first `-`. The file is `<consumer>-<provider>.json` in `pactDirectory`; without one, in the
    /// folder the environment variable `DOPPEL_PACT_DIR` names; without that, in `pacts` in the
    /// package's folder (the nearest folder above the test file that holds `Package.swift`).
    /// Nothing is written anywhere else.
    ///
    /// Tests that share a pact each add their interactions to the one file, as
    /// `Backend.writePact(consumer:provider:to:redaction:)` describes (an interaction of the same
    /// description is replaced). A test that throws writes nothing; a file that cannot be written
    /// fails the test with the reason.
    ///
    /// - Parameters:
    ///   - pact: `"<consumer>-<provider>"`, such as `"BreedsApp-BreedsAPI"`.
    ///   - pactDirectory: the folder the pact goes in; `nil` for `DOPPEL_PACT_DIR` or `pacts`.
    ///   - redaction: the secrets replaced before the pact is written.
    ///   - configure: declares the stubs; it may also set the backend's other properties.
    public static func doppel(
      pact: String, pactDirectory: URL? = nil, redaction: Redaction = .default,
      _ configure: @escaping @Sendable (Backend) async throws -> Void = { _ in }
    ) -> Self {
      var trait = DoppelTrait(requireAllStubsUsed: nil, unmatched: nil, configure: configure)
      trait.pact = PactOptions(pair: pact, directory: pactDirectory, redaction: redaction)
      return trait
    }
  }
#endif
