@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// The body of a templated response whose text is a file's: a manifest response with `"file"` and
/// `"template": true`, or `Response.file(_:).templated()`.
///
/// The file is read for each request, as a file body is, so an edit to it is served without a
/// reload; the pieces of the text last read are kept, so an unchanged file is parsed once.
package struct FileTemplate: Sendable {
  let url: URL
  /// The path template's parameter names, when known, to check `path.NAME`.
  let captures: [String]?
  /// The fix named when the file's text is not a template: `remove "template"`.
  let removal: String
  private let last: Locked<Parsed?>

  private struct Parsed {
    let data: Data
    let pieces: [ResponseTemplate.Piece]
  }

  package init(url: URL, captures: [String]?, removal: String) {
    self.url = url
    self.captures = captures
    self.removal = removal
    last = Locked(nil)
  }

  /// The largest template file: its text and pieces are held in memory.
  static let maximumSize = 16 << 20

  /// The pieces of the file's text as it is now.
  func pieces() -> Result<[ResponseTemplate.Piece], DoppelError> {
    read().flatMap { pieces(of: $0) }.mapError { DoppelError.file($0.sentence) }
  }

  /// The file's bytes: a regular file (not a device or a pipe, which may never end) of at most
  /// ``maximumSize`` bytes.
  package func read() -> Result<Data, FileTemplateProblem> {
    let resolved = url.resolvingSymlinksInPath()
    if let attributes = try? FileManager.default.attributesOfItem(atPath: resolved.path) {
      if let type = attributes[.type] as? FileAttributeType, type != .typeRegular {
        return .failure(
          FileTemplateProblem(
            message:
              "\(url.path) is not a regular file (a device, a pipe or a socket), so it cannot be a template. Name a file, or \(removal)."
          ))
      }
      if let size = (attributes[.size] as? NSNumber)?.int64Value, size > Self.maximumSize {
        return .failure(
          FileTemplateProblem(
            message:
              "\(url.path) is \(size) bytes; a template is at most \(Self.maximumSize) bytes (16 MiB). Split the body, or \(removal) to send the file as it is."
          ))
      }
    }
    do {
      return .success(try Response.readFile(url))
    } catch {
      return .failure(FileTemplateProblem(message: error.message, isSentence: true))
    }
  }

  /// The pieces of `data`, the file's text; kept for the next request when the text is a template.
  package func pieces(of data: Data) -> Result<[ResponseTemplate.Piece], FileTemplateProblem> {
    if let parsed = last.withLock({ $0 }), parsed.data == data { return .success(parsed.pieces) }
    let bytes = [UInt8](data)
    if let offset = UTF8Validation.firstInvalidByte(in: bytes) {
      return .failure(
        FileTemplateProblem(
          message:
            "\(url.path):\(TextPosition(offset: offset, in: bytes)): the file is not UTF-8 text: the byte 0x\(UTF8Validation.hex(bytes[offset])) at byte offset \(offset) is not valid UTF-8, so the file cannot be a template. Save it as UTF-8, or \(removal) to send it as it is."
        ))
    }
    let text = String(decoding: bytes, as: UTF8.self)
    switch ResponseTemplate.parse(text, captures: captures) {
    case .success(let pieces):
      last.withLock { $0 = Parsed(data: data, pieces: pieces) }
      return .success(pieces)
    case .failure(let problem):
      let position = TextPosition(offset: problem.offset, in: bytes)
      return .failure(FileTemplateProblem(message: "\(url.path):\(position): \(problem.message)"))
    }
  }
}

/// What makes a file's text unusable as a template: `/path/user.json:3:14: unknown template
/// variable …`, or that it is not UTF-8 text.
package struct FileTemplateProblem: Error, Sendable {
  /// The problem, after the manifest's position and key path: `/path/user.json:3:14: unknown …`.
  package let message: String
  /// Whether ``message`` is a whole sentence already (`Could not read …`).
  var isSentence = false

  /// The problem on its own, when a request reads the file: `The template file /path/user.json:3:14: …`.
  var sentence: String { isSentence ? message : "The template file \(message)" }
}
