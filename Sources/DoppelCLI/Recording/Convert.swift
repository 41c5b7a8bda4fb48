#if Server
  import ArgumentParser
  import Doppel
  import Foundation

  /// `doppel convert`: a recorded cassette turned into a manifest.
  struct Convert: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Turn a HAR cassette into a manifest (doppel.json) that answers what it answers.",
      // Wrapped by hand: ArgumentParser prints the generated usage on one line.
      usage: """
        doppel convert <cassette> --to-manifest <to-manifest>
                       [--inline-limit <inline-limit>] [--force]
        """,
      discussion: """
        Writes one stub per distinct request (method, URL and query); a request
        recorded more than once gets a sequence of its answers, the last repeated,
        as replaying the cassette does. Text bodies up to --inline-limit bytes are
        written inline; longer and binary bodies go to files in a folder beside the
        manifest, named after it (api.json: api-fixtures/). Secrets are redacted as
        doppel record redacts them. An existing manifest is not replaced unless
        --force. Serve the result with `doppel serve FILE.json`, and edit it: a
        status, a delay, a scenario.
        """
    )

    @Argument(help: "The cassette to read (.har).")
    var cassette: String

    @OptionGroup
    var output: ManifestOutputOptions

    func validate() throws {
      guard URL(fileURLWithPath: cassette).pathExtension.lowercased() == "har" else {
        throw ValidationError("\(cassette) should be a HAR cassette (.har); doppel convert reads recordings.")
      }
      guard output.manifest != nil else {
        throw ValidationError("Name the manifest to write: doppel convert \(cassette) --to-manifest doppel.json")
      }
      try output.validate()
    }

    func run() async throws {
      let cassetteURL = URL(fileURLWithPath: cassette)
      guard FileManager.default.fileExists(atPath: cassetteURL.path) else {
        throw DoppelError("\(cassette): no such file. Pass the cassette to convert, such as recorded.har.")
      }
      let recording = try Cassette.load(from: cassetteURL)
      try output.write(recording, source: cassetteURL.lastPathComponent, redaction: .default)
    }
  }

  /// `--to-manifest`, `--inline-limit` and `--force`: where a cassette is written as a manifest.
  struct ManifestOutputOptions: ParsableArguments {
    @Option(
      name: .customLong("to-manifest"),
      help: "The manifest to write (.json); its body files go to a folder beside it, named after it.")
    var manifest: String?

    @Option(help: "Bodies of more bytes than this go to a body file instead of inline (0: every body).")
    var inlineLimit = CassetteManifest.defaultInlineLimit

    @Flag(help: "Replace the manifest and its body files when they exist.")
    var force = false

    /// Refuses a name that is not JSON, a negative limit, and an existing manifest without --force.
    func validate() throws {
      guard let manifest else { return }
      guard URL(fileURLWithPath: manifest).pathExtension.lowercased() == "json" else {
        throw ValidationError("--to-manifest \(manifest) should end in .json, the manifest format.")
      }
      guard inlineLimit >= 0 else {
        throw ValidationError("--inline-limit \(inlineLimit) is negative. Give a number of bytes, such as 4096.")
      }
      if !force, FileManager.default.fileExists(atPath: manifest) {
        throw ValidationError(
          "\(manifest) already exists. Pass --force to replace it, or choose another --to-manifest file.")
      }
    }

    /// Writes `cassette` as the manifest, its body files first, then checks it loads.
    func write(_ cassette: Cassette, source: String, redaction: Redaction) throws {
      guard let manifest else { return }
      let manifestURL = URL(fileURLWithPath: manifest)
      let folderName = CassetteManifest.bodyFolder(forManifest: manifestURL)
      let converted = try CassetteManifest(
        cassette: cassette, source: source, bodyFolder: folderName, inlineLimit: inlineLimit, redaction: redaction)
      let directory = manifestURL.deletingLastPathComponent()
      let folder = directory.appendingPathComponent(folderName)
      if !converted.bodyFiles.isEmpty { try prepare(folder, shown: folderName) }
      for file in converted.bodyFiles {
        let url = directory.appendingPathComponent(file.name)
        if !force, FileManager.default.fileExists(atPath: url.path) {
          throw DoppelError(
            "\(url.path) already exists. Pass --force to replace it, or choose another --to-manifest file.")
        }
        try writeFile(file.data, to: url)
      }
      if !force, FileManager.default.fileExists(atPath: manifestURL.path) {
        throw DoppelError(
          "\(manifest) already exists. Pass --force to replace it, or choose another --to-manifest file.")
      }
      try writeFile(converted.manifest, to: manifestURL)
      // What was written must load as any manifest does.
      _ = try Manifest.load(contentsOf: manifestURL)
      let count = converted.bodyFiles.count
      let files = count == 0 ? "" : " and \(count) body \(count == 1 ? "file" : "files") to \(folderName)/"
      Console.out(
        "Wrote \(converted.stubCount) \(converted.stubCount == 1 ? "stub" : "stubs") to \(manifest)\(files). Serve it with doppel serve \(manifest)."
      )
    }

    /// Makes the body folder, refusing a link (which could send files outside the manifest's folder).
    private func prepare(_ folder: URL, shown: String) throws {
      let attributes = try? FileManager.default.attributesOfItem(atPath: folder.path)
      if let type = attributes?[.type] as? FileAttributeType {
        guard type == .typeDirectory else {
          throw DoppelError(
            "\(folder.path) is not a folder (it is \(type == .typeSymbolicLink ? "a symbolic link" : "a file")): the manifest's body files go there. Move it away, or choose another --to-manifest file."
          )
        }
        return
      }
      do {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
      } catch {
        throw DoppelError("Could not create \(folder.path) for the body files: \(error.localizedDescription)")
      }
    }

    private func writeFile(_ data: Data, to url: URL) throws {
      do {
        // Atomic: written beside and renamed, so a link in its place is replaced, not followed.
        try data.write(to: url, options: .atomic)
      } catch {
        throw DoppelError("Could not write \(url.path): \(error.localizedDescription) Check the folder.")
      }
    }
  }
#endif
