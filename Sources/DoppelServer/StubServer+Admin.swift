#if Server
  import Doppel
  import Foundation

  extension StubServer {
    /// The admin API: a JSON API under a reserved path prefix through which another process (a UI
    /// test, a script, `DoppelRemote`) adds and removes stubs, switches the scenario, reads and
    /// sets the state, reads the journal, verifies calls and resets the server.
    ///
    /// On by default under `/__doppel/`. Requests under the prefix are answered by the server
    /// itself: they are never matched against stubs and never journaled. Whoever can reach the
    /// server can use it, and a stub it adds can serve any file the server can read: on a server
    /// that listens beyond loopback (``Configuration/allowsNonLoopback``), turn it off unless the
    /// network is yours (`doppel serve --allow-remote` turns it off unless `--admin-prefix` is
    /// given). The endpoints are
    /// described in `Schemas/doppel-admin.openapi.yaml` and in the article "The stub server".
    ///
    /// ```swift
    /// var configuration = StubServer.Configuration()
    /// configuration.admin.pathPrefix = "/_admin/"
    /// configuration.admin.files = StubServer.StubFiles(scenarioNames: manifest.scenarioNames) { scenario in
    ///   try Backend(manifest: manifest, scenario: scenario.map(ScenarioSelection.named) ?? .base)
    /// }
    /// ```
    public struct AdminAPI: Sendable {
      /// The path prefix the admin API answers under: `/__doppel/` by default; `nil` turns the API
      /// off. It starts and ends with `/`.
      public var pathPrefix: String? = "/__doppel/"

      /// Where the stubs the server starts with come from, so that the admin API can switch
      /// scenarios and reset to them. Without it, a reset removes the stubs added through the admin
      /// API and keeps the others, and there are no scenarios to switch to.
      public var files: StubFiles?

      /// The directory relative fixture paths (`"file": "breeds.json"`) of stubs added through the
      /// admin API are found in: the current directory by default.
      public var fixtureDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)

      /// The default: on, under `/__doppel/`, with no files.
      public init() {}

      /// Checks the prefix: `/` alone would hide every stub, and it must start and end with `/`.
      package func validate() throws(DoppelError) {
        guard let prefix = pathPrefix else { return }
        guard prefix.count > 1, prefix.hasPrefix("/"), prefix.hasSuffix("/"), !prefix.contains("?"),
          !prefix.contains("#"), !prefix.contains(" ")
        else {
          throw DoppelError(
            "The admin API's path prefix \"\(prefix)\" is not a path prefix: it starts and ends with / and holds at least one segment, such as /__doppel/. Pass nil to turn the admin API off."
          )
        }
      }
    }

    /// The stubs a server serves from files (manifests, cassettes), by scenario: what the admin
    /// API's reset goes back to and its scenario switch chooses among.
    public struct StubFiles: Sendable {
      /// The scenarios there are, in order.
      public var scenarioNames: [String]
      /// The scenario served when the server starts; `nil` for the base stubs alone.
      public var scenario: String?
      /// Reads the files into a new backend with `scenario` (or the base stubs alone for `nil`).
      /// Called on a scenario switch, a reset and ``StubServer/reloadFiles()``; its stubs and
      /// unmatched policy replace the server's, while the journal and the state stay.
      public var load: @Sendable (_ scenario: String?) throws -> Backend

      /// Creates a description of the files.
      public init(
        scenarioNames: [String] = [], scenario: String? = nil,
        load: @escaping @Sendable (_ scenario: String?) throws -> Backend
      ) {
        self.scenarioNames = scenarioNames
        self.scenario = scenario
        self.load = load
      }
    }

    /// Reads the files again (``AdminAPI/files``) in the current scenario and serves what they say,
    /// keeping the stubs added through the admin API (over the new ones), the journal and the
    /// state. `doppel serve` calls it when an input changes.
    ///
    /// - Returns: notes for the log: a state reset because no stub uses it any more.
    /// - Throws: what reading the files throws; the server keeps serving what it served.
    @discardableResult
    public func reloadFiles() throws -> [String] {
      try core.admin.reload(core.backend)
    }
  }
#endif
