import Foundation

/// The `token` of HTTP (RFC 9110, section 5.6.2): what a method or a header name may be.
package enum HTTPToken {
  /// Whether `text` is a non-empty token: letters, digits and ``!#$%&'*+-.^_`|~``.
  package static func isToken(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.allSatisfy(isTokenCharacter)
  }

  private static func isTokenCharacter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      true
    default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
  }
}
