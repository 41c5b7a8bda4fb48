import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Which scenario of a ``Manifest`` a backend uses: a name given in code, or one taken from the
/// environment so a running app or a UI test can be put into any state.
///
/// ```swift
/// try Backend(manifest: manifest, scenario: "empty")     // from code
/// try Backend(manifest: manifest)                         // DOPPEL_SCENARIO, then -DoppelScenario
/// try Backend(manifest: manifest, scenario: .base)        // the base stubs only
/// ```
///
/// ``automatic`` looks, in order, at the `DOPPEL_SCENARIO` environment variable and at the launch
/// argument `-DoppelScenario NAME` (set in an Xcode scheme, or by a UI test through
/// `XCUIApplication.launchArguments`); with neither, only the base stubs are used.
public struct ScenarioSelection: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
  enum Kind: Sendable {
    case base
    case named(String)
    case given(String, source: String)
    case automatic(environment: [String: String], arguments: [String])
  }

  let kind: Kind

  private init(kind: Kind) { self.kind = kind }

  /// The environment variable ``automatic`` reads: `DOPPEL_SCENARIO`.
  public static let environmentVariable = "DOPPEL_SCENARIO"

  /// The launch argument ``automatic`` reads, followed by the name: `-DoppelScenario`.
  public static let launchArgument = "-DoppelScenario"

  /// The base stubs only, whatever the environment says.
  public static let base = ScenarioSelection(kind: .base)

  /// The scenario called `name`.
  public static func named(_ name: String) -> ScenarioSelection { ScenarioSelection(kind: .named(name)) }

  /// The scenario called `name`, chosen where `source` says (`from --scenario`), for the
  /// message when a manifest has no such scenario.
  package static func named(_ name: String, source: String) -> ScenarioSelection {
    ScenarioSelection(kind: .given(name, source: source))
  }

  /// The scenario called `value`: `scenario: "empty"`.
  public init(stringLiteral value: String) { kind = .named(value) }

  /// The scenario named by this process's `DOPPEL_SCENARIO` environment variable, else by its
  /// `-DoppelScenario NAME` launch argument, else none (the base stubs only).
  public static var automatic: ScenarioSelection {
    automatic(environment: ProcessInfo.processInfo.environment, arguments: ProcessInfo.processInfo.arguments)
  }

  /// ``automatic`` reading the given environment and arguments instead of the process's.
  public static func automatic(environment: [String: String], arguments: [String]) -> ScenarioSelection {
    ScenarioSelection(kind: .automatic(environment: environment, arguments: arguments))
  }

  /// `"empty"`, `base`, or `automatic (DOPPEL_SCENARIO, -DoppelScenario)`.
  public var description: String {
    switch kind {
    case .base: "base"
    case .named(let name), .given(let name, _): "\"\(name)\""
    case .automatic: "automatic (\(Self.environmentVariable), \(Self.launchArgument))"
    }
  }

  /// The name chosen and where it came from, or `nil` for none.
  package func resolve() throws(DoppelError) -> (name: String, source: String)? {
    switch kind {
    case .base:
      return nil
    case .named(let name):
      return (name, "chosen in code")
    case .given(let name, let source):
      return (name, source)
    case .automatic(let environment, let arguments):
      if let name = environment[Self.environmentVariable], !name.isEmpty {
        return (name, "from the \(Self.environmentVariable) environment variable")
      }
      guard let flag = arguments.lastIndex(of: Self.launchArgument) else { return nil }
      let next = arguments.index(after: flag)
      guard next < arguments.endIndex, !arguments[next].isEmpty, !arguments[next].hasPrefix("-") else {
        throw DoppelError.manifest(
          "The launch argument \(Self.launchArgument) needs a scenario name after it, as in \(Self.launchArgument) empty."
        )
      }
      return (arguments[next], "from the launch argument \(Self.launchArgument)")
    }
  }
}
