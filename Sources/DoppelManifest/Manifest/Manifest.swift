import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A backend described in JSON (`doppel.json`): stubs, named scenarios layered over them, and
/// fixture files, so the same description serves tests, an app's debug build and a stub server.
///
/// ```json
/// {
///   "stubs": [
///     { "request": "GET https://api.example.com/breeds.json", "response": { "file": "breeds.json" } }
///   ],
///   "scenarios": {
///     "empty": {
///       "stubs": [
///         { "request": "GET https://api.example.com/breeds.json", "response": { "json": { "breeds": [] } } }
///       ]
///     }
///   }
/// }
/// ```
///
/// ```swift
/// let manifest = try Manifest.load(contentsOf: fixturesDirectory)
/// let backend = try Backend(manifest: manifest, scenario: "empty")
/// ```
///
/// Everything is checked when the manifest is loaded: malformed JSON, an unknown key, a bad URL, a
/// fixture file that does not exist, a number out of range (delays go up to 24 hours, counts and
/// byte counts up to 1,000,000,000). Each error is a ``DoppelError`` whose message names the file,
/// the line and column, the key path (`stubs[2].response.status`) and the fix, one line per problem.
/// The format is
/// described field by field in the "Fixtures and scenarios" article, and as a JSON Schema in
/// `Schemas/doppel-manifest.schema.json`.
public struct Manifest: Sendable {
  /// The file the manifest was read from, or for a fixture directory, the directory.
  public let url: URL
  /// The manifest's `description`, if it has one.
  public let description: String?
  let stubs: [ManifestStub]
  let scenarios: [ManifestScenario]
  let unmatched: UnmatchedPolicy?
  /// The manifest's `graphql`, which `DoppelGraphQL` serves.
  let graphQL: ManifestGraphQL?
  /// The manifest's `seed`: where random delays and failure rates start from (see ``Backend/seed``).
  public let seed: UInt64?
  private let scenariosPosition: TextPosition?
  /// What the manifest says that is served as written but is likely a mistake, one line each in
  /// the order of the file (`doppel.json:3:18: stubs[0].request: "GTE" is not a registered HTTP
  /// method. Did you mean "GET"?`): `doppel lint` reports them, `doppel serve` prints them.
  package let warnings: [String]

  /// The name manifests have by default: `doppel.json`.
  public static let defaultFileName = "doppel.json"

  /// The scenario names, in the order they are written.
  public var scenarioNames: [String] { scenarios.map(\.name) }

  /// The `description` of the scenario named `name`, if it has one.
  public func description(ofScenario name: String) -> String? {
    scenarios.first { $0.name == name }?.description
  }

  /// Reads a manifest as if it were the file at `url`: errors name `url`, and fixture files are
  /// found relative to its directory.
  ///
  /// - Throws: ``DoppelError`` for bytes that are not UTF-8 (naming the offset of the first bad
  ///   byte), malformed JSON, or anything the manifest format does not allow. Reading goes on past
  ///   a problem wherever the rest does not depend on it, so the message reports every problem of
  ///   the file: one line each, in the order of the file, each `file:line:column: key path: what is
  ///   wrong. The fix.` Files are named as `url` names them: a relative file URL stays relative.
  public init(data: Data, url: URL) throws(DoppelError) {
    let bytes = [UInt8](data)
    let reader = ManifestReader(url: url, bytes: bytes)
    if let offset = UTF8Validation.firstInvalidByte(in: bytes) {
      throw DoppelError.manifest(
        "\(reader.displayPath):\(reader.position(offset)): the manifest is not UTF-8 text: the byte 0x\(UTF8Validation.hex(bytes[offset])) at byte offset \(offset) is not valid UTF-8. Save the file as UTF-8.",
        at: reader.location(offset))
    }
    let root: PositionedJSON
    do {
      // Inline bodies are mostly served as text copied from the bytes: their trees are built
      // only where a reader needs one (a request's JSON body to match).
      root = try PositionedJSONParser.parse(bytes, deferring: ["json", "jsonContaining"])
    } catch {
      throw DoppelError.manifest(
        "\(reader.displayPath):\(reader.position(error.offset)): malformed JSON: \(error.message).",
        at: reader.location(error.offset))
    }
    let document = reader.document(root)
    let problems = reader.log.sorted
    if let first = problems.first {
      throw DoppelError.manifest(problems.map(\.message).joined(separator: "\n"), at: reader.location(first.offset))
    }
    self.url = url
    description = document.description
    stubs = document.stubs
    scenarios = document.scenarios
    unmatched = document.unmatched
    graphQL = document.graphQL
    seed = document.seed
    scenariosPosition = document.scenariosPosition
    warnings = reader.log.warnings.enumerated()
      .sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element.message)
  }

  /// The zero-configuration manifest for a fixture directory: every file, laid out as
  /// `<host>/<path>`, is served at that host and path. No scenarios.
  ///
  /// - Throws: ``DoppelError`` when the directory does not exist or holds a file outside a host
  ///   directory. See the "Fixtures and scenarios" article for the exact rules.
  public init(fixtureDirectory: URL) throws(DoppelError) {
    let directory = fixtureDirectory.standardizedFileURL
    stubs = try FixtureDirectory.stubs(in: directory)
    url = directory
    description = nil
    scenarios = []
    unmatched = nil
    graphQL = nil
    seed = nil
    scenariosPosition = nil
    warnings = []
  }

  /// Loads the manifest at `url`: a JSON file, or a directory holding `doppel.json`. A directory
  /// without `doppel.json` is read as a fixture directory (see ``init(fixtureDirectory:)``).
  ///
  /// - Throws: ``DoppelError`` when nothing is at `url`, the file cannot be read, or the manifest
  ///   is invalid.
  public static func load(contentsOf url: URL) throws(DoppelError) -> Manifest {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw DoppelError.manifest(
        "\(url.relativePath): no such file or directory. Pass the manifest file, or the directory holding \(defaultFileName)."
      )
    }
    var file = url
    if isDirectory.boolValue {
      file = url.appendingPathComponent(defaultFileName)
      guard FileManager.default.fileExists(atPath: file.path) else { return try Manifest(fixtureDirectory: url) }
    }
    let data = try WholeFile.read(file) {
      DoppelError.manifest("\(file.relativePath): could not read the manifest: \($0). Check the path.")
    }
    return try Manifest(data: data, url: file)
  }

  /// Loads `<name>.json` from a bundle's resources: for a package target, `Bundle.module` with the
  /// fixtures copied as a folder (`resources: [.copy("Fixtures")]`, then `subdirectory: "Fixtures"`).
  ///
  /// - Throws: ``DoppelError`` when the bundle has no such resource, or the manifest is invalid.
  public static func load(
    named name: String = "doppel", in bundle: Bundle, subdirectory: String? = nil
  ) throws(DoppelError) -> Manifest {
    guard let url = bundle.url(forResource: name, withExtension: "json", subdirectory: subdirectory) else {
      let place = subdirectory.map { " in \($0)/" } ?? ""
      throw DoppelError.manifest(
        "The manifest \(name).json\(place) is not in the bundle at \(bundle.bundleURL.path). Add it to the target's resources in Package.swift (for example resources: [.copy(\"Fixtures\")]) and pass subdirectory: when it is inside a folder."
      )
    }
    return try load(contentsOf: url)
  }

  /// The name of the scenario `selection` picks, or `nil` for the base stubs alone.
  ///
  /// - Throws: ``DoppelError`` when the scenario is not in the manifest (naming the valid ones and
  ///   the closest), or `-DoppelScenario` has no name after it.
  public func resolveScenario(_ selection: ScenarioSelection) throws(DoppelError) -> String? {
    guard let (name, source) = try selection.resolve() else { return nil }
    guard !scenarioNames.contains(name) else { return name }
    let place = scenariosPosition.map { "\(url.path):\($0): scenarios: " } ?? "\(url.path): "
    guard !scenarios.isEmpty else {
      throw DoppelError.manifest(
        "\(place)there is no scenario \"\(name)\" (\(source)): the manifest has no scenarios. Add \"scenarios\": {\"\(name)\": {\"stubs\": [ … ]}}, or choose no scenario."
      )
    }
    throw DoppelError.manifest(
      "\(place)there is no scenario \"\(name)\" (\(source)).\(Suggestion.didYouMean(name, in: scenarioNames)) The scenarios are: \(scenarioNames.joined(separator: ", "))."
    )
  }

  /// The base stubs, then those of `scenario` (which take precedence).
  func stubs(for scenario: String?) -> [ManifestStub] {
    stubs + (scenarios.first { $0.name == scenario }?.stubs ?? [])
  }

  /// The GraphQL schema to serve with `scenario`: the scenario's `graphql`, else the base's.
  package func graphQL(for scenario: String?) -> ManifestGraphQL? {
    scenarios.first { $0.name == scenario }?.graphQL ?? graphQL
  }

  /// The `graphql` of the base and of each scenario that has one, in the order written.
  package var graphQLEntries: [ManifestGraphQL] { [graphQL].compactMap(\.self) + scenarios.compactMap(\.graphQL) }
}
