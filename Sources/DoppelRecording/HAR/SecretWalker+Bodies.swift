import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Bodies of every encoding: text, base64 (HAR's, or a text body that is itself base64), gzip,
/// zlib and raw DEFLATE (decoded, scanned, and written back in stored blocks when redacted),
/// binary (its runs of ASCII text scanned), and bodies that cannot be scanned (replaced by
/// their digest under ``Redaction/Rules/unscannableBodies``).
extension SecretWalker {
  /// A walker of HAR documents: its bodies scanned in their encodings.
  static func har(rules: SecretRules, collectsFindings: Bool) -> SecretWalker {
    var walker = SecretWalker(rules: rules, collectsFindings: collectsFindings)
    walker.bodies = { walker, text, object, place in walker.body(text, in: object, place) }
    return walker
  }

  /// What scanning a body's bytes found.
  enum Scanned {
    case unchanged
    case redacted([UInt8])
    case unscannable
  }

  /// A body's `text` and `encoding` (in `object`, a HAR `content` or `postData`), redacted.
  mutating func body(_ text: String, in object: [String: JSONValue], _ place: Place) -> (String, JSONValue?) {
    let encoding = object["encoding"]
    var mimeType = ""
    if case .string(let type)? = object["mimeType"] { mimeType = type.lowercased() }
    guard case .string(let name)? = encoding, name.lowercased() == "base64",
      let data = Data(base64Encoded: text.filter { !$0.isWhitespace })
    else {
      return (base64Text(text, place) ?? self.text(text, place.body), encoding)
    }
    let bytes = [UInt8](data)
    switch scan(bytes, mimeType: mimeType, place, depth: 0) {
    case .unchanged:
      return (text, encoding)
    case .redacted(let redacted):
      return (Data(redacted).base64EncodedString(), encoding)
    case .unscannable:
      guard rules.digests else { return (text, encoding) }
      found(.unscannableBody, place, secrets: [])
      return (Redaction.unscannableBodyDigest(of: data), nil)
    }
  }

  /// A body's bytes: text, compressed or binary.
  mutating func scan(_ bytes: [UInt8], mimeType: String, _ place: Place, depth: Int) -> Scanned {
    if let string = Self.utf8Text(bytes) {
      let before = changes
      let redacted = text(string, place.body)
      return changes == before ? .unchanged : .redacted(Array(redacted.utf8))
    }
    let declared = contentEncoding.lowercased()
    if let format = CompressedBody.format(of: bytes, contentEncoding: depth == 0 ? declared : "", mimeType: mimeType) {
      // A compressed body inside a compressed body is decoded once more, no further.
      guard depth < 2, let decoded = try? CompressedBody.decode(bytes, format) else { return .unscannable }
      switch scan(decoded, mimeType: "", place, depth: depth + 1) {
      case .unchanged: return .unchanged
      case .redacted(let inner): return .redacted(CompressedBody.encode(inner, format))
      case .unscannable: return .unscannable
      }
    }
    if Self.isOpaque(bytes, contentEncoding: depth == 0 ? declared : "", mimeType: mimeType) { return .unscannable }
    return binary(bytes, place)
  }

  /// The runs of printable ASCII in binary bytes (at least 6 long), scanned as text.
  private mutating func binary(_ bytes: [UInt8], _ place: Place) -> Scanned {
    var output: [UInt8] = []
    var copied = 0
    var start = 0
    let before = changes
    func isText(_ byte: UInt8) -> Bool { (0x20...0x7E).contains(byte) || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    while start < bytes.count {
      guard isText(bytes[start]) else {
        start += 1
        continue
      }
      var end = start
      while end < bytes.count, isText(bytes[end]) { end += 1 }
      if end - start >= 6 {
        let run = String(decoding: bytes[start..<end], as: UTF8.self)
        let changesBefore = changes
        let redacted = text(run, place.body)
        if changes != changesBefore {
          output += bytes[copied..<start]
          output += Array(redacted.utf8)
          copied = end
        }
      }
      start = end
    }
    guard changes != before else { return .unchanged }
    output += bytes[copied...]
    return .redacted(output)
  }

  /// A text body that is all base64 (at least 16 characters) of UTF-8 text or of a compressed
  /// body, redacted and encoded again; `nil` when it is not one, or holds no secret.
  private mutating func base64Text(_ text: String, _ place: Place) -> String? {
    let compact = text.filter { !$0.isWhitespace }
    guard compact.utf8.count >= 16,
      compact.utf8.allSatisfy({ Self.base64Alphabet.contains($0) })
    else { return nil }
    let standard = compact.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    let padded = standard + String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
    guard let data = Data(base64Encoded: padded) else { return nil }
    let bytes = [UInt8](data)
    let isText = Self.utf8Text(bytes) != nil
    guard isText || CompressedBody.format(of: bytes, contentEncoding: "", mimeType: "") != nil else { return nil }
    switch scan(bytes, mimeType: "", place, depth: 1) {
    case .redacted(let redacted): return Data(redacted).base64EncodedString()
    case .unchanged, .unscannable: return nil
    }
  }

  /// `bytes` as text when they are valid UTF-8 (`String(validating:as:)` needs macOS 15 and iOS 18).
  static func utf8Text(_ bytes: [UInt8]) -> String? {
    String(bytes: bytes, encoding: .utf8)
  }

  private static let base64Alphabet = Set(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=".utf8)

  /// Whether bytes are compressed in a form Doppel cannot decode (brotli, zstd, xz, bzip2, zip,
  /// 7z, rar), by their `Content-Encoding`, MIME type or first bytes.
  static func isOpaque(_ bytes: [UInt8], contentEncoding: String, mimeType: String) -> Bool {
    let codings = contentEncoding.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    if codings.contains(where: { !["", "identity", "gzip", "x-gzip", "deflate"].contains($0) }) { return true }
    let type = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    if opaqueTypes.contains(type) { return true }
    return opaqueMagic.contains { bytes.starts(with: $0) }
  }

  private static let opaqueTypes: Set<String> = [
    "application/x-brotli", "application/zstd", "application/x-xz", "application/x-bzip2", "application/zip",
    "application/x-zip-compressed", "application/x-7z-compressed", "application/vnd.rar",
    "application/x-rar-compressed",
    "application/java-archive",
  ]

  private static let opaqueMagic: [[UInt8]] = [
    [0x28, 0xB5, 0x2F, 0xFD], [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], [0x42, 0x5A, 0x68], [0x50, 0x4B, 0x03, 0x04],
    [0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], [0x52, 0x61, 0x72, 0x21, 0x1A, 0x07],
  ]
}
