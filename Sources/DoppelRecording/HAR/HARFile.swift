import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A HAR 1.2 document: the format browsers' developer tools, Charles and Proxyman export, and the
/// format of Doppel's cassettes.
///
/// Each HAR object keeps the fields Doppel does not use in `extra`, so reading a file and writing
/// it back loses nothing. Writing is stable: keys sorted, pretty printed, entries and headers in
/// their recorded order, so cassettes diff well in code review.
package struct HARFile: Sendable, Equatable {
  /// The log, the document's only required field.
  package var log: HARLog
  /// Fields of the top-level object other than `log`.
  package var extra: [String: JSONValue]

  /// Creates a document.
  package init(log: HARLog = HARLog(), extra: [String: JSONValue] = [:]) {
    self.log = log
    self.extra = extra
  }

  /// Reads a document from JSON.
  ///
  /// - Parameters:
  ///   - data: the JSON.
  ///   - file: the name errors use for the document, usually its path.
  /// - Throws: ``DoppelError`` naming `file`, the line and column, the JSON path of the fault
  ///   (such as `log.entries[3].response.status`), and how to fix it: for bytes that are not UTF-8,
  ///   JSON that is not strict (RFC 8259: no trailing commas, no comments), a missing field, a value
  ///   of the wrong type, or a number out of range.
  package init(data: Data, file: String = "HAR") throws {
    self = try HARReading(data: data, file: file).har
  }

  /// The document as stable JSON: pretty printed, keys sorted, slashes unescaped, and a final
  /// newline.
  package func encoded() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(self)
    data.append(0x0A)
    return data
  }
}

/// The `log` object of a HAR document.
package struct HARLog: Sendable, Equatable {
  /// The format version, `"1.2"`.
  package var version: String
  /// The tool that wrote the log.
  package var creator: HARCreator
  /// The exchanges, in the order they happened.
  package var entries: [HAREntry]
  /// Other fields (`browser`, `pages`, `comment`, and any a tool added).
  package var extra: [String: JSONValue]

  /// Creates a log.
  package init(
    version: String = "1.2", creator: HARCreator = .doppel, entries: [HAREntry] = [],
    extra: [String: JSONValue] = [:]
  ) {
    self.version = version
    self.creator = creator
    self.entries = entries
    self.extra = extra
  }
}

/// The tool that wrote a HAR log.
package struct HARCreator: Sendable, Equatable {
  /// The tool's name.
  package var name: String
  /// The tool's version.
  package var version: String
  /// Other fields (`comment`, and any a tool added).
  package var extra: [String: JSONValue]

  /// Creates a creator.
  package init(name: String, version: String, extra: [String: JSONValue] = [:]) {
    self.name = name
    self.version = version
    self.extra = extra
  }

  /// Doppel, as the creator of the cassettes it records.
  package static let doppel = HARCreator(name: "Doppel", version: "1")
}

// MARK: - Coding

extension HARFile: Codable {
  private static let known: Set<String> = ["log"]

  /// Decodes the document, keeping unknown fields.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    log = try container.required("log")
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the document with its unknown fields.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(log, for: "log")
    try container.encode(extra: extra, known: Self.known)
  }
}

extension HARLog: Codable {
  private static let known: Set<String> = ["version", "creator", "entries"]

  /// Decodes the log, keeping unknown fields. Only `entries` is required.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    version = try container.optional("version") ?? "1.2"
    creator = try container.optional("creator") ?? HARCreator(name: "unknown", version: "")
    entries = try container.required("entries")
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the log with its unknown fields.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(version, for: "version")
    try container.encode(creator, for: "creator")
    try container.encode(entries, for: "entries")
    try container.encode(extra: extra, known: Self.known)
  }
}

extension HARCreator: Codable {
  private static let known: Set<String> = ["name", "version"]

  /// Decodes the creator, keeping unknown fields.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: HARKey.self)
    name = try container.optional("name") ?? ""
    version = try container.optional("version") ?? ""
    extra = try container.extra(excluding: Self.known)
  }

  /// Encodes the creator with its unknown fields.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: HARKey.self)
    try container.encode(name, for: "name")
    try container.encode(version, for: "version")
    try container.encode(extra: extra, known: Self.known)
  }
}
