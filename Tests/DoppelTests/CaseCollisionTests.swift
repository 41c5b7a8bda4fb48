import Foundation
import Testing

/// A Mac's disk ignores case by default: two folders `Sources/Doppel` and `Sources/doppel` become
/// one there, and SwiftPM then sees two targets in one folder. These tests keep every name in the
/// package distinct when case is ignored, so `swift test` shows a collision before a Mac user does.
/// `Scripts/check-case-collisions` checks the same from `git ls-files`, SwiftPM's own reading of the
/// manifest and the build folders, in `.ci/run`.
@Suite struct CaseCollisionTests {
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Names in `names` that are equal when case is ignored but spelt differently.
  static func collisions(_ names: some Sequence<String>) -> [String] {
    Dictionary(grouping: Set(names), by: { $0.lowercased() }).values
      .filter { $0.count > 1 }
      .map { $0.sorted().joined(separator: " and ") }
      .sorted()
  }

  @Test func noTwoPathsDifferOnlyInCase() throws {
    var found: [String] = []
    var folders = [Self.packageRoot]
    let manager = FileManager.default
    while let folder = folders.popLast() {
      let names = try manager.contentsOfDirectory(atPath: folder.path)
        // Build folders and git's own are not part of a clone's tree.
        .filter { !$0.hasPrefix(".build") && $0 != ".git" && $0 != ".swiftpm" }
      for collision in Self.collisions(names) {
        found.append("\(folder.path.dropFirst(Self.packageRoot.path.count))/: \(collision)")
      }
      for name in names {
        var isFolder: ObjCBool = false
        let url = folder.appendingPathComponent(name)
        if manager.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue,
          (try? manager.destinationOfSymbolicLink(atPath: url.path)) == nil
        {
          folders.append(url)
        }
      }
    }
    #expect(found == [], "these names collide on a case-insensitive disk (a Mac's default)")
  }

  @Test func noTwoTargetsOrProductsDifferOnlyInCase() throws {
    let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    // Every `name: "…"` of a target, product or trait declaration.
    let declaration =
      /\.(?:target|executableTarget|testTarget|library|executable|plugin|macro|trait)\(\s*name:\s*"([^"]+)"/
    let names = manifest.matches(of: declaration).map { String($0.output.1) }
    #expect(names.contains("Doppel") && names.contains("DoppelCLI") && names.contains("catfancy"))
    #expect(Self.collisions(names) == [], "these target or product names collide on a case-insensitive disk")
  }

  @Test func theCheckFindsACollision() {
    #expect(Self.collisions(["Doppel", "doppel", "DoppelTesting", "Doppel"]) == ["Doppel and doppel"])
  }
}
