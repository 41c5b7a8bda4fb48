#if OpenAPI
  import Doppel
  import Foundation

  /// The files of one document: the main one and those its `$ref`s name, each read once.
  final class DocumentFiles {
    struct File {
      let url: URL
      /// The name messages show: the path as given for the main file, the path from the main
      /// file's folder for others.
      let name: String
      let root: DocumentNode
    }

    private(set) var files: [String: File] = [:]
    let main: File

    init(url: URL, name: String) throws(OpenAPIError) {
      let data = try WholeFile.read(url) {
        OpenAPIError(file: name, line: 1, "the OpenAPI document could not be read: \($0). Check the path.")
      }
      main = File(url: url, name: name, root: try DocumentNode.parse(data, file: name))
      files[url.standardizedFileURL.path] = main
    }

    /// `file`'s path relative to the main document's folder (`resources/droplets/list.yml`), as
    /// messages name a file a `$ref` led to.
    func relativePath(of file: File) -> String { relativeName(file.url) }

    private func relativeName(_ url: URL) -> String {
      let folder = mainFolder.url.path
      let path = url.standardizedFileURL.path
      guard path.hasPrefix(folder + "/") else { return url.lastPathComponent }
      return String(path.dropFirst(folder.count + 1))
    }

    /// A node that a `$ref` names, from the file `from`, with the file it is in and its key path.
    struct Target {
      let node: DocumentNode
      let file: File
      let location: DocumentLocation
    }

    /// Follows `$ref` (a chain of them, too) from `node`; a node without one is returned as is.
    func dereference(_ node: DocumentNode, in file: File, at location: DocumentLocation) throws(OpenAPIError) -> Target
    {
      var target = Target(node: node, file: file, location: location)
      var hops = 0
      while let reference = target.node["$ref"]?.string {
        hops += 1
        guard hops <= 64 else {
          throw OpenAPIError(
            file: target.file.name, line: target.node.line,
            "the $ref \"\(reference)\" is part of a loop of references. Point one of them at a real definition.")
        }
        target = try resolve(
          reference, from: target.file, line: target.node.line(of: "$ref"),
          keyPath: target.location.appending("$ref").path)
      }
      return target
    }

    /// The node `reference` (`#/components/schemas/Breed`, `common.yaml#/Breed`, `breed.yaml`)
    /// names, seen from `file`, where it is written on `line` at `keyPath`
    /// (`components.schemas.Breed.$ref`, for messages).
    ///
    /// A file a `$ref` names is resolved relative to the file naming it, and must be inside the
    /// main document's folder once symbolic links are followed (no absolute path, `..` or link
    /// leading out of it).
    func resolve(_ reference: String, from file: File, line: Int, keyPath: String) throws(OpenAPIError) -> Target {
      // A schema named in many places is looked up once: its pointer split, decoded and followed
      // again for each `$ref` cost a tenth of reading a large document.
      let key = ResolvedKey(file: file.url.path, reference: reference)
      if let found = resolved[key] { return found }
      let target = try lookUp(reference, from: file, line: line, keyPath: keyPath)
      resolved[key] = target
      return target
    }

    /// A `$ref` as written, and the file it is written in.
    private struct ResolvedKey: Hashable {
      let file: String
      let reference: String
    }

    /// The targets of the `$ref`s followed so far.
    private var resolved: [ResolvedKey: Target] = [:]
    /// Where the file part of each `$ref` followed so far leads, from the file it is written in.
    private var located: [ResolvedKey: URL] = [:]
    /// The main document's folder, which every file must be inside.
    private lazy var mainFolder = FileContainment.Folder(main.url.deletingLastPathComponent())

    private func lookUp(_ reference: String, from file: File, line: Int, keyPath: String) throws(OpenAPIError) -> Target
    {
      let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
      let filePart = parts.first.map(String.init) ?? ""
      let pointer = parts.count > 1 ? String(parts[1]) : ""
      let targetFile: File
      if filePart.isEmpty {
        targetFile = file
      } else {
        if filePart.contains("://") {
          throw OpenAPIError(
            file: file.name, line: line,
            "the $ref \"\(reference)\" points at a remote document; only files next to this one can be read. Download it and refer to it by a relative path."
          )
        }
        targetFile = try load(filePart, of: reference, relativeTo: file, line: line, keyPath: keyPath)
      }
      guard let node = targetFile.root.resolve(pointer: pointer) else {
        throw OpenAPIError(
          file: file.name, line: line,
          "the $ref \"\(reference)\" names nothing: \(targetFile.name) has no \(pointer.isEmpty ? "root" : pointer). Check the name, or add the definition."
        )
      }
      let path = pointer.split(separator: "/").map(String.init).joined(separator: ".")
      return Target(
        node: node, file: targetFile, location: DocumentLocation(file: targetFile.name, line: node.line, path: path))
    }

    /// The file `relative` names (from the `$ref` `reference`), read once, which must be inside the
    /// main document's folder.
    private func load(
      _ relative: String, of reference: String, relativeTo file: File, line: Int, keyPath: String
    ) throws(OpenAPIError) -> File {
      // Each file is named by many `$ref`s: where a name leads from a file is found once (the
      // containment check reads the disk to follow links).
      let key = ResolvedKey(file: file.url.path, reference: relative)
      if let known = located[key], let loaded = files[known.path] { return loaded }
      let root = mainFolder.url
      let url: URL
      do throws(FileContainment.Escape) {
        url = try FileContainment.resolve(relative, from: file.url.deletingLastPathComponent(), inside: mainFolder)
        located[key] = url
      } catch {
        throw OpenAPIError(
          file: file.name, line: line,
          "\(keyPath): the $ref \"\(reference)\" names a file outside the document's folder \(root.path): \(error.reason). A document's $refs name files only inside its own folder; move the file into \(root.path) (or a folder in it) and refer to it by a path relative to \(file.url.lastPathComponent)."
        )
      }
      if let loaded = files[url.path] { return loaded }
      let data = try WholeFile.read(url) {
        OpenAPIError(
          file: file.name, line: line,
          "the $ref names the file \(relative), which could not be read at \(url.path): \($0). Name a regular file; the path is relative to \(file.url.lastPathComponent)."
        )
      }
      // Named by its path from the main document's folder: `resources/droplets/list.yml`.
      let name = relativeName(url)
      let loaded = File(url: url, name: name, root: try DocumentNode.parse(data, file: name))
      files[url.path] = loaded
      return loaded
    }
  }
#endif
