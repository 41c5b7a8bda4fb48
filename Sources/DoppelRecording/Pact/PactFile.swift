import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A Pact V4 contract file: where it goes, what it holds, and how new interactions are merged into
/// one already there.
enum PactFile {
  /// The Pact Specification version written.
  static let specification = "4.0"

  /// The file for `consumer` and `provider` at `location`: `location` itself when it names a
  /// `.json` file, otherwise `<location>/<consumer>-<provider>.json`.
  ///
  /// - Throws: ``DoppelError`` when a name is empty or holds a character that would lead the file
  ///   out of the folder.
  static func url(consumer: String, provider: String, at location: URL) throws -> URL {
    for (role, name) in [("consumer", consumer), ("provider", provider)] {
      let unsafe = name.contains { "/\\:\0".contains($0) || $0.isNewline }
      if name.trimmingCharacters(in: .whitespaces).isEmpty || unsafe || name.hasPrefix(".") {
        throw DoppelError(
          "Invalid \(role) name \"\(name)\" for a pact: it names the file <consumer>-<provider>.json, so it must not be empty, start with \".\" or hold \"/\", \"\\\", \":\" or a line break. Name the \(role) as Pact does, such as \"BreedsApp\".",
          kind: .usage)
      }
    }
    if location.pathExtension.lowercased() == "json" { return location }
    return location.appendingPathComponent("\(consumer)-\(provider).json")
  }

  /// The whole document, its interactions ordered by description.
  static func document(consumer: String, provider: String, interactions: [JSONValue]) -> JSONValue {
    [
      "consumer": ["name": .string(consumer)],
      "provider": ["name": .string(provider)],
      "interactions": .array(interactions.sorted { description(of: $0) < description(of: $1) }),
      "metadata": ["pactSpecification": ["version": .string(specification)]],
    ]
  }

  /// `json` as pretty-printed JSON with sorted keys, ending with a new line, so files diff well.
  static func encoded(_ json: JSONValue) throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(json)
    data.append(0x0A)
    return data
  }

  /// Writes `interactions` to `file`, creating its folder, merged with the interactions the file
  /// already holds: one of the same description is replaced, the others are kept. Holds a lock on
  /// `<file>.lock` meanwhile, so tests writing the same contract at once lose nothing.
  ///
  /// - Throws: ``DoppelError`` naming the file when it cannot be written, or when it holds
  ///   something other than a V4 pact between the same consumer and provider.
  static func write(_ interactions: [PactInteraction], consumer: String, provider: String, to file: URL) throws {
    let folder = file.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw unwritable(file, error)
    }
    try FileLock.withLock(file.path + ".lock", guarding: "the pact \(file.path)") {
      let new = interactions.map(\.json)
      let replaced = Set(interactions.map(\.description))
      var all = try existingInteractions(in: file, consumer: consumer, provider: provider).filter {
        !replaced.contains(description(of: $0))
      }
      all += new
      let data = try encoded(document(consumer: consumer, provider: provider, interactions: all))
      do {
        try data.write(to: file, options: .atomic)
      } catch {
        throw unwritable(file, error)
      }
    }
  }

  /// The interactions of the pact at `file`, or none when there is no file.
  private static func existingInteractions(in file: URL, consumer: String, provider: String) throws -> [JSONValue] {
    guard FileManager.default.fileExists(atPath: file.path) else { return [] }
    let fix = "Delete it, or write the pact to another file."
    let json: JSONValue
    do {
      json = try JSONValue(parsing: Data(contentsOf: file))
    } catch {
      throw DoppelError(
        "Could not add to the pact \(file.path): it cannot be read as JSON (\((error as NSError).localizedDescription)). \(fix)",
        kind: .file)
    }
    guard case .object(let object) = json, case .array(let interactions)? = object["interactions"] else {
      throw DoppelError("Could not add to the pact \(file.path): it has no \"interactions\" list. \(fix)", kind: .file)
    }
    if case .object(let metadata)? = object["metadata"], case .object(let spec)? = metadata["pactSpecification"],
      case .string(let version)? = spec["version"], !version.hasPrefix("4")
    {
      throw DoppelError(
        "Could not add to the pact \(file.path): it follows Pact Specification \(version), and Doppel writes \(specification). \(fix)",
        kind: .file)
    }
    let names = (name(object["consumer"]), name(object["provider"]))
    guard names.0 == consumer, names.1 == provider else {
      throw DoppelError(
        "Could not add to the pact \(file.path): it is between \(names.0 ?? "no consumer") and \(names.1 ?? "no provider"), not \(consumer) and \(provider). \(fix)",
        kind: .file)
    }
    return interactions
  }

  private static func name(_ party: JSONValue?) -> String? {
    guard case .object(let object)? = party, case .string(let name)? = object["name"] else { return nil }
    return name
  }

  private static func description(of interaction: JSONValue) -> String {
    guard case .object(let object) = interaction, case .string(let text)? = object["description"] else { return "" }
    return text
  }

  private static func unwritable(_ file: URL, _ error: any Error) -> DoppelError {
    DoppelError(
      "Could not write the pact \(file.path): \((error as NSError).localizedDescription). Check that the folder is writable, or write the pact to another folder.",
      kind: .file)
  }
}
