#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation

  /// How long published API descriptions take from reading to their first answer, as
  /// `doppel serve` goes: read and compile the document, add its stubs, answer one request. The
  /// documents are the public ones in `../shared/real-documents` (or `DOPPEL_REAL_DOCUMENTS`);
  /// each JSON one is measured again doubled (every path and component twice, under other
  /// names), to show that the time grows with the size and no faster.
  enum Documents {
    /// The goals: a document of a few megabytes in one file, and a description split over
    /// thousands of files.
    static let goalSeconds = 1.0
    static let splitGoalSeconds = 2.0

    struct Case {
      let name: String
      let url: URL
      let bytes: Int
      let files: Int
      let split: Bool
    }

    /// Times each document `rounds` times (the median is shown) and prints a table; returns how
    /// many could not be read or answered.
    static func run(rounds: Int) async -> Int {
      let env = ProcessInfo.processInfo.environment
      let root = URL(
        fileURLWithPath: env["DOPPEL_REAL_DOCUMENTS"]
          ?? FileManager.default.currentDirectoryPath + "/../shared/real-documents")
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-documents-\(getpid())")
      defer { try? FileManager.default.removeItem(at: folder) }
      var cases: [Case] = []
      for (name, path) in [
        ("Discord (3.1, JSON)", "discord/openapi.json"), ("Box (3.0, JSON)", "box/openapi.json"),
        ("DigitalOcean (3.0, YAML, split)", "digitalocean/specification/DigitalOcean-public.v2.yaml"),
      ] {
        let url = root.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { continue }
        let split = path.hasSuffix(".yaml")
        let (bytes, files) = split ? folderSize(url.deletingLastPathComponent()) : (fileSize(url), 1)
        cases.append(Case(name: name, url: url, bytes: bytes, files: files, split: split))
        if !split, let doubled = try? doubledCopy(of: url, in: folder) {
          cases.append(Case(name: "\(name), doubled", url: doubled, bytes: fileSize(doubled), files: 1, split: false))
        }
      }
      print("API descriptions to their first answer (read, compile, add the stubs, answer one request;")
      print(
        "goal: ≤ \(twoDecimals(goalSeconds)) s for one file, ≤ \(twoDecimals(splitGoalSeconds)) s split over thousands):"
      )
      guard !cases.isEmpty else {
        print("No documents found under \(root.path); set DOPPEL_REAL_DOCUMENTS to the folder.")
        return 0
      }
      var failures = 0
      var rows: [String] = []
      var medians: [String: Double] = [:]
      for item in cases {
        var times: [Double] = []
        var compiled: [Double] = []
        for _ in 0..<max(rounds, 1) {
          let start = ContinuousClock.now
          do {
            let document = try OpenAPIDocument(contentsOf: item.url)
            compiled.append((ContinuousClock.now - start) / .seconds(1))
            let backend = Backend(issueReporter: .ignore)
            try backend.addStubs(from: document, invalidRequests: .answered)
            _ = try await backend.respond(to: URLRequest(url: firstURL(document)))
            times.append((ContinuousClock.now - start) / .seconds(1))
          } catch {
            failures += 1
            rows.append("| \(item.name) | failed: \(error) |")
            break
          }
        }
        guard !times.isEmpty else { continue }
        let median = times.sorted()[times.count / 2]
        medians[item.name] = median
        let doubling = item.name.hasSuffix(", doubled")
        let ratio =
          doubling
          ? medians[String(item.name.dropLast(", doubled".count))].map { " (\(twoDecimals(median / $0))×)" } ?? ""
          : ""
        recordFigure("first answer: \(item.name)", median, better: .lower, unit: "s")
        progress("documents \(item.name): \(twoDecimals(median)) s")
        rows.append(
          "| \(item.name) | \(megabytes(item.bytes)) MB in \(grouped(Double(item.files))) file\(item.files == 1 ? "" : "s") | "
            + "\(twoDecimals(compiled.sorted()[compiled.count / 2])) s | \(twoDecimals(median)) s\(ratio) |")
      }
      print("")
      print("| document | size | read and compiled | first answer |")
      print("|---|---|---|---|")
      for row in rows { print(row) }
      print("")
      return failures
    }

    /// A URL the document answers: its first server path with its first path that has no
    /// template, under `https://api.example.com`.
    private static func firstURL(_ document: OpenAPIDocument) -> URL {
      let base = document.basePaths.first ?? ""
      let path = document.pathTemplates.first { !$0.contains("{") } ?? "/"
      return URL(string: "https://api.example.com" + base + path) ?? URL(string: "https://api.example.com/")!
    }

    private static func fileSize(_ url: URL) -> Int {
      ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    private static func folderSize(_ url: URL) -> (bytes: Int, files: Int) {
      var bytes = 0
      var files = 0
      let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.fileSizeKey])
      while let file = walker?.nextObject() as? URL {
        guard let size = try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize else { continue }
        bytes += size
        files += 1
      }
      return (bytes, files)
    }

    private static func megabytes(_ bytes: Int) -> String {
      String(format: "%.1f", Double(bytes) / 1_000_000)
    }

    /// The document with every path again under `/twin` and every component again as `Twin…`,
    /// the copies' `$ref`s and operation ids renamed to match: twice the size, the same shape.
    private static func doubledCopy(of url: URL, in folder: URL) throws -> URL {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      guard var root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
        throw DoppelError("\(url.lastPathComponent) is not a JSON object")
      }
      if let paths = root["paths"] as? [String: Any] {
        var doubled = paths
        for (path, item) in paths { doubled["/twin" + path] = renamed(item) }
        root["paths"] = doubled
      }
      if let components = root["components"] as? [String: Any] {
        var doubled: [String: Any] = [:]
        for (kind, members) in components {
          guard let members = members as? [String: Any] else {
            doubled[kind] = members
            continue
          }
          var both = members
          for (name, member) in members { both["Twin" + name] = renamed(member) }
          doubled[kind] = both
        }
        root["components"] = doubled
      }
      let copy = folder.appendingPathComponent("doubled-" + url.lastPathComponent)
      // Written over lines as the original is: a minified copy would also measure how positions
      // are found on one long line, which is not what doubling asks.
      try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted]).write(to: copy)
      return copy
    }

    /// `value` with its component `$ref`s pointing at the `Twin` copies, and its operation ids
    /// made distinct.
    private static func renamed(_ value: Any) -> Any {
      if let object = value as? [String: Any] {
        var result: [String: Any] = [:]
        for (key, member) in object {
          if key == "$ref", let reference = member as? String, reference.hasPrefix("#/components/") {
            var parts = reference.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if parts.count >= 4 { parts[3] = "Twin" + parts[3] }
            result[key] = parts.joined(separator: "/")
          } else if key == "operationId", let id = member as? String {
            result[key] = "twin_" + id
          } else {
            result[key] = renamed(member)
          }
        }
        return result
      }
      if let array = value as? [Any] { return array.map(renamed) }
      return value
    }
  }
#endif
