import Foundation

/// What the `catfancy` tool was asked to do, parsed from its arguments.
public enum CatFancyCommand: Equatable, Sendable {
  /// Show every scenario of the bundled manifest (no arguments).
  case all
  /// Show one scenario of the bundled manifest (`--scenario NAME`).
  case scenario(CatFancyScenario)
  /// Fetch the standard variant from the real server with `URLSession.shared` (`--live`).
  case live
  /// Answer `URLSession.shared` process-wide from the bundled manifest and show the app's URL, in
  /// the scenario named by `DOPPEL_SCENARIO` or `-DoppelScenario` if any (`--shared`).
  case shared
  /// Print the usage (`--help`, `-h`).
  case help

  /// A command line the tool does not understand; the message says what is wrong.
  public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, in a sentence that names the valid choices.
    public let message: String

    /// Creates an error with `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
  }

  /// The valid scenario names, comma-separated: `standard, empty, malformed, withMore, slow`.
  public static var scenarioNames: String {
    CatFancyScenario.allCases.map(\.rawValue).joined(separator: ", ")
  }

  /// How to use the tool.
  public static var usage: String {
    """
    Usage: catfancy [--scenario NAME | --live | --shared | --help]

    Shows the CatFancy breeds screen as text. Every answer comes from the bundled fixtures
    (Fixtures/doppel.json); no request reaches the network, except with --live.

      (no option)      every scenario, one after the other
      --scenario NAME  one scenario: \(scenarioNames)
      --live           the standard list from the real server, with URLSession.shared
      --shared         the list, with URLSession.shared answered by the manifest; the scenario
                       comes from DOPPEL_SCENARIO=NAME, if set
      --help, -h       this text
    """
  }

  /// Parses the tool's arguments, without the program name.
  ///
  /// ```swift
  /// try CatFancyCommand.parse(["--scenario", "empty"])  // .scenario(.empty)
  /// try CatFancyCommand.parse([])                       // .all
  /// ```
  ///
  /// `--help` wins over anything else. `--scenario=NAME` is accepted too.
  ///
  /// - Throws: ``UsageError`` for an unknown option or scenario, a missing scenario name, or more
  ///   than one mode.
  public static func parse(_ arguments: [String]) throws(UsageError) -> CatFancyCommand {
    if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }
    var commands: [CatFancyCommand] = []
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      switch argument {
      case "--live": commands.append(.live)
      case "--shared": commands.append(.shared)
      case "--scenario":
        guard let name = remaining.popFirst() else {
          throw UsageError("--scenario needs a name; valid scenarios: \(scenarioNames)")
        }
        commands.append(.scenario(try scenario(named: name)))
      case let option where option.hasPrefix("--scenario="):
        commands.append(.scenario(try scenario(named: String(option.dropFirst("--scenario=".count)))))
      default:
        throw UsageError("unknown argument \"\(argument)\"; run catfancy --help for usage")
      }
    }
    guard commands.count <= 1 else {
      throw UsageError("choose one of --scenario, --live and --shared")
    }
    return commands.first ?? .all
  }

  /// What the tool prints first, unless `--live`: where the answers come from, and the URL the app
  /// asks for, as what the backend stubs (it is never fetched).
  ///
  /// ```
  /// Every answer comes from CatFancy's bundled fixtures (Fixtures/doppel.json), served by a Doppel
  /// backend: no request reaches the network.
  /// The app asks for https://…/CatFancy/breeds.json; each scenario stubs that URL.
  /// ```
  public static func fixturesNote(url: URL) -> String {
    """
    Every answer comes from CatFancy's bundled fixtures (Fixtures/doppel.json), served by a Doppel
    backend: no request reaches the network.
    The app asks for \(url.absoluteString); each scenario stubs that URL.
    """
  }

  /// What `--live` prints when the real server could not give the breeds, for example
  /// `could not reach https://…/breeds.json: the device is offline; run without --live to use the
  /// bundled fixtures`.
  public static func liveFailureMessage(url: URL, error: BreedsError) -> String {
    let problem: String
    switch error {
    case .network(let reason): problem = "could not reach \(url.absoluteString): \(reason)"
    case .badStatus: problem = "could not reach \(url.absoluteString): \(error)"
    case .malformed(let reason): problem = "could not read the breeds from \(url.absoluteString): \(reason)"
    }
    return "\(problem); run without --live to use the bundled fixtures"
  }

  private static func scenario(named name: String) throws(UsageError) -> CatFancyScenario {
    guard let variant = CatFancyScenario(rawValue: name) else {
      throw UsageError("unknown scenario \"\(name)\"; valid scenarios: \(scenarioNames)")
    }
    return variant
  }
}
