import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension ManifestReader {
  /// The stubs replaying the cassettes listed under `cassettes`, in order (later ones win).
  func cassettes(_ node: PositionedJSON, _ path: ManifestKeyPath) -> [ManifestStub] {
    guard
      let items = collecting({ () throws(ManifestProblem) in
        try array(node, path, of: "cassettes (HAR file paths, or objects such as {\"file\": \"breeds.har\"})")
      })
    else { return [] }
    var result: [ManifestStub] = []
    for (index, item) in items.enumerated() {
      result += collecting { () throws(ManifestProblem) in try cassette(item, path + index) } ?? []
    }
    return result
  }

  /// `"breeds.har"`, or `{"file": "breeds.har", "matching": {…}, "timings": true}`.
  private func cassette(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> [ManifestStub] {
    var fileNode = node
    var filePath = path
    var matching = Cassette.Matching.methodAndURL
    var timings = false
    switch node.value {
    case .string:
      break
    case .object:
      let fields = try object(node, path, known: ManifestKeys.cassette, what: "a cassette")
      var valid = true
      if let value = fields["matching"] {
        if let read = collecting({ () throws(ManifestProblem) in try self.matching(value, fields.path("matching")) }) {
          matching = read
        } else {
          valid = false
        }
      }
      if let value = fields["timings"] {
        if let read = collecting({ () throws(ManifestProblem) in try bool(value, fields.path("timings")) }) {
          timings = read
        } else {
          valid = false
        }
      }
      guard let file = fields["file"] else {
        throw error(
          node, path,
          "a cassette needs \"file\": the HAR file's path relative to the manifest, such as \"recordings/breeds.har\".")
      }
      fileNode = file
      filePath = fields.path("file")
      // The file is read only when the rest is valid, so each problem is reported once.
      guard valid else { return [] }
    default:
      throw error(
        node, path,
        "expected a cassette: a HAR file path such as \"breeds.har\", or an object such as {\"file\": \"breeds.har\", \"matching\": {\"methodAndPath\": true}}; found \(node.kind)."
      )
    }
    let relative = try nonEmptyString(fileNode, filePath, what: "a HAR file path relative to the manifest")
    let url = try containedFile(relative, fileNode, filePath, instead: "remove the cassette")
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw error(
        fileNode, filePath,
        "there is no cassette at \(url.standardizedFileURL.path). Give the HAR file's path relative to the manifest's folder, or an absolute path."
      )
    }
    let stubs: [Cassette.ReplayedStub]
    do {
      stubs = try Cassette.load(from: url).replayedStubs(
        matching: matching, replayingTimings: timings, name: relative)
    } catch {
      throw self.error(
        fileNode, filePath,
        "the cassette \(relative) cannot be replayed:\n\((error as? DoppelError)?.message ?? "\(error)")")
    }
    return stubs.map { stub in
      ManifestStub(
        matcher: stub.matcher, responder: stub.responder, times: nil, name: stub.name, location: location(node.offset))
    }
  }

  /// A cassette's `matching`: `{"methodAndPath": true, "ignoringHeaders": ["Date"]}`.
  func matching(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> Cassette.Matching {
    let fields = try object(node, path, known: ManifestKeys.cassetteMatching, what: "a cassette's matching")
    try requireAtMostOne(
      ["methodAndPath", "ignoringAllQueryItems", "ignoringQueryItems"], in: fields,
      "each says which query items are compared (\"methodAndPath\" ignores them all). Keep one.")
    try requireAtMostOne(
      ["comparingBody", "ignoringJSONFields"], in: fields,
      "\"ignoringJSONFields\" compares the body already. Keep one.")
    var matching = Cassette.Matching.methodAndURL
    var problem: ManifestProblem?
    func read<T>(_ key: String, _ body: (PositionedJSON, ManifestKeyPath) throws(ManifestProblem) -> T) -> T? {
      guard let node = fields[key] else { return nil }
      do {
        return try body(node, fields.path(key))
      } catch {
        if problem == nil { problem = error } else { record(error) }
        return nil
      }
    }
    let flag = { (node: PositionedJSON, path: ManifestKeyPath) throws(ManifestProblem) -> Bool in
      try self.bool(node, path)
    }
    let names = { (node: PositionedJSON, path: ManifestKeyPath) throws(ManifestProblem) -> [String] in
      try self.names(node, path)
    }
    if read("methodAndPath", flag) == true { matching = matching.methodAndPath }
    if read("ignoringAllQueryItems", flag) == true { matching = matching.ignoringAllQueryItems }
    if let items = read("ignoringQueryItems", names) { matching = matching.ignoringQueryItems(items) }
    // Ignoring first, so that a header also named in "comparingHeaders" is compared.
    if let headers = read("ignoringHeaders", names) { matching = matching.ignoringHeaders(headers) }
    if let headers = read("comparingHeaders", names) { matching = matching.comparingHeaders(headers) }
    if read("comparingBody", flag) == true { matching = matching.comparingBody }
    if let fields = read("ignoringJSONFields", { (node, path) throws(ManifestProblem) in try pointers(node, path) }) {
      matching = matching.ignoringJSONFields(fields)
    }
    if let problem { throw problem }
    return matching
  }

  /// An array of non-empty strings.
  private func names(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> [String] {
    var names: [String] = []
    for (index, item) in try array(node, path, of: "names").enumerated() {
      names.append(try nonEmptyString(item, path + index, what: "a name"))
    }
    return names
  }

  /// An array of JSON Pointers (`/meta/sentAt`) or top-level names (`nonce`).
  private func pointers(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> [String] {
    var pointers: [String] = []
    for (index, item) in try array(node, path, of: "JSON Pointers such as \"/meta/sentAt\"").enumerated() {
      let pointer = try nonEmptyString(item, path + index, what: "a JSON Pointer such as \"/meta/sentAt\", or a name")
      if pointer.hasPrefix("/") {
        var characters = pointer.makeIterator()
        while let character = characters.next() {
          guard character == "~" else { continue }
          let next = characters.next()
          guard next == "0" || next == "1" else {
            throw error(
              item, path + index,
              "\"\(pointer)\" is not a JSON Pointer: \"~\" must be followed by 0 (for ~) or 1 (for /). Write ~0 for a ~ in a name, ~1 for a /."
            )
          }
        }
      }
      pointers.append(pointer)
    }
    return pointers
  }
}
