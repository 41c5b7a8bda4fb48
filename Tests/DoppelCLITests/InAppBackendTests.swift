#if Server
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Shaped like a UI test driving the app's own backend: the `sdkapp` example plays the app (its
  /// in-process backend started from the launch environment, an SDK inside it making its own
  /// session from `URLSessionConfiguration.default`), and the test drives it only through
  /// `DoppelRemote`, as an XCUITest would with `XCUIApplication().launchEnvironment`. Each app
  /// asks the system for a port (`DOPPEL_ADMIN_PORT=0`) and says which on standard error, so
  /// parallel runs never collide.
  ///
  /// On Linux the SDK's session is answered for its plain `http://` URL through Doppel's network
  /// guard (FoundationNetworking lets no class come before its own in such a session); on Apple
  /// platforms through the swizzled configuration getters, which would answer `https://` too.
  @Suite(.timeLimit(.minutes(1))) struct InAppBackendTests {
    static let configURL = "http://flags.sdk.example/v1/config"

    /// Starts the app with `environment`; returns it and the admin API's URL it printed.
    static func launch(_ environment: [String: String]) async throws -> (DoppelProcess, URL) {
      let app = try DoppelProcess([], executable: builtExecutable("sdkapp").path, environment: environment)
      let line = try await app.errors.first { $0.contains("its admin API listens on") }
      let words = line.split(separator: " ")
      let text = words.first { $0.hasPrefix("http://127.0.0.1:") }.map { String($0.dropLast()) }
      guard let text, let url = URL(string: text) else {
        throw DoppelError("No admin URL in the app's line: \(line)")
      }
      return (app, url)
    }

    @Test func theTestAddsItsStubsBeforeTheAppsFirstRequestAndReadsTheJournalBack() async throws {
      let (app, url) = try await Self.launch([
        "DOPPEL_ADMIN_PORT": "0", "DOPPEL_ADMIN_TOKEN": "s3cret-launch-token", "DOPPEL_WAIT_FOR_STUBS": "30",
      ])
      let remote = DoppelRemote(url, token: "s3cret-launch-token")
      try await remote.stub(.get(Self.configURL), .json(["darkMode": true]))
      try await remote.signalReady()
      #expect(try await app.line(containing: "answer") == #"answer 200 {"darkMode":true}"#)
      #expect(app.outputLines.first?.hasSuffix("ready=true") == true)
      let journal = try await remote.journal().entries
      #expect(
        journal.map { "\($0.request.method) \($0.request.url.absoluteString) \($0.status ?? 0)" } == [
          "GET \(Self.configURL) 200"
        ])
      try await remote.verify(.get(Self.configURL), count: 1)
      // The admin API keeps the stub server's trust model: no token, no access.
      await #expect(throws: (any Error).self) { try await DoppelRemote(url).stubs() }
      app.interrupt()
      _ = await app.waitForExit()
    }

    @Test func aManifestInTheLaunchEnvironmentAnswersWithoutWaiting() async throws {
      let manifest = #"{"stubs": [{"request": "GET \#(Self.configURL)", "response": {"json": {"darkMode": false}}}]}"#
      let (app, url) = try await Self.launch(["DOPPEL_ADMIN_PORT": "0", "DOPPEL_MANIFEST": manifest])
      #expect(try await app.line(containing: "answer") == #"answer 200 {"darkMode":false}"#)
      try await DoppelRemote(url).verify(.get(Self.configURL), count: 1)
      app.interrupt()
      _ = await app.waitForExit()
    }

    /// An ordinary launch starts nothing; a bad variable is refused, naming it and the fix.
    @Test func theLaunchEnvironmentIsCheckedBeforeAnythingStarts() async throws {
      #expect(try await InAppBackend.start(environment: [:]) == nil)
      await #expect(
        throws: DoppelError(
          "DOPPEL_WAIT_FOR_STUBS=forever is not a number of seconds from 0 to 120. Set it to how long the app may wait for DoppelRemote.signalReady(), such as 10.",
          kind: .server)
      ) { try await InAppBackend.start(environment: ["DOPPEL_ADMIN_PORT": "0", "DOPPEL_WAIT_FOR_STUBS": "forever"]) }
      await #expect(
        throws: DoppelError(
          "DOPPEL_ADMIN_PORT=http is not a TCP port. Set it to a port from 1 to 65535, or 0 to let the system choose (then read it from DOPPEL_ADMIN_PORT_FILE).",
          kind: .server)
      ) { try await InAppBackend.start(environment: ["DOPPEL_ADMIN_PORT": "http"]) }
    }
  }
#endif
