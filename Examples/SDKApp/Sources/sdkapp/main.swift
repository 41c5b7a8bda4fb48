// An app under a UI test, in miniature: in its debug build it starts Doppel's in-process backend
// from the launch environment (`InAppBackend`), waits (bounded) for the test's stubs, then an SDK
// inside it makes its own session from `URLSessionConfiguration.default` and fetches its remote
// configuration. The test, in another process, drives the backend through `DoppelRemote` and reads
// the journal back. `DoppelCLITests`' `InAppBackendTests` play the UI test on Linux.
//
//     DOPPEL_ADMIN_PORT=0 DOPPEL_WAIT_FOR_STUBS=10 swift run --traits Server sdkapp
//
// Prints `admin http://127.0.0.1:PORT` once the admin API listens, then `answer STATUS BODY` (or
// `failed …`), and keeps running (as an app does) until it is stopped, or for a minute.
#if Server
  import Doppel
  import DoppelServer
  import Foundation

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Stands in for a third-party SDK: it makes its own session, which the app never sees.
  struct FeatureFlagsSDK {
    /// Plain HTTP: on Linux Doppel answers an SDK's own session for `http://` only (through its
    /// network guard); on Apple platforms `https://` is answered too.
    static let configURL = URL(string: "http://flags.sdk.example/v1/config")!
    private let session = URLSession(configuration: .default)

    func fetchConfiguration() async -> String {
      do {
        let (data, response) = try await session.data(from: Self.configURL)
        return "answer \((response as? HTTPURLResponse)?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))"
      } catch {
        return "failed \(error)"
      }
    }
  }

  /// One line on standard output, at once (unbuffered, for whoever reads the pipe).
  func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  do {
    // An app writes this under `#if DEBUG`; the example runs it in every configuration.
    let doppel = try await InAppBackend.start()
    if let doppel { say("admin \(doppel.adminURL.absoluteString) ready=\(doppel.wasSignalledReady)") }
    // The SDK is made after the backend started, as an app's SDKs are made after its first lines.
    let sdk = FeatureFlagsSDK()
    say(await sdk.fetchConfiguration())
    try? await Task.sleep(for: .seconds(60))
    await doppel?.stop()
  } catch {
    say("failed \(error)")
    exit(1)
  }
#else
  print("sdkapp needs the Server trait: swift run --traits Server sdkapp")
#endif
