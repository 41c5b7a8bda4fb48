import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What a stub read from outside a manifest file (the body of a request to a stub server's admin
/// API) may reach on the server's machine: files only inside a folder the user gave the server,
/// upstreams only on hosts the user allowed.
struct StubReach: Sendable {
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
      throw beyondReach(
        node, path,
        "a stub added through the admin API may name no file: the server has no folder for its files. Start the server with one (\(StubReach.folderFix)) and name a file inside it, or \(instead)."
      )
    }
    let root = directory.standardizedFileURL
    let why: String
    do throws(FileContainment.Escape) {
      return try FileContainment.resolve(relative, from: root, inside: root)
    } catch {
      why = error.reason
    }
    if reach != nil {
      throw beyondReach(
        node, path,
        "\"\(relative)\" is outside the folder for files of stubs added through the admin API, \(root.path): \(why). Such a stub names files only inside that folder; move the file into it and name it relative to it."
      )
    }
    throw error(
      node, path,
      "\"\(relative)\" is outside the manifest's folder \(root.path): \(why). A manifest names files only inside its own folder; move the file into \(root.path) (or a folder in it) and name it relative to the manifest."
    )
  }
}
