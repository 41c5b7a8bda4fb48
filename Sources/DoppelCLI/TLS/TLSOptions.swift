#if Server
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation

  /// `--tls` and `--tls-name`: HTTPS with a certificate from the local certificate authority.
  struct TLSOptions: ParsableArguments {
    @Flag(
      help:
        "Serve HTTPS with a certificate from your local certificate authority (made once; doppel trust says how to trust it)."
    )
    var tls = false

    @Option(
      name: .customLong("tls-name"),
      help: ArgumentHelp(
        "Another name or IP address for the certificate, such as 10.0.2.2 for an Android emulator or api.localhost (repeatable).",
        valueName: "name"))
    var names: [String] = []

    /// What to build when this doppel has no HTTPS.
    static let traitMessage =
      "this doppel was built without HTTPS (the package's TLS trait, which brings SwiftNIO SSL). Build it with the trait: swift build --traits TLS,OpenAPI --product doppel-cli"

    func validate() throws {
      guard tls || names.isEmpty else {
        throw ValidationError("--tls-name \(names[0]) names a certificate, and there is none without --tls; add --tls.")
      }
      try checkNames()
    }
  }
#endif
