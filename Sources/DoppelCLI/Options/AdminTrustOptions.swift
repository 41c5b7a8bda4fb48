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
      name: .customLong("admin-token-file"),
      help: ArgumentHelp(
        "Read the admin token from this file (its first line), kept out of the command line that ps shows; DOPPEL_ADMIN_TOKEN works too.",
        valueName: "path"))
    var tokenFile: String?

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
      if token != nil && tokenFile != nil {
        throw ValidationError("--admin-token and --admin-token-file both give the token; keep one of them.")
      }
      _ = try resolvedToken()
      if let files {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: files, isDirectory: &isDirectory), isDirectory.boolValue else {
          throw ValidationError("--admin-files \(files) is not a folder; create it, or name an existing one.")
        }
      }
    }

    /// The environment variable that gives the admin token when neither `--admin-token` nor
    /// `--admin-token-file` does.
    static let tokenVariable = "DOPPEL_ADMIN_TOKEN"

    /// Whether any option gives a token: `--admin-token` or `--admin-token-file` (not the
    /// environment, which may be set for other commands).
    var givesToken: Bool { token != nil || tokenFile != nil }

    /// The token as the options and the environment give it: `--admin-token` (which may be
    /// `generate`), else the first line of `--admin-token-file`, else `DOPPEL_ADMIN_TOKEN`, else
    /// `nil`.
    ///
    /// - Throws: `ValidationError` naming the file or the variable when its token cannot be used.
    func resolvedToken(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
      if let token { return token }
      if let tokenFile {
        let text: String
        do {
          text = try String(contentsOfFile: tokenFile, encoding: .utf8)
        } catch {
          throw ValidationError(
            "--admin-token-file \(tokenFile) cannot be read (\(error.localizedDescription)); write the token into that file, alone on its first line."
          )
        }
        let line = String(text.split(whereSeparator: \.isNewline).first ?? "").trimmingCharacters(in: .whitespaces)
        guard Self.isUsable(line) else {
          throw ValidationError(
            "--admin-token-file \(tokenFile): the first line must be the token, printable ASCII without spaces, and it is \(line.isEmpty ? "empty" : "not")."
          )
        }
        return line
      }
      if let value = environment[Self.tokenVariable], !value.isEmpty {
        guard Self.isUsable(value) else {
          throw ValidationError("\(Self.tokenVariable) must be printable ASCII without spaces.")
        }
        return value
      }
      return nil
    }

    private static func isUsable(_ token: String) -> Bool {
      !token.isEmpty && token.allSatisfy { (0x21...0x7E).contains($0.asciiValue ?? 0) }
    }

    /// The warning printed when the token is given in the command line, where `ps` shows it to
    /// every user of the computer; `nil` otherwise (`generate` and the other ways).
    var commandLineWarning: String? {
      guard let token, token != "generate" else { return nil }
      return
        "warning: --admin-token puts the token in the command line, which ps shows to every user of this computer; use --admin-token-file <path> or the \(Self.tokenVariable) environment variable instead."
    }

    /// The warning printed when other users may read the `--admin-token-file`, which makes the
    /// token as visible as the command line; `nil` otherwise.
    var tokenFileWarning: String? {
      guard let tokenFile,
        let mode = (try? FileManager.default.attributesOfItem(atPath: tokenFile))?[.posixPermissions] as? Int,
        mode & 0o077 != 0
      else { return nil }
      return
        "warning: --admin-token-file \(tokenFile) can be read by other users of this computer (mode \(String(mode & 0o777, radix: 8))); make it yours alone with chmod 600 \(tokenFile)."
    }

    /// Sets up `admin` as the options say; returns the token to print when one was generated.
    func apply(to admin: inout StubServer.AdminAPI) throws -> String? {
      admin.allowedHosts = allowedHosts
      admin.proxyHosts = proxyHosts
      admin.fixtureDirectory = files.map { URL(fileURLWithPath: $0).standardizedFileURL }
      admin.onRefusal = { Console.out($0) }
      if let warning = commandLineWarning { Console.error(warning) }
      if let warning = tokenFileWarning { Console.error(warning) }
      // Only the option makes one: a file or the environment holding "generate" is that token.
      guard token == "generate" else {
        admin.token = try resolvedToken()
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
