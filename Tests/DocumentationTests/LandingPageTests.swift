import Foundation
import Testing

/// Each module's public API fits on its DocC landing page: every public type declared at the top
/// level is listed there under a topic, so the page is the whole module at a glance (each type's
/// members are on the type's own page).
@Suite struct LandingPageTests {
  static let modules = ["Doppel", "DoppelTesting", "DoppelServer", "DoppelOpenAPI", "DoppelGraphQL"]

  /// The modules whose sources a product's page covers: `Doppel` re-exports its layers, so its page
  /// lists theirs.
  static let layers = ["Doppel": ["Doppel", "DoppelToolkit", "DoppelCore", "DoppelRecording", "DoppelManifest"]]

  /// The public types declared at the top level of `module`'s sources (and the layers it
  /// re-exports): at the start of a line, or indented once in a file that is one `#if` block (a
  /// trait's module).
  static func publicTypes(of module: String) throws -> Set<String> {
    var names: Set<String> = []
    for source in layers[module] ?? [module] {
      try names.formUnion(publicTypes(in: GeneratedSnippetsTests.root.appendingPathComponent("Sources/\(source)")))
    }
    return names
  }

  private static func publicTypes(in folder: URL) throws -> Set<String> {
    let declaration = #/^( {0,2})public (?:final )?(?:struct|enum|class|protocol|actor|typealias) ([A-Za-z0-9_]+)/#
    var names: Set<String> = []
    let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      guard file.pathExtension == "swift" else { continue }
      let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
      let wrapped = lines.first?.hasPrefix("#if") == true
      for line in lines {
        guard let match = line.firstMatch(of: declaration), match.1.isEmpty || wrapped else { continue }
        names.insert(String(match.2))
      }
    }
    return names
  }

  @Test(arguments: modules)
  func everyPublicTypeIsListedOnTheLandingPage(_ module: String) throws {
    let page = GeneratedSnippetsTests.root.appendingPathComponent("Sources/\(module)/\(module).docc/\(module).md")
    let text = try String(contentsOf: page, encoding: .utf8)
    let types = try Self.publicTypes(of: module)
    #expect(!types.isEmpty)
    let missing = types.filter { !text.contains("``\($0)``") }.sorted()
    #expect(
      missing.isEmpty, "\(missing) in \(module) are public but not on \(module).md: list each under a topic there.")
  }
}
