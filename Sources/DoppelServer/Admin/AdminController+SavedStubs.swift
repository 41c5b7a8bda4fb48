#if Server
  import Doppel
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  extension AdminController {
    /// The largest manifest a saved stub is added to: a larger one is refused (save into another
    /// file), so that a save costs bounded memory and time.
    static let largestSavedManifest = 16 * 1024 * 1024

    /// The most file names `GET saved-stubs` lists.
    static let listedSavedManifests = 1_000

    // MARK: PUT stubs/{id}

    /// `PUT stubs/{id}`: replaces a stub added through the admin API with the one the body
    /// defines (a manifest stub, as for `POST stubs`). The new stub is served at once, over every
    /// other stub, with a new `id`; the answer has it, and the old one as `replaced`.
    func replaceStub(_ id: String, _ body: Data?, location: String?, _ backend: Backend) throws -> Answer {
      let prefix = settings.pathPrefix ?? "/"
      let old = try stubHandle(id, backend)
      guard isAdded(old) else {
        throw AdminError(
          409,
          "Stub \(old.registrationNumber) comes from the files (\(old.location)): the admin API replaces only stubs added through it. Edit the file (the server reloads it), or add a stub over it with POST \(prefix)stubs."
        )
      }
      let definition = try readDefinition(body, location: location)
      guard let handle = registerAdded(definition, replacing: old, backend) else {
        throw AdminError(
          404,
          "There is no stub \(id): it was removed while this request was read. GET \(prefix)stubs lists the stubs.")
      }
      guard case .object(var object) = describe(handle, definition: definition) else {
        return Answer(status: 200, body: describe(handle, definition: definition))
      }
      object["replaced"] = .number(Double(old.registrationNumber))
      return Answer(status: 200, body: .object(object))
    }

    // MARK: GET and POST saved-stubs

    /// `GET saved-stubs`: the folder stubs are saved into (`null` when the server has none) and
    /// the manifests directly in it, by name.
    func savedStubs() -> Answer {
      guard let folder = settings.savedStubsDirectory?.standardizedFileURL else {
        return Answer(status: 200, body: ["folder": .null, "files": []])
      }
      let names =
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted().prefix(Self.listedSavedManifests)
      return Answer(
        status: 200, body: ["folder": .string(folder.path), "files": .array(names.map(JSONValue.string))])
    }

    /// `POST saved-stubs`: `{"file": "saved.json", "stub": {…}}` adds the stub (as `POST stubs`
    /// does) and appends it to that manifest in ``StubServer/AdminAPI/savedStubsDirectory``,
    /// redacted as the journal is.
    func saveStub(_ body: Data?, _ backend: Backend) throws -> Answer {
      let example = #"{"file": "saved.json", "stub": {"request": "GET /users/{id}", "response": {"json": {"id": 1}}}}"#
      guard let folder = settings.savedStubsDirectory?.standardizedFileURL else {
        throw AdminError(
          409,
          "This server has no folder to save stubs in. Start it with one: doppel serve --save-stubs-to DIR (StubServer.AdminAPI.savedStubsDirectory). To serve a stub without saving it, POST \(settings.pathPrefix ?? "/")stubs."
        )
      }
      let members = try Self.members(of: body, keys: ["file", "stub"], example: example)
      guard case .string(let name)? = members["file"]?.value else {
        throw DoppelError.server(
          "request body: \"file\" must be the name of a manifest in the folder for saved stubs, such as \"saved.json\" (it is \(members["file"].map { $0.kind } ?? "missing")), as in \(example)."
        )
      }
      let file = try Self.savedManifestURL(name, in: folder)
      guard let stubJSON = members["stub"], case .object = stubJSON.value else {
        throw DoppelError.server(
          "request body: \"stub\" must be a manifest stub object (it is \(members["stub"].map { $0.kind } ?? "missing")), as in \(example)."
        )
      }
      // What reaches the disk is redacted as the journal is: a stub made from a request that
      // carried a token holds the marker instead.
      var stubText = stubJSON.serialized
      if settings.journalRedaction != .disabled {
        let value = stubJSON.jsonValue
        let redacted = NearMissReport.redacted(value)
        if redacted != value { stubText = redacted.description }
      }
      var definition = try readDefinition(
        Data(stubText.utf8), location: nil, source: "request body: stub", allowsFiles: false)
      let stub = try PositionedJSONParser.parse([UInt8](stubText.utf8))
      let (line, written) = try savingLock.withLock { _ in
        try Self.append(stub, to: file, name: name)
      }
      definition.location = CodeLocation(fileID: name, filePath: file.path, line: line, column: 5)
      // Registered as added stubs are: a reset removes it, a reload keeps it. (Only a stub being
      // replaced can be missing, and none is.)
      guard let handle = registerAdded(definition, backend) else {
        throw AdminError(409, "The stub was saved into \(name) but could not be added; reload the files to serve it.")
      }
      return Answer(
        status: 201,
        body: [
          "file": .string(name), "path": .string(file.path), "line": .number(Double(line)),
          "stubs": .number(Double(written)), "stub": describe(handle, definition: definition),
        ])
    }

    /// The members of a JSON object body, refusing a key other than `keys`.
    private static func members(
      of body: Data?, keys: [String], example: String
    ) throws -> [String: PositionedJSON] {
      guard let body, !body.isEmpty else {
        throw DoppelError.server("request body: the body is empty; send a JSON object such as \(example).")
      }
      guard String(data: body, encoding: .utf8) != nil,
        let root = try? PositionedJSONParser.parse([UInt8](body)), case .object(let members) = root.value
      else {
        throw DoppelError.server("request body: expected a JSON object such as \(example).")
      }
      var found: [String: PositionedJSON] = [:]
      for member in members {
        guard keys.contains(member.key) else {
          throw DoppelError.server(
            "request body: unknown key \"\(member.key)\".\(closest(member.key, in: keys).map { " Did you mean \"\($0)\"?" } ?? "") The keys are: \(keys.joined(separator: ", "))."
          )
        }
        found[member.key] = member.value
      }
      return found
    }

    /// What a saved manifest's name may be: letters, digits, `.`, `_` and `-`, not starting with a
    /// dot, ending in `.json` (the admin API's document says the same).
    static let savedManifestName = #"^[A-Za-z0-9_-][A-Za-z0-9._-]*\.json$"#

    /// The file `name` names directly inside `folder`: `..`, an absolute path and a symbolic link
    /// that leads out are refused with a 403, a name that is not a manifest's with a 400.
    static func savedManifestURL(_ name: String, in folder: URL) throws -> URL {
      let shown = name.count > 80 ? String(name.prefix(77)) + "…" : name
      let fix = "Name a .json file inside the folder for saved stubs (\(folder.path)), such as \"saved.json\"."
      guard !name.isEmpty, name.utf8.count <= 255,
        !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
      else {
        throw DoppelError.server(
          "request body: file: \(name.isEmpty ? "the name is empty" : "\"\(shown)\" is not a file name (at most 255 bytes, no control characters)"). \(fix)"
        )
      }
      let url: URL
      do {
        url = try FileContainment.resolve(name, from: folder, inside: folder)
      } catch {
        throw AdminError(
          403,
          "request body: file: \"\(shown)\" is outside the folder for saved stubs (\(folder.path)): \(error.reason). \(fix)"
        )
      }
      guard !name.contains("/") else {
        throw DoppelError.server(
          "request body: file: \"\(shown)\" names a subfolder; a saved stub goes into a file directly in the folder. \(fix)"
        )
      }
      guard name.range(of: savedManifestName, options: .regularExpression) != nil else {
        throw DoppelError.server(
          "request body: file: \"\(shown)\" is not a manifest's name: a saved stub goes into a .json file whose name has letters, digits, \".\", \"_\" and \"-\" only and does not start with a dot. \(fix)"
        )
      }
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
        throw DoppelError.server("request body: file: \"\(shown)\" is a folder. \(fix)")
      }
      return url
    }

    /// Appends `stub` to the manifest at `file` (made when it is not there), keeping its other
    /// keys in their order, and checks the result as `doppel serve` reads a manifest before it
    /// replaces the file in one step.
    ///
    /// - Returns: the line the stub starts on, and how many stubs the manifest has now.
    private static func append(_ stub: PositionedJSON, to file: URL, name: String) throws -> (Int, Int) {
      var members: [(key: String, value: PositionedJSON)] = []
      var stubs: [PositionedJSON] = []
      let refusal = "Save the stub into another file, or make \(name) a manifest again."
      if FileManager.default.fileExists(atPath: file.path) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        guard size <= largestSavedManifest else {
          throw AdminError(
            409,
            "\(name) is over \(largestSavedManifest / 1024 / 1024) MiB, the most a saved stub is added to. Save the stub into another file."
          )
        }
        let data: Data
        do {
          data = try Data(contentsOf: file)
        } catch {
          throw AdminError(409, "\(name) cannot be read (\(error.localizedDescription)). \(refusal)")
        }
        do {
          _ = try Manifest(data: data, url: file)
        } catch {
          throw AdminError(409, "\(name) is not a manifest this server can add a stub to: \(error.message) \(refusal)")
        }
        let root = try PositionedJSONParser.parse([UInt8](data))
        guard case .object(let existing) = root.value else { throw AdminError(409, "\(name): \(refusal)") }
        for member in existing {
          if member.key == "stubs", case .array(let items) = member.value.value {
            stubs = items
          } else {
            members.append((member.key, member.value))
          }
        }
      }
      stubs.append(stub)
      var text = "{\n  \"stubs\": [\n"
      var line = 0
      for (index, item) in stubs.enumerated() {
        if index == stubs.count - 1 { line = text.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1 }
        text += "    "
        pretty(item, indent: "    ", into: &text)
        text += index == stubs.count - 1 ? "\n" : ",\n"
      }
      text += "  ]"
      for member in members {
        text += ",\n  " + PositionedJSON(value: .string(member.key), offset: 0).serialized + ": "
        pretty(member.value, indent: "  ", into: &text)
      }
      text += "\n}\n"
      let data = Data(text.utf8)
      do {
        _ = try Manifest(data: data, url: file)
      } catch {
        throw AdminError(409, "The stub cannot be added to \(name): \(error.message) \(refusal)")
      }
      do {
        // Written beside it, then renamed over it: a reader sees the old manifest or the new one.
        try data.write(to: file, options: .atomic)
      } catch {
        throw AdminError(
          409, "\(name) cannot be written (\(error.localizedDescription)). Check the folder's permissions.")
      }
      return (line, stubs.count)
    }

    /// `json` written with two spaces of indentation per level, keys in their order, numbers as
    /// written.
    static func pretty(_ json: PositionedJSON, indent: String, into output: inout String) {
      let inner = indent + "  "
      switch json.value {
      case .array(let items) where !items.isEmpty:
        output += "[\n"
        for (index, item) in items.enumerated() {
          output += inner
          pretty(item, indent: inner, into: &output)
          output += index == items.count - 1 ? "\n" : ",\n"
        }
        output += indent + "]"
      case .object(let members) where !members.isEmpty:
        output += "{\n"
        for (index, member) in members.enumerated() {
          output += inner + PositionedJSON(value: .string(member.key), offset: 0).serialized + ": "
          pretty(member.value, indent: inner, into: &output)
          output += index == members.count - 1 ? "\n" : ",\n"
        }
        output += indent + "}"
      default:
        output += json.serialized
      }
    }
  }
#endif
