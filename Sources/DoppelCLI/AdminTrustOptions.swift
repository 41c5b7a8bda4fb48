#if Server
  import ArgumentParser
  import Doppel
  import DoppelServer
  import Foundation

  /// Who may use the admin API, and what stubs added through it may reach: options `doppel serve`
  /// and `doppel record --admin` share.
  struct AdminTrustOptions: ParsableArguments {
    @Option(
      name: .customLong("allow-host"),
      help: ArgumentHelp(
        "Also answer admin requests whose Host is this name or address (repeatable); loopback names always are.",
        valueName: "name"))
    var allowedHosts: [String] = []

    @Option(
      name: .customLong("admin-token"),
      help: ArgumentHelp(
        "Require Authorization: Bearer <token> on admin requests; 'generate' makes one and prints it.",
        valueName: "token"))
    var token: String?

    @Option(
      name: .customLong("admin-files"),
      help: ArgumentHelp(
        "The folder stubs added through the admin API may name files in (and record .har cassettes into); by default they may name none.",
        valueName: "dir"))
    var files: String?

    @Option(
      name: .customLong("admin-proxy"),
      help: ArgumentHelp(
        "A host stubs added through the admin API may proxy to (repeatable); by default none.", valueName: "host"))
    var proxyHosts: [String] = []

    func validate() throws {
      for host in allowedHosts where host.isEmpty || host.contains("/") || host.contains(" ") {
        throw ValidationError(
          "--allow-host \(host) is not a host name or address; write it without scheme or port, such as devbox.local or 192.168.1.5."
        )
      }
      if let token, token.isEmpty || token.contains(where: { $0.isWhitespace || !$0.isASCII }) {
        throw ValidationError(
          "--admin-token must be printable ASCII without spaces; pass --admin-token generate to have one made.")
      }
      if let files {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: files, isDirectory: &isDirectory), isDirectory.boolValue else {
          throw ValidationError("--admin-files \(files) is not a folder; create it, or name an existing one.")
        }
      }
    }

    /// Sets up `admin` as the options say; returns the token to print when one was generated.
    func apply(to admin: inout StubServer.AdminAPI) -> String? {
      admin.allowedHosts = allowedHosts
      admin.proxyHosts = proxyHosts
      admin.fixtureDirectory = files.map { URL(fileURLWithPath: $0).standardizedFileURL }
      admin.onRefusal = { Console.out($0) }
      guard let token else { return nil }
      guard token == "generate" else {
        admin.token = token
        return nil
      }
      var generator = SystemRandomNumberGenerator()
      let made = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
      admin.token = made
      return made
    }

    /// The line `doppel serve` prints for a generated token.
    static func tokenLine(_ token: String) -> String {
      "The admin API's token is \(token); send it as Authorization: Bearer \(token) (DoppelRemote(url, token: …))."
    }
  }
#endif
