#if Server
  import ArgumentParser
  import Doppel
  import Foundation

  /// `doppel`: the stub server and its tools on the command line.
  @main
  struct DoppelTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "doppel",
      abstract: "A stand-in HTTP backend: serve stubs, record traffic, check manifests and cassettes.",
      discussion: """
        Examples:
          doppel serve Examples/CatFancy/Sources/CatFancyKit/Fixtures
          doppel serve doppel.json --scenario empty --port 8080
          doppel serve recorded.har
          doppel record --upstream https://api.example.com --out api.har
          doppel convert recorded.har --to-manifest doppel.json
          doppel lint doppel.json recorded.har
          doppel drift recorded.har --against https://staging.example.com
          doppel serve --tls doppel.json
          doppel trust
        """,
      version: DoppelVersion.description,
      subcommands: [Serve.self, Record.self, Convert.self, Lint.self, Drift.self, Trust.self]
    )

    static func main() async {
      do {
        try suggestSubcommand(for: Array(CommandLine.arguments.dropFirst()))
        var command = try parseAsRoot()
        if var command = command as? any AsyncParsableCommand {
          try await command.run()
        } else {
          try command.run()
        }
      } catch {
        exit(withError: error)
      }
    }

    /// Refuses a first argument that is no subcommand (`doppel srve`), naming the closest one;
    /// ArgumentParser suggests the closest option for an option's typo, but not a subcommand.
    static func suggestSubcommand(for arguments: [String]) throws {
      guard let first = arguments.first, !first.hasPrefix("-") else { return }
      let names = configuration.subcommands.map { $0._commandName } + ["help"]
      guard !names.contains(first) else { return }
      let closest = Suggestion.closest(to: first, in: names).map { " Did you mean '\($0)'?" } ?? ""
      throw ValidationError(
        "Unknown subcommand '\(first)'.\(closest) The subcommands are: \(names.dropLast().joined(separator: ", ")).")
    }
  }
#else
  import Foundation

  /// `doppel` built without the `Server` trait: says how to build the real tool.
  @main
  enum DoppelTool {
    static func main() {
      let message = """
        doppel was built without the Server trait, which brings the stub server and SwiftNIO.
        Build it with the trait on: swift run --traits Server doppel-cli --help

        """
      FileHandle.standardError.write(Data(message.utf8))
      exit(2)
    }
  }
#endif
