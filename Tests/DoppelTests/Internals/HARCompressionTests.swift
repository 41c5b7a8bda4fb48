import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// SHA-256 and the gzip, zlib and DEFLATE decoders that let redaction scan compressed bodies:
/// right on known vectors, and bounded on malformed input and decompression bombs.
@Suite struct HARCompressionTests {
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ])
  func sha256MatchesTheFIPS180Examples(message: String, digest: String) {
    #expect(SHA256.hex(Array(message.utf8)) == digest)
  }

  @Test func sha256OfAMillionAs() {
    #expect(
      SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  /// The digest made a piece at a time (as an upstream's answer spooled to disk is hashed), in
  /// pieces that straddle the 64-byte blocks, is the digest of the whole.
  @Test func sha256InPiecesIsTheDigestOfTheWhole() {
    let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    for size in [1, 7, 63, 64, 65, 333] {
      var hasher = SHA256.Hasher()
      var start = 0
      while start < message.count {
        hasher.update(message[start..<min(start + size, message.count)])
        start += size
      }
      #expect(hasher.finishHex() == SHA256.hex(message), "pieces of \(size)")
    }
  }

  static let gzip = bytes(
    "H4sIAAAAAAACA6tWKi1OLVKyUkrMy1PSUSpILC4uzy9KAQqkV+kGpyYXpZboGhiYGAHl8vJLUoHiJRmpCoWlmcnZCklF+eV5Cmn5FQqjYgMnplQLAIrtVAvEAQAA"
  )
  static let gzipText =
    #"{"user":"ann","password":"gz-Secret-0042","note":""#
    + String(repeating: "the quick brown fox ", count: 20) + #""}"#
  static let zlib = bytes("eJwryc9OzbOtytENATF0DQxMjNUKEtNTbY0USugoBQDRPCuZ")
  static let rawDeflate = bytes("y0jNyclXyEAndRTScwoSS3QTk5JTUtPSMzKzDAyNjE1MzcwtLCsqqwA=")
  /// 5,000 `a`s in 41 bytes.
  static let bomb = bytes("H4sIAAAAAAACA+3BMQEAAADCoKzrX8IUfkABAAAAAG8Ddln0TIgTAAA=")

  static func bytes(_ base64: String) -> [UInt8] { [UInt8](Data(base64Encoded: base64)!) }

  @Test func gzipZlibAndDeflateDecode() throws {
    #expect(CompressedBody.format(of: Self.gzip, contentEncoding: "", mimeType: "application/gzip") == .gzip)
    #expect(try CompressedBody.decode(Self.gzip, .gzip) == Array(Self.gzipText.utf8))
    #expect(CompressedBody.format(of: Self.zlib, contentEncoding: "deflate", mimeType: "") == .zlib)
    #expect(
      try CompressedBody.decode(Self.zlib, .zlib)
        == Array(String(repeating: "token=zl-Token-0043&page=2 ", count: 5).utf8))
    #expect(CompressedBody.format(of: Self.rawDeflate, contentEncoding: "deflate", mimeType: "") == .deflate)
    #expect(
      try CompressedBody.decode(Self.rawDeflate, .deflate)
        == Array("hello hello hello hello, glpat-abcdefghij0123456789xyz".utf8))
    // Two members, as `cat a.gz b.gz` makes.
    #expect(try CompressedBody.decode(Self.gzip + Self.gzip, .gzip).count == 2 * Self.gzipText.utf8.count)
    // Without a declared deflate or zlib, bytes are not taken for one.
    #expect(CompressedBody.format(of: Self.zlib, contentEncoding: "", mimeType: "image/png") == nil)
  }

  @Test func storedBlocksRoundTripInEachFormat() throws {
    for count in [0, 10, 70_000] {
      let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
      for format in [CompressedBody.Format.gzip, .zlib, .deflate] {
        #expect(try CompressedBody.decode(CompressedBody.encode(bytes, format), format) == bytes)
      }
    }
  }

  @Test func malformedStreamsAndBombsFailWithoutCrashing() throws {
    // Cut short, a bad checksum, bad blocks.
    var badCRC = Self.gzip
    badCRC[badCRC.count - 6] ^= 0xFF
    for broken in [Array(Self.gzip.prefix(40)), badCRC, [0x1F, 0x8B, 8] + [UInt8](repeating: 0xFF, count: 30)] {
      #expect(throws: Inflate.Failure.malformed) { try CompressedBody.decode(broken, .gzip) }
    }
    #expect(throws: Inflate.Failure.malformed) { try Inflate.decode([0x07], limit: 100) }
    #expect(throws: Inflate.Failure.malformed) { try Inflate.decode([0x01, 0x05, 0x00, 0x00, 0x00], limit: 100) }
    #expect(throws: Inflate.Failure.tooLarge) { try CompressedBody.decode(Self.bomb, .gzip, limit: 4_999) }
    #expect(try CompressedBody.decode(Self.bomb, .gzip, limit: 5_000).count == 5_000)
    // Random bytes: every outcome is an answer.
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let noise = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
      _ = try? Inflate.decode(noise, limit: 1 << 16)
    }
  }
}
