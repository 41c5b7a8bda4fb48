#if Server
  import ArgumentParser
  import Doppel
  import Foundation

  /// `doppel drift`: re-sends recorded requests to the real server and reports how its answers
  /// have moved away from the cassettes and manifests.
  struct Drift: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Re-send the requests of cassettes and manifest stubs to a real server and report how its answers differ.",
      usage: "doppel drift <file> ... --against <url> [<options>]",
      discussion: """
        Every GET and HEAD entry of the .har cassettes and stub of the manifests
        is sent again to the server --against names (its path and query after the
        base URL), with the recorded headers and body. Other methods are sent only
        when asked (--method POST, --all-methods, or "drift": true on a manifest
        stub); a stub with "drift": false is never sent. A stub whose URL is a
        pattern is skipped.

        For each entry whose answer differs, prints `file:line: METHOD /path` and
        under it the differences: the status, the media type of Content-Type, the
        headers --compare-header names, and the shape of a JSON body (fields added
        or removed, types changed, null where a value was). Values are not
        compared unless --compare-values is given; --ignore leaves out a volatile
        field:
          $.data[*].updatedAt   that place ([*] is every element of an array)
          updatedAt             a field of that name anywhere
        Secrets (Authorization, cookies, secret-looking JSON keys and query items)
        are redacted in everything printed. Put credentials in a --header-file
        (one 'Name: value' a line): ps shows --header to every user.

        Exit status: 0 when nothing drifted, 1 when an entry drifted, 2 when a
        file cannot be read or an entry could not be sent (and nothing drifted),
        64 for a usage error. --json prints one JSON object instead (see the
        documentation).
        """
    )

    @Argument(
      help: ArgumentHelp(
        "HAR cassettes (.har) and manifests (doppel.json, or a directory holding one).", valueName: "file"))
    var files: [String] = []

    @Option(
      name: .customLong("against"),
      help: ArgumentHelp(
        "The real server's base URL, such as https://staging.example.com; a path is put before each request's.",
        valueName: "url"))
    var against: String

    @Option(
      name: .customLong("method"),
      help: ArgumentHelp(
        "Also re-send entries with this method (repeatable); GET and HEAD always are.", valueName: "method"))
    var methods: [String] = []

    @Flag(help: "Re-send entries of every method, POST and DELETE included.")
    var allMethods = false

    @Option(
      name: .customLong("header"),
      help: ArgumentHelp(
        "Send this header field with every request, replacing the recorded one (repeatable); never printed.",
        valueName: "name: value"))
    var headers: [String] = []

    @Option(
      name: .customLong("header-file"),
      help: ArgumentHelp(
        "Send the header fields in this file, one 'Name: value' a line, with every request: secrets kept out of the command line that ps shows (repeatable).",
        valueName: "path"))
    var headerFiles: [String] = []

    @Option(
      name: .customLong("compare-header"),
      help: ArgumentHelp("Also compare this response header field (repeatable).", valueName: "name"))
    var comparedHeaders: [String] = []

    @Option(
      name: .customLong("ignore"),
      help: ArgumentHelp(
        "Leave out this volatile JSON field: a path such as $.data[*].updatedAt, or a name alone for any depth (repeatable).",
        valueName: "path"))
    var ignored: [String] = []

    @Flag(help: "Compare the values of JSON fields too, not only their types.")
    var compareValues = false

    @Option(help: ArgumentHelp("Seconds to wait for each answer.", valueName: "seconds"))
    var timeout: Double = 10

    @Option(help: ArgumentHelp("How many requests to have in flight at once.", valueName: "count"))
    var concurrency: Int = 4

    @Option(
      name: .customLong("openapi"),
      help: ArgumentHelp(
        "Also report what this OpenAPI document (YAML or JSON) says is wrong with each live answer.",
        valueName: "document"))
    var openAPI: String?

    @Flag(help: "Print one JSON object for CI instead of lines for people.")
    var json = false

    func validate() throws {
      guard !files.isEmpty else { throw ValidationError("Name at least one cassette (.har) or manifest to re-send.") }
      _ = try Serve.parseOrigin(against, option: "--against")
      guard timeout > 0, timeout <= 3600 else {
        throw ValidationError("--timeout takes 0 to 3600 seconds; \(timeout) is not.")
      }
      guard (1...64).contains(concurrency) else {
        throw ValidationError("--concurrency takes 1 to 64 requests; \(concurrency) is not.")
      }
      for header in headers { _ = try Self.header(header) }
      _ = try fileHeaders()
      for path in ignored {
        do {
          _ = try DriftJSONPath(parsing: path)
        } catch {
          throw ValidationError("\(error)")
        }
      }
      for method in methods where !HTTPToken.isToken(method) {
        throw ValidationError("--method \(method) is not an HTTP method; write one such as POST.")
      }
      if openAPI != nil, let reason = Self.openAPINeedsTrait { throw ValidationError(reason) }
    }

    /// `Name: value` from `--header`.
    static func header(_ text: String) throws -> HTTPHeaders.Field {
      let parts = text.split(separator: ":", maxSplits: 1)
      guard parts.count == 2, HTTPToken.isToken(String(parts[0]).trimmingCharacters(in: .whitespaces)) else {
        // The value may be a secret: the message shows the first word only.
        let name = text.prefix { $0 != " " && $0 != ":" }.prefix(40)
        throw ValidationError("--header \(name)… is not a header field; write it as 'Name: value'.")
      }
      return HTTPHeaders.Field(
        name: parts[0].trimmingCharacters(in: .whitespaces), value: parts[1].trimmingCharacters(in: .whitespaces))
    }

    /// The header fields of the `--header-file` files, in order: one `Name: value` a line; blank
    /// lines and lines starting with `#` are skipped.
    ///
    /// - Throws: `ValidationError` naming the file and the line (never its value, which may be a
    ///   secret).
    func fileHeaders() throws -> [HTTPHeaders.Field] {
      var fields: [HTTPHeaders.Field] = []
      for path in headerFiles {
        let text: String
        do {
          text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
          throw ValidationError(
            "--header-file \(path) cannot be read (\(error.localizedDescription)); write one 'Name: value' header field a line into it."
          )
        }
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
          let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
          guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
          do {
            fields.append(try Self.header(trimmed))
          } catch {
            let name = trimmed.prefix { $0 != " " && $0 != ":" }.prefix(40)
            throw ValidationError(
              "--header-file \(path):\(number + 1): \(name)… is not a header field; write it as 'Name: value'.")
          }
        }
      }
      return fields
    }

    /// The warnings for `--header` fields that hold secrets (those recording would redact): the
    /// command line is shown by `ps` to every user of the computer.
    func commandLineWarnings() -> [String] {
      headers.compactMap { try? Self.header($0) }.filter { Redaction.default.redacts(header: $0.name, value: $0.value) }
        .map {
          "warning: --header \($0.name) puts a secret in the command line, which ps shows to every user of this computer; put it in a file and pass --header-file <path> instead."
        }
    }

    func run() async throws {
      for warning in commandLineWarnings() { Console.error(warning) }
      let settings = Settings(
        base: try Serve.parseOrigin(against, option: "--against"),
        headers: HTTPHeaders(try headers.map(Self.header) + fileHeaders()), comparedHeaders: comparedHeaders,
        ignored: try ignored.map { try DriftJSONPath(parsing: $0) }, compareValues: compareValues,
        timeout: timeout, document: try document())
      var targets: [Target] = []
      var unreadable = false
      for path in files {
        do {
          targets += try Self.targets(in: path)
        } catch {
          Console.error(Redaction.default.redact(line: "\(error)"))
          unreadable = true
        }
      }
      if unreadable {
        Console.error("doppel drift: nothing was sent, since not every file could be read.")
        throw ExitCode(2)
      }
      let selected = Set(["GET", "HEAD"] + methods.map { $0.uppercased() })
      for index in targets.indices where targets[index].skipped == nil {
        targets[index].skipped = Self.skipReason(targets[index], selected: allMethods ? nil : selected)
      }
      let outcomes = await Self.check(targets, settings: settings, concurrency: concurrency)
      let report = Report(against: settings.base, targets: targets, outcomes: outcomes)
      if json {
        Console.out(report.json())
      } else {
        for line in report.lines() { Console.out(line) }
      }
      if let status = report.exitStatus { throw ExitCode(status) }
    }

    /// Why `target` is not sent, or `nil` when it is: a manifest stub's `"drift"` first, then
    /// its method, which must be in `selected` (every method is when `selected` is `nil`).
    static func skipReason(_ target: Target, selected: Set<String>?) -> String? {
      switch target.marker {
      case false?: return "\"drift\": false in the manifest"
      case true?: return nil
      case nil:
        guard let selected, !selected.contains(target.method.uppercased()) else { return nil }
        return "\(target.method) is not re-sent unless asked (--method \(target.method) or --all-methods)"
      }
    }
  }
#endif
