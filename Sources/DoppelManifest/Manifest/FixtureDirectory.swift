import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// The zero-configuration layout: files laid out by host and path are served at those URLs.
///
/// The rules (also in the "Fixtures and scenarios" article):
/// - Each directory at the top is a host, matched case-insensitively on any scheme and port
///   (`api.example.com/…` serves `https://api.example.com/…` and `http://api.example.com:8080/…`).
///   A directory named `_` serves its files on every host.
/// - A file serves `GET` for its path under the host: `api.example.com/v1/breeds.json` answers
///   `/v1/breeds.json`, and also `/v1/breeds` when no other file in that directory has the base name
///   `breeds` and there is no directory `breeds`.
/// - `index.<ext>` also answers its directory's path, with and without the trailing slash.
/// - `<name>@<query>.<ext>` answers only requests whose query holds those items (a subset, as
///   `a=1&b=2`), and wins over `<name>.<ext>`.
/// - An upper-case method and a dot in front (`POST.orders.json`) answer that method instead of `GET`.
/// - Names are percent-decoded (`%40` for a literal `@`); hidden files (`.…`) are skipped, and so is a
///   top-level `doppel.json`; any other file at the top is an error.
/// - `Content-Type` comes from the extension; the status is 200. For anything else, use a manifest.
enum FixtureDirectory {
  static let methods: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

  /// The stubs for every file under `root`, less specific first.
  static func stubs(in root: URL) throws(DoppelError) -> [ManifestStub] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else {
      throw DoppelError.manifest(
        "the fixture directory \(root.path) does not exist. Create it, with one directory per host (\(root.path)/api.example.com/breeds.json), or fix the path."
      )
    }
    guard isDirectory.boolValue else {
      throw DoppelError.manifest(
        "\(root.path) is a file, not a fixture directory. Name the directory that holds the host directories.")
    }
    var files: [FixtureFile] = []
    for entry in try entries(root) {
      let url = root.appendingPathComponent(entry)
      guard try isDirectoryEntry(url) else {
        if entry == "doppel.json" { continue }
        throw DoppelError.manifest(
          "the file \(url.path) is not inside a host directory. Move it to \(root.path)/<host>/\(entry) (for example api.example.com/\(entry)), or to \(root.path)/_/\(entry) to serve it on every host."
        )
      }
      try collect(url, host: entry == "_" ? nil : entry.lowercased(), components: [], relative: entry, into: &files)
    }
    // Stable: files without a query first (in name order), so that those with one take precedence.
    return files.enumerated().sorted { ($0.element.specificity, $0.offset) < ($1.element.specificity, $1.offset) }
      .map(\.element.stub)
  }

  private static func entries(_ directory: URL) throws(DoppelError) -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }.sorted()
    } catch {
      throw DoppelError.manifest(
        "could not list the fixture directory \(directory.path): \(error.localizedDescription).")
    }
  }

  private static func isDirectoryEntry(_ url: URL) throws(DoppelError) -> Bool {
    var isDirectory: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
    return isDirectory.boolValue
  }

  /// Adds every file under `directory` (whose path under the host is `components`).
  private static func collect(
    _ directory: URL, host: String?, components: [String], relative: String, into files: inout [FixtureFile]
  ) throws(DoppelError) {
    let names = try entries(directory)
    var parsed: [(name: String, file: FixtureName)] = []
    var subdirectories = Set<String>()
    for name in names {
      let url = directory.appendingPathComponent(name)
      if try isDirectoryEntry(url) {
        guard let decoded = name.removingPercentEncoding else {
          throw DoppelError.manifest(
            "the directory name \"\(name)\" in \(directory.path) has a bad percent-escape; write % as %25.")
        }
        subdirectories.insert(decoded)
        try collect(url, host: host, components: components + [decoded], relative: relative + "/" + name, into: &files)
      } else {
        parsed.append((name, try FixtureName(name, in: directory)))
      }
    }
    for (name, file) in parsed {
      let directoryPath = "/" + components.map { $0 + "/" }.joined()
      var paths = [directoryPath + file.fullName]
      if file.baseName == "index" {
        paths.append(directoryPath)
        if directoryPath.count > 1 { paths.append(String(directoryPath.dropLast())) }
      } else if file.fileExtension != nil,
        !subdirectories.contains(file.baseName),
        parsed.filter({ $0.file.method == file.method && $0.file.baseName == file.baseName }).map(\.file.fullName)
          .uniqued().count == 1
      {
        paths.append(directoryPath + file.baseName)
      }
      files.append(
        FixtureFile(
          url: directory.appendingPathComponent(name), relative: relative + "/" + name, host: host, method: file.method,
          paths: paths, query: file.query))
    }
  }
}

/// What a fixture file's name says: `POST.orders@page=2.json`.
private struct FixtureName {
  var method = "GET"
  /// Before the query and extension: `orders`.
  var baseName: String
  var fileExtension: String?
  var query: [QueryItem] = []

  /// `orders.json`: the name the path holds.
  var fullName: String { fileExtension.map { "\(baseName).\($0)" } ?? baseName }

  init(_ name: String, in directory: URL) throws(DoppelError) {
    var rest = Substring(name)
    if let dot = rest.firstIndex(of: "."), FixtureDirectory.methods.contains(String(rest[..<dot])),
      rest.index(after: dot) < rest.endIndex
    {
      method = String(rest[..<dot])
      rest = rest[rest.index(after: dot)...]
    }
    var queryText: Substring?
    if let at = rest.lastIndex(of: "@") {
      let after = rest[rest.index(after: at)...]
      if let dot = after.lastIndex(of: ".") {
        queryText = after[..<dot]
        fileExtension = String(after[after.index(after: dot)...])
      } else {
        queryText = after
      }
      rest = rest[..<at]
    } else if let dot = rest.lastIndex(of: "."), dot != rest.startIndex {
      fileExtension = String(rest[rest.index(after: dot)...])
      rest = rest[..<dot]
    }
    guard let decoded = String(rest).removingPercentEncoding,
      let decodedExtension = fileExtension.map({ $0.removingPercentEncoding }) ?? .some(nil)
    else {
      throw DoppelError.manifest(
        "the file name \"\(name)\" in \(directory.path) has a bad percent-escape; write % as %25.")
    }
    baseName = decoded
    fileExtension = decodedExtension
    if let queryText {
      guard let items = QueryItem.parse(queryText), !items.isEmpty else {
        throw DoppelError.manifest(
          "the file name \"\(name)\" in \(directory.path) has \"@\" but no query after it. Write the query as in a URL (breeds@page=2.json), or write a literal @ as %40."
        )
      }
      query = items
    }
  }
}

/// One fixture file and the requests it answers.
private struct FixtureFile {
  let url: URL
  /// The path below the fixture directory, for names and locations: `api.example.com/breeds.json`.
  let relative: String
  let host: String?
  let method: String
  let paths: [String]
  let query: [QueryItem]

  /// Registration order: files without a query first, so that those with one take precedence.
  var specificity: Int { query.count }

  var stub: ManifestStub {
    var matcher = Matcher.method(HTTPMethod(method))
    if let host { matcher = matcher && .host(host) }
    let paths = paths
    let shown = paths.map { "\"\($0)\"" }.joined(separator: " or ")
    matcher =
      matcher
      && Matcher(
        Condition(
          field: "path", expected: shown, summary: paths[0], part: .path, key: paths.count == 1 ? .path(paths[0]) : nil,
          actual: { "\"\($0.path)\"" }, passes: { paths.contains($0.path) }))
    if !query.isEmpty { matcher = matcher && .queryMatcher(query, exactly: false) }
    return ManifestStub(
      matcher: matcher, responder: .response(.file(url)), times: nil, name: relative,
      location: CodeLocation(fileID: relative, filePath: url.path, line: 1, column: 1))
  }
}

extension Sequence where Element: Hashable {
  fileprivate func uniqued() -> [Element] {
    var seen = Set<Element>()
    return filter { seen.insert($0).inserted }
  }
}
