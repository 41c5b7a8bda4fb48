import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A body in gzip (RFC 1952), zlib (RFC 1950) or raw DEFLATE form: decoded to be scanned for
/// secrets, and written back in the same form (with stored, uncompressed blocks) once redacted.
enum CompressedBody {
  enum Format: Equatable {
    case gzip
    case zlib
    case deflate
  }

  /// The most bytes a body is decoded to: a larger one (a decompression bomb) cannot be scanned.
  static let decodedLimit = 16 << 20

  /// The format `bytes` are in, going by their first bytes, the `Content-Encoding` and the MIME
  /// type; `nil` when they are in none of these.
  static func format(of bytes: [UInt8], contentEncoding: String, mimeType: String) -> Format? {
    if bytes.count >= 3, bytes[0] == 0x1F, bytes[1] == 0x8B, bytes[2] == 8 { return .gzip }
    let declared = contentEncoding + " " + mimeType
    guard declared.contains("deflate") || declared.contains("zlib") else { return nil }
    if bytes.count >= 2, bytes[0] & 0x0F == 8, bytes[0] >> 4 <= 7, (Int(bytes[0]) << 8 | Int(bytes[1])) % 31 == 0 {
      return .zlib
    }
    return .deflate
  }

  /// The bytes `bytes` hold in `format`.
  static func decode(_ bytes: [UInt8], _ format: Format, limit: Int = decodedLimit) throws(Inflate.Failure)
    -> [UInt8]
  {
    switch format {
    case .deflate:
      return try Inflate.decode(bytes, limit: limit).output
    case .zlib:
      guard bytes.count >= 6, bytes[1] & 0x20 == 0 else { throw .malformed }
      let (output, end) = try Inflate.decode(bytes, from: 2, limit: limit)
      guard end + 4 <= bytes.count, bigEndian(bytes[end..<(end + 4)]) == adler32(output) else { throw .malformed }
      return output
    case .gzip:
      // Members one after another, as `cat a.gz b.gz` makes.
      var output: [UInt8] = []
      var start = 0
      while start < bytes.count {
        let member = try gzipMember(bytes, at: start, limit: limit - output.count)
        output += member.output
        start = member.end
      }
      return output
    }
  }

  private static func gzipMember(_ bytes: [UInt8], at start: Int, limit: Int) throws(Inflate.Failure) -> (
    output: [UInt8], end: Int
  ) {
    guard bytes.count - start >= 18, bytes[start] == 0x1F, bytes[start + 1] == 0x8B, bytes[start + 2] == 8 else {
      throw .malformed
    }
    let flags = bytes[start + 3]
    var position = start + 10
    if flags & 0x04 != 0 {
      guard position + 2 <= bytes.count else { throw .malformed }
      position += 2 + (Int(bytes[position]) | Int(bytes[position + 1]) << 8)
    }
    for flag: UInt8 in [0x08, 0x10] where flags & flag != 0 {
      while position < bytes.count, bytes[position] != 0 { position += 1 }
      position += 1
    }
    if flags & 0x02 != 0 { position += 2 }
    guard position < bytes.count else { throw .malformed }
    let (output, end) = try Inflate.decode(bytes, from: position, limit: limit)
    guard end + 8 <= bytes.count, littleEndian(bytes[end..<(end + 4)]) == crc32(output),
      littleEndian(bytes[(end + 4)..<(end + 8)]) == UInt32(truncatingIfNeeded: output.count)
    else { throw .malformed }
    return (output, end + 8)
  }

  /// `bytes` in `format`, in stored blocks: valid for any decoder, and readable as they are.
  static func encode(_ bytes: [UInt8], _ format: Format) -> [UInt8] {
    var deflate: [UInt8] = []
    var start = 0
    repeat {
      let end = min(start + 0xFFFF, bytes.count)
      let length = end - start
      deflate.append(end == bytes.count ? 1 : 0)
      deflate += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
      deflate += bytes[start..<end]
      start = end
    } while start < bytes.count
    switch format {
    case .deflate:
      return deflate
    case .zlib:
      return [0x78, 0x01] + deflate + bytesOf(adler32(bytes)).reversed()
    case .gzip:
      return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF] + deflate + bytesOf(crc32(bytes))
        + bytesOf(UInt32(truncatingIfNeeded: bytes.count))
    }
  }

  // MARK: Checksums

  private static let crcTable: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
  }

  /// The CRC-32 of gzip (ISO 3309).
  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return ~crc
  }

  /// The Adler-32 checksum of zlib.
  static func adler32(_ bytes: [UInt8]) -> UInt32 {
    var a: UInt32 = 1
    var b: UInt32 = 0
    var start = 0
    // 5552 bytes is the most before the sums can overflow 32 bits.
    while start < bytes.count {
      let end = min(start + 5552, bytes.count)
      for byte in bytes[start..<end] {
        a += UInt32(byte)
        b += a
      }
      a %= 65521
      b %= 65521
      start = end
    }
    return b << 16 | a
  }

  /// Little-endian.
  private static func bytesOf(_ value: UInt32) -> [UInt8] {
    (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
  }

  private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }

  private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.reduce(0) { $0 << 8 | UInt32($1) }
  }
}
