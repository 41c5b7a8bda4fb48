import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Recorded traffic that a backend replays as stubs: a HAR 1.2 document.
///
/// ```swift
/// let cassette = try Cassette.load(from: fixtures.appending(path: "breeds.har"))
/// try backend.replay(cassette)
/// ```
///
/// Any HAR 1.2 file works, such as one exported from a browser's developer tools, Charles or
/// Proxyman. Fields Doppel does not use are kept, so loading and saving a file loses nothing.
public struct Cassette: Sendable, Equatable {
  /// The HAR document.
  package var har: HARFile

  /// Creates a cassette holding `entries`.
  public init(entries: [HAREntry] = []) {
    har = HARFile(log: HARLog(entries: entries))
  }

  /// Creates a cassette from a HAR document.
  package init(har: HARFile) { self.har = har }

  /// The recorded exchanges, in order.
  public var entries: [HAREntry] {
    get { har.log.entries }
    set { har.log.entries = newValue }
  }

  /// Reads a cassette from HAR JSON and checks that every entry can be replayed.
  ///
  /// - Parameters:
  ///   - data: the HAR JSON.
  ///   - file: the name errors use, usually the file's path.
  /// - Throws: ``DoppelError`` naming `file`, the line and column, the JSON path of the fault
  ///   (such as `log.entries[3].response.content.encoding`) and how to fix it, for bytes that are
  ///   not UTF-8, JSON that is not strict (RFC 8259: no trailing commas, no comments), a missing
  ///   field, a value of the wrong type or a number out of range; when entries cannot be replayed (an unknown body encoding, invalid base64, a relative URL, a
  ///   method that is not an HTTP token, a status that is not HTTP), one line for each, in order.
  public init(data: Data, file: String = "cassette") throws {
    let reading = try HARReading(data: data, file: file)
    har = reading.har
    try validate(file: file, place: reading.place(entry:field:))
  }

  /// Reads the cassette at `url`.
  ///
  /// - Throws: ``DoppelError`` when the file cannot be read, is not HAR, or holds entries that
  ///   cannot be replayed; the message names the file and the JSON path of each fault.
  public static func load(from url: URL) throws -> Cassette {
    let data = try WholeFile.read(url) {
      DoppelError.cassette("Could not read the cassette \(url.relativePath): \($0). Check the path.")
    }
    // Named as the caller wrote it: a relative file URL stays relative.
    return try Cassette(data: data, file: url.relativePath)
  }

  /// The cassette as stable HAR JSON (keys sorted, pretty printed), after `redaction`.
  public func encoded(redaction: Redaction = .default) throws -> Data {
    try redaction.redacted(self).har.encoded()
  }

  /// Writes the cassette to `url`, creating folders as needed, after `redaction` replaced every
  /// secret it knows, so no secret touches the disk.
  ///
  /// - Throws: ``DoppelError`` naming the file when it cannot be written.
  public func save(to url: URL, redaction: Redaction = .default) throws {
    let data = try encoded(redaction: redaction)
    do {
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try data.write(to: url, options: .atomic)
    } catch {
      throw DoppelError.cassette(
        "Could not write the cassette \(url.path): \((error as NSError).localizedDescription). Check that the folder is writable."
      )
    }
  }

  /// Checks that every entry's method, URL, status and bodies can be replayed, reporting each one
  /// that cannot on its own line, `place` giving `file:line:column` of a field when the text is
  /// known.
  func validate(file: String, place: ((_ entry: Int, _ field: String) -> String)? = nil) throws {
    var problems: [String] = []
    for (index, entry) in entries.enumerated() {
      do {
        _ = try entry.recordedRequest()
        _ = try entry.replayResponse(for: HTTPMethod(entry.request.method))
      } catch {
        problems.append(error.message(place: place?(index, error.field) ?? file, index: index))
      }
    }
    guard problems.isEmpty else { throw DoppelError.cassette(problems.joined(separator: "\n")) }
  }
}
