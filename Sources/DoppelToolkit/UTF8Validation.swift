import Foundation

/// Finds where a byte sequence stops being UTF-8, so an error can name the offset of the first
/// bad byte instead of only saying the file is not UTF-8.
package enum UTF8Validation {
  /// The offset of the first byte that does not start a valid UTF-8 sequence (RFC 3629: no
  /// overlong forms, no surrogates, nothing above U+10FFFF), or `nil` when all of it is UTF-8.
  package static func firstInvalidByte(in bytes: [UInt8]) -> Int? {
    bytes.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return nil }
      return firstInvalidByte(in: buffer, base: UnsafeRawPointer(base))
    }
  }

  private static func firstInvalidByte(in bytes: UnsafeBufferPointer<UInt8>, base: UnsafeRawPointer) -> Int? {
    var index = 0
    let count = bytes.count
    while index < count {
      let lead = bytes[index]
      if lead < 0x80 {
        index += 1
        // Text is mostly ASCII: skip it eight bytes at a time.
        while index + 8 <= count,
          base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
          index += 8
        }
        continue
      }
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0:
        length = 3
        low = 0xA0
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED:
        length = 3
        high = 0x9F
      case 0xF0:
        length = 4
        low = 0x90
      case 0xF1...0xF3: length = 4
      case 0xF4:
        length = 4
        high = 0x8F
      default: return index
      }
      // The second byte has the tighter range; the others are any continuation byte.
      for offset in 1..<length {
        let position = index + offset
        guard position < count else { return index }
        let byte = bytes[position]
        let range: ClosedRange<UInt8> = offset == 1 ? low...high : 0x80...0xBF
        guard range.contains(byte) else { return index }
      }
      index += length
    }
    return nil
  }

  /// `E9`
  package static func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return digits.count == 1 ? "0" + digits : digits
  }
}
