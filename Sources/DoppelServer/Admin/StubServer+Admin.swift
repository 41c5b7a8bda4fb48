#if Server
  import Doppel
  import Foundation

  extension StubServer {
    /// The admin API: a JSON API under a reserved path prefix through which another process (a UI
    /// test, a script, `DoppelRemote`) adds and removes stubs, switches the scenario, reads and
    /// sets the state, reads the journal, verifies calls and resets the server.
    ///
    /// On by default under `/__doppel/`. Requests under the prefix are answered by the server
    /// itself: they are never matched against stubs and never journaled.
    ///
    /// A web page in the browser beside the server is a caller too, so the admin API answers
    /// only requests that a page cannot send (the article "The stub server" has the whole trust
    /// model): a `Host` that is loopback or in ``allowedHosts``, no `Origin` but the server's own,
    /// no `Sec-Fetch-Site` of `cross-site` or `same-site`, `Content-Type: application/json` on
    /// every body, and the ``token`` when there is one. A refusal is a JSON error (403, 401 or
    /// 415) saying what was refused and the fix. Its answers carry no `Access-Control-*` field.
    /// Stubs it adds may name files only inside ``fixtureDirectory`` and proxy only to
    /// ``proxyHosts``. A server that listens beyond loopback (``Configuration/allowsNonLoopback``)
    /// refuses to start with the admin API on and no ``token`` (`doppel serve --allow-remote`
    /// turns it off unless a token is given, as in a container). The endpoints are
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

      /// A port of its own for the admin API, or `nil` (the default) to serve it on the server's
      /// port beside the stubs.
      ///
      /// With a port (0 lets the system choose one), the server listens twice on its host: the
      /// main port serves stubs only (a request under ``pathPrefix`` there is matched against the
      /// stubs like any other), and the admin port serves the admin API only, under the same
      /// prefix. ``StubServer/adminURL`` says where it is. Use it when the API under test has
      /// paths of its own under the prefix, or to keep admin traffic off the port the app talks
      /// to.
      public var port: Int?

      /// Where the stubs the server starts with come from, so that the admin API can switch
      /// scenarios and reset to them. Without it, a reset removes the stubs added through the admin
      /// API and keeps the others, and there are no scenarios to switch to.
      public var files: StubFiles?

      /// The folder stubs added through the admin API may name files in, or `nil` (the default):
      /// such stubs may name no file at all.
      ///
      /// With a folder, a stub's `"file"` body (templated or not) is found relative to it, and a
      /// proxy's `"record"` must be a `.har` path inside it; a path that leads out of it (an
      /// absolute path, `..`, a symbolic link) is refused with a 400 naming the key. Without one,
      /// any `"file"` or `"record"` is refused: a web page or another process that reached the
      /// admin API could otherwise read or write any file the server can (`doppel serve
      /// --admin-files DIR`).
      public var fixtureDirectory: URL?

      /// The folder the admin API saves stubs into as manifests (`POST saved-stubs`, the
      /// dashboard's "Save as stub"), or `nil` (the default): the admin API saves none, and such a
      /// request gets a 409 that names `doppel serve --save-stubs-to DIR`.
      ///
      /// A saved stub is added at once, as `POST stubs` adds one, and appended to the manifest the
      /// request names (`"file": "saved.json"`), made when it is not there. The name must lead to a
      /// `.json` file inside this folder: an absolute path, `..` or a symbolic link that leads out
      /// is refused with a 403, and no folder is made. What is written is redacted as the journal
      /// is (``journalRedaction``), so a secret header such as `Authorization` never reaches the
      /// disk, and it may name no file: a saved stub holds its answer (`json` or `text`).
      public var savedStubsDirectory: URL?

      /// The upstream hosts a stub added through the admin API may proxy to (`"proxy"`), compared
      /// without case; none by default, so such a stub cannot proxy at all (`doppel serve
      /// --admin-proxy HOST`). Stubs from files may proxy anywhere.
      public var proxyHosts: [String] = []

      /// The host names and addresses, besides loopback ones, that requests to the admin API may
      /// name in their `Host` header: none by default (`doppel serve --allow-host NAME`).
      ///
      /// The admin API always answers `localhost`, names ending in `.localhost`, `127.0.0.0/8`
      /// and `[::1]`, with any port. Any other `Host`, such as a name a web page made resolve to
      /// 127.0.0.1 (DNS rebinding), gets a 403 unless it is listed here. Write names without a
      /// port (`devbox.local`, `192.168.1.5`, `[fe80::1]`).
      ///
      /// The same names decide which requests the server forwards to an upstream, through a
      /// proxying stub or an unmatched policy of `.passthrough` (`doppel record`): one whose
      /// `Host` is neither loopback nor listed here gets a 403, so a rebinding page cannot read
      /// an upstream through the server. Plain stubs answer any `Host`.
      public var allowedHosts: [String] = []

      /// A token every admin request must send as `Authorization: Bearer <token>`, or `nil` (the
      /// default) for none. A request without it, or with another, gets a 401. The comparison takes
      /// the same time wherever the tokens differ (`doppel serve --admin-token-file PATH` or
      /// `DOPPEL_ADMIN_TOKEN`, which keep it out of the command line that `ps` shows).
      public var token: String?

      /// The redaction the journal's requests go through before the admin API (`GET requests`,
      /// which the dashboard shows, and `GET requests.har`) shows them, or `nil` (the default) for
      /// `Redaction.default`, as recording redacts; `Redaction.disabled` shows them as sent.
      /// `doppel record --admin` sets its recording's redaction, so real credentials never leave
      /// it in clear. `GET stubs` shows what each stub expects (its request and, for a stub added
      /// through the admin API, its definition) with the same secrets replaced, unless this is
      /// `Redaction.disabled`.
      public var journalRedaction: Redaction?

      /// Called once for each admin request the trust model refuses (a foreign `Host` or
      /// `Origin`, a missing token, a body that is not JSON), with the refusal's message, from
      /// the server's threads; `doppel serve` prints it.
      public var onRefusal: (@Sendable (String) -> Void)?

      /// The default: on, under `/__doppel/`, with no files.
      public init() {}

      /// Checks the prefix (`/` alone would hide every stub, and it must start and end with `/`)
      /// and the port.
      package func validate() throws(DoppelError) {
        if let port, !(0...65_535).contains(port) {
          throw DoppelError.server(
            "The admin API's port \(port) is not a TCP port. Use 1 to 65535, 0 to let the system choose, or nil to serve the admin API on the server's own port."
          )
        }
        guard let prefix = pathPrefix else {
          if port != nil {
            throw DoppelError.server(
              "The admin API has a port (\(port!)) but no path prefix, so it would answer nothing. Give it a prefix, such as /__doppel/, or set the port to nil."
            )
          }
          return
        }
        guard prefix.count > 1, prefix.hasPrefix("/"), prefix.hasSuffix("/"), !prefix.contains("?"),
          !prefix.contains("#"), !prefix.contains(" ")
        else {
          throw DoppelError.server(
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
