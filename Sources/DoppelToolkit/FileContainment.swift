import Foundation

/// Keeps a path an input names inside the folder it belongs to: after symbolic links are followed
/// and `..` is removed, the file must still be inside. A manifest's files and an OpenAPI
/// document's `$ref`s are checked with it.
package enum FileContainment {
  /// A path that leads out of its folder, with how.
  package struct Escape: Error, Sendable, Equatable {
    /// How the path leads out, for a message that goes on with "outside the folder …: ":
    /// `".." leads out of it`, `it is an absolute path outside it`, `a symbolic link leads out
    /// of it, to /etc/passwd`.
    package let reason: String
  }

  /// `path` (absolute, or relative to `base`) resolved inside `root`.
  ///
  /// - Parameters:
  ///   - path: the path as the input names it.
  ///   - base: the folder a relative `path` is resolved against (the folder of the file naming it).
  ///   - root: the folder the file must stay in.
  /// - Returns: the file's URL, standardized (symbolic links inside the folder are kept).
  /// - Throws: ``Escape`` when, once symbolic links are followed, the file is not inside `root`.
  package static func resolve(_ path: String, from base: URL, inside root: URL) throws(Escape) -> URL {
    try resolve(path, from: base, inside: Folder(root))
  }

  /// A folder files must stay in, with its links followed once: a reader that checks many paths
  /// against one folder (a description split over thousands of files) makes it once.
  package struct Folder: Sendable {
    /// The folder, standardized.
    package let url: URL
    /// The folder once every symbolic link in it is followed.
    package let realPath: String

    package init(_ url: URL) {
      self.url = url.standardizedFileURL
      realPath = FileContainment.realPath(self.url) ?? self.url.path
    }
  }

  /// `path` (absolute, or relative to `base`) resolved inside `folder`, as the form that takes the
  /// folder's URL resolves it.
  package static func resolve(_ path: String, from base: URL, inside folder: Folder) throws(Escape) -> URL {
    let root = folder.url
    let url = (path.hasPrefix("/") ? URL(fileURLWithPath: path) : base.appendingPathComponent(path))
      .standardizedFileURL
    let realRoot = folder.realPath
    let real = realPath(url)
    if let real, real == realRoot || real.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/") {
      return url
    }
    if path.hasPrefix("/") && url.path != root.path && !url.path.hasPrefix(root.path + "/") {
      throw Escape(reason: "it is an absolute path outside it")
    } else if path.split(separator: "/").contains("..") {
      throw Escape(reason: "\"..\" leads out of it")
    } else if let real {
      throw Escape(reason: "a symbolic link leads out of it, to \(real)")
    } else {
      throw Escape(reason: "a symbolic link leads out of it, to a file that does not exist")
    }
  }

  /// The path `url` names once every symbolic link in it is followed; a part that does not exist
  /// yet (a cassette to record) is kept as written. `nil` when a link leads nowhere: writing
  /// through it would create a file wherever it points.
  package static func realPath(_ url: URL) -> String? {
    var existing = url.standardizedFileURL.path
    var missing: [String] = []
    while true {
      if let resolved = realpath(existing, nil) {
        defer { free(resolved) }
        var path = String(cString: resolved)
        for part in missing.reversed() { path = (path as NSString).appendingPathComponent(part) }
        return path
      }
      if (try? FileManager.default.destinationOfSymbolicLink(atPath: existing)) != nil { return nil }
      guard existing != "/" else { return nil }
      missing.append((existing as NSString).lastPathComponent)
      existing = (existing as NSString).deletingLastPathComponent
    }
  }
}
