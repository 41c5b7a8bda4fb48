import Foundation

/// SHA-256 (FIPS 180-4), for the digest that stands in for a body that cannot be scanned for
/// secrets: Foundation on Linux has no hash functions, and the core depends on nothing else.
package enum SHA256 {
  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  /// The digest of `bytes`, 32 bytes.
  package static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
    var hasher = Hasher()
    hasher.update(bytes)
    return hasher.finish()
  }

  /// A digest made a piece at a time, for a body that is never all in memory (an upstream's
  /// answer spooled to disk as it arrives).
  package struct Hasher: Sendable {
    private var h: [UInt32] = [
      0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// The bytes of an unfinished block.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0
    private var w = [UInt32](repeating: 0, count: 64)

    /// A digest of nothing yet.
    package init() { pending.reserveCapacity(64) }

    /// Adds `bytes` to what is digested.
    package mutating func update<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
      length &+= UInt64(bytes.count)
      let handled: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
        update(buffer)
        return true
      }
      if handled == nil { Array(bytes).withUnsafeBufferPointer { update($0) } }
    }

    private mutating func update(_ buffer: UnsafeBufferPointer<UInt8>) {
      var index = 0
      if !pending.isEmpty {
        let taken = min(64 - pending.count, buffer.count)
        pending += buffer[0..<taken]
        index = taken
        guard pending.count == 64 else { return }
        pending.withUnsafeBufferPointer { blocks($0, from: 0, count: 1) }
        pending.removeAll(keepingCapacity: true)
      }
      let whole = (buffer.count - index) / 64
      if whole > 0 { blocks(buffer, from: index, count: whole) }
      index += whole * 64
      pending += buffer[index...]
    }

    /// The digest, 32 bytes.
    package mutating func finish() -> [UInt8] {
      let bitLength = length &* 8
      var tail = pending
      tail.append(0x80)
      while tail.count % 64 != 56 { tail.append(0) }
      for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> shift)) }
      tail.withUnsafeBufferPointer { blocks($0, from: 0, count: $0.count / 64) }
      pending = []
      return h.flatMap { value in (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) } }
    }

    /// The digest in lower-case hexadecimal.
    package mutating func finishHex() -> String { SHA256.hexDigits(finish()) }

    /// Digests `count` blocks of 64 bytes of `message` from `start`.
    ///
    /// Written with raw pointers and locals rather than the arrays' subscripts: a debug build (a
    /// test's) does not optimize, and there each checked subscript made digesting run at about
    /// 6 MiB/s, seconds for a large upstream answer.
    private mutating func blocks(_ message: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) {
      let first = message.baseAddress! + start
      w.withUnsafeMutableBufferPointer { schedule in
        h.withUnsafeMutableBufferPointer { state in
          SHA256.k.withUnsafeBufferPointer { constants in
            for index in 0..<count {
              Self.block(
                first + index &* 64, w: schedule.baseAddress!, h: state.baseAddress!, k: constants.baseAddress!)
            }
          }
        }
      }
    }

    /// Digests the 64 bytes at `bytes` into the state `h` (8 words), with `w` (64 words) for the
    /// message schedule and `k` the round constants.
    private static func block(
      _ bytes: UnsafePointer<UInt8>, w: UnsafeMutablePointer<UInt32>, h: UnsafeMutablePointer<UInt32>,
      k: UnsafePointer<UInt32>
    ) {
      var t = 0
      while t < 16 {
        let p = bytes + t &* 4
        w[t] = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
        t &+= 1
      }
      while t < 64 {
        let x = w[t &- 15]
        let y = w[t &- 2]
        let s0 = (x >> 7 | x << 25) ^ (x >> 18 | x << 14) ^ (x >> 3)
        let s1 = (y >> 17 | y << 15) ^ (y >> 19 | y << 13) ^ (y >> 10)
        w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
        t &+= 1
      }
      var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
      t = 0
      while t < 64 {
        let sum1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
        let choice = (e & f) ^ (~e & g)
        let temp1 = hh &+ sum1 &+ choice &+ k[t] &+ w[t]
        let sum0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
        let majority = (a & b) ^ (a & c) ^ (b & c)
        let temp2 = sum0 &+ majority
        hh = g
        g = f
        f = e
        e = d &+ temp1
        d = c
        c = b
        b = a
        a = temp1 &+ temp2
        t &+= 1
      }
      h[0] = h[0] &+ a
      h[1] = h[1] &+ b
      h[2] = h[2] &+ c
      h[3] = h[3] &+ d
      h[4] = h[4] &+ e
      h[5] = h[5] &+ f
      h[6] = h[6] &+ g
      h[7] = h[7] &+ hh
    }
  }

  /// The digest of `bytes` in lower-case hexadecimal.
  package static func hex<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
    hexDigits(hash(bytes))
  }

  /// A digest in lower-case hexadecimal.
  static func hexDigits(_ digest: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in digest { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
    return String(decoding: text, as: UTF8.self)
  }
}
