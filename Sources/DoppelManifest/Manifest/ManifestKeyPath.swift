import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Where a value sits in a manifest, as shown in errors: `stubs[2].response.headers["Content-Type"]`.
struct ManifestKeyPath: Sendable, CustomStringConvertible {
  enum Component: Sendable {
    case key(String)
    case index(Int)
  }

  private(set) var components: [Component] = []

  static let root = ManifestKeyPath()

  var isRoot: Bool { components.isEmpty }

  static func + (path: ManifestKeyPath, key: String) -> ManifestKeyPath {
    var copy = path
    copy.components.append(.key(key))
    return copy
  }

  static func + (path: ManifestKeyPath, index: Int) -> ManifestKeyPath {
    var copy = path
    copy.components.append(.index(index))
    return copy
  }

  var description: String {
    var text = ""
    for component in components {
      switch component {
      case .index(let index):
        text += "[\(index)]"
      case .key(let key) where Self.isIdentifier(key):
        text += text.isEmpty ? key : "." + key
      case .key(let key):
        text += "[\"\(key)\"]"
      }
    }
    return text
  }

  private static func isIdentifier(_ key: String) -> Bool {
    guard let first = key.unicodeScalars.first, first == "$" || first == "_" || first.properties.isAlphabetic
    else { return false }
    return key.unicodeScalars.allSatisfy {
      $0 == "$" || $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)
    }
  }
}
