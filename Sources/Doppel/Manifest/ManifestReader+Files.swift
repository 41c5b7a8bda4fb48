import Foundation

/// What a stub read from outside a manifest file (the body of a request to a stub server's admin
/// API) may reach on the server's machine: files only inside a folder the user gave the server,
/// upstreams only on hosts the user allowed.
package struct StubReach: Sendable {
  /// The folder the stub's files (fixtures, templates, proxy recordings) must sit in; `nil`: the
  /// stub may name no file.
  package var directory: URL?
  /// The hosts the stub's proxy upstreams may name; `nil`: any host.
  package var proxyHosts: [String]?

  /// A reach with `directory` and `proxyHosts`.
  package init(directory: URL?, proxyHosts: [String]?) {
    self.directory = directory
    self.proxyHosts = proxyHosts
  }

  /// How a user gives the server a folder for such stubs, for messages.
  static let folderFix = "doppel serve --admin-files DIR, or StubServer.AdminAPI.fixtureDirectory"
}

extension ManifestReader {
  /// `relative`, a path the manifest names for `path` (relative to its folder, or absolute),
  /// resolved inside the manifest's folder: after symbolic links are followed and `..` is
  /// removed, it must still be inside. For a stub read from the admin API, the folder is the one
  /// the server was given for such stubs, and without one no file may be named.
  ///
  /// - Parameters:
  ///   - instead: what the user can do instead of naming a file, for the message when there is no
  ///     folder (`send the body as "json" or "text"`).
  /// - Returns: the file's URL, standardized (symbolic links inside the folder are kept).
  func containedFile(
    _ relative: String, _ node: PositionedJSON, _ path: ManifestKeyPath, instead: String
  ) throws(ManifestProblem) -> URL {
    if let reach, reach.directory == nil {
      throw error(
        node, path,
        "a stub added through the admin API may name no file: the server has no folder for its files. Start the server with one (\(StubReach.folderFix)) and name a file inside it, or \(instead)."
      )
    }
    let root = directory.standardizedFileURL
    let url = (relative.hasPrefix("/") ? URL(fileURLWithPath: relative) : root.appendingPathComponent(relative))
      .standardizedFileURL
    let realRoot = Self.realPath(root) ?? root.path
    let real = Self.realPath(url)
    if let real, real == realRoot || real.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/") {
      return url
    }
    let why: String
    if relative.hasPrefix("/") && url.path != root.path && !url.path.hasPrefix(root.path + "/") {
      why = "it is an absolute path outside it"
    } else if relative.split(separator: "/").contains("..") {
      why = "\"..\" leads out of it"
    } else if let real {
      why = "a symbolic link leads out of it, to \(real)"
    } else {
      why = "a symbolic link leads out of it, to a file that does not exist"
    }
    if reach != nil {
      throw error(
        node, path,
        "\"\(relative)\" is outside the folder for files of stubs added through the admin API, \(root.path): \(why). Such a stub names files only inside that folder; move the file into it and name it relative to it."
      )
    }
    throw error(
      node, path,
      "\"\(relative)\" is outside the manifest's folder \(root.path): \(why). A manifest names files only inside its own folder; move the file into \(root.path) (or a folder in it) and name it relative to the manifest."
    )
  }

  /// The path `url` names once every symbolic link in it is followed; a part that does not exist
  /// yet (a cassette to record) is kept as written. `nil` when a link leads nowhere: writing
  /// through it would create a file wherever it points.
  static func realPath(_ url: URL) -> String? {
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
