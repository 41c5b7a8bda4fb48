import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// A DEFLATE decoder (RFC 1951), for scanning compressed bodies for secrets: Foundation on Linux
/// has no decompression API, and the core depends on nothing else.
///
/// Every read is bounds-checked and the output is capped at `limit` bytes, so a malformed stream
/// fails with ``Failure/malformed`` and a decompression bomb with ``Failure/tooLarge``, in time
/// linear in the input and the (capped) output.
struct Inflate {
  enum Failure: Error, Equatable {
    /// The bytes are not a valid stream.
    case malformed
    /// The decoded bytes would be more than the limit.
    case tooLarge
  }

  /// Decodes the raw DEFLATE stream in `input` from `start`.
  ///
  /// - Returns: the decoded bytes, and where in `input` the stream ended (the next whole byte).
  static func decode(_ input: [UInt8], from start: Int = 0, limit: Int) throws(Failure) -> (
    output: [UInt8], end: Int
  ) {
    var inflate = Inflate(input: input, position: start, limit: limit)
    try inflate.run()
    return (inflate.output, inflate.position)
  }

  private let input: [UInt8]
  private var position: Int
  private let limit: Int
  private var buffer: UInt64 = 0
  private var count = 0
  private var output: [UInt8] = []

  private init(input: [UInt8], position: Int, limit: Int) {
    self.input = input
    self.position = position
    self.limit = limit
  }

  private mutating func run() throws(Failure) {
    var last = false
    while !last {
      last = try bits(1) == 1
      switch try bits(2) {
      case 0: try stored()
      case 1: try codes(Self.fixed.lengths, Self.fixed.distances)
      case 2:
        let (lengths, distances) = try dynamicTables()
        try codes(lengths, distances)
      default: throw .malformed
      }
    }
  }

  /// `n` bits (at most 16), least significant first.
  private mutating func bits(_ n: Int) throws(Failure) -> Int {
    while count < n {
      guard position < input.count else { throw .malformed }
      buffer |= UInt64(input[position]) << UInt64(count)
      position += 1
      count += 8
    }
    let value = Int(buffer & ((1 << UInt64(n)) - 1))
    buffer >>= UInt64(n)
    count -= n
    return value
  }

  private mutating func append(_ added: Int) throws(Failure) {
    guard output.count <= limit - added else { throw .tooLarge }
  }

  private mutating func stored() throws(Failure) {
    // The rest of the current byte is padding.
    buffer = 0
    count = 0
    guard position + 4 <= input.count else { throw .malformed }
    let length = Int(input[position]) | Int(input[position + 1]) << 8
    let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
    guard length == ~complement & 0xFFFF else { throw .malformed }
    position += 4
    guard position + length <= input.count else { throw .malformed }
    try append(length)
    output += input[position..<(position + length)]
    position += length
  }

  /// A canonical Huffman code: how many codes each length has, and the symbols in code order.
  struct Huffman {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int] = []

    /// `nil` when the lengths over-subscribe the code; an incomplete code is allowed (a symbol
    /// that is not in it fails when read).
    init?(_ lengths: [Int]) {
      for length in lengths { counts[length] += 1 }
      var left = 1
      for length in 1..<16 {
        left = left << 1 - counts[length]
        if left < 0 { return nil }
      }
      var offsets = [Int](repeating: 0, count: 16)
      for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
      symbols = [Int](repeating: 0, count: lengths.count)
      for (symbol, length) in lengths.enumerated() where length != 0 {
        symbols[offsets[length]] = symbol
        offsets[length] += 1
      }
    }
  }

  private mutating func decode(_ code: Huffman) throws(Failure) -> Int {
    var value = 0
    var first = 0
    var index = 0
    for length in 1..<16 {
      value |= try bits(1)
      let count = code.counts[length]
      if value - first < count { return code.symbols[index + value - first] }
      index += count
      first = (first + count) << 1
      value <<= 1
    }
    throw .malformed
  }

  private static let lengthBase = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
  ]
  private static let lengthExtra = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
  ]
  private static let distanceBase = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
  ]
  private static let distanceExtra = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
  ]

  /// The codes of fixed-Huffman blocks.
  private static let fixed: (lengths: Huffman, distances: Huffman) = {
    var lengths = [Int](repeating: 8, count: 288)
    for symbol in 144..<256 { lengths[symbol] = 9 }
    for symbol in 256..<280 { lengths[symbol] = 7 }
    // Both are complete codes, so they exist.
    return (Huffman(lengths)!, Huffman([Int](repeating: 5, count: 30))!)
  }()

  private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

  private mutating func dynamicTables() throws(Failure) -> (Huffman, Huffman) {
    let literalCount = try bits(5) + 257
    let distanceCount = try bits(5) + 1
    let codeLengthCount = try bits(4) + 4
    guard literalCount <= 286, distanceCount <= 30 else { throw .malformed }
    var codeLengths = [Int](repeating: 0, count: 19)
    for index in 0..<codeLengthCount { codeLengths[Self.codeLengthOrder[index]] = try bits(3) }
    guard let lengthCode = Huffman(codeLengths) else { throw .malformed }
    var lengths: [Int] = []
    let total = literalCount + distanceCount
    while lengths.count < total {
      let symbol = try decode(lengthCode)
      let value: Int
      let repeats: Int
      switch symbol {
      case 0..<16:
        lengths.append(symbol)
        continue
      case 16:
        guard let previous = lengths.last else { throw .malformed }
        (value, repeats) = (previous, try 3 + bits(2))
      case 17: (value, repeats) = (0, try 3 + bits(3))
      default: (value, repeats) = (0, try 11 + bits(7))
      }
      guard lengths.count + repeats <= total else { throw .malformed }
      lengths += repeatElement(value, count: repeats)
    }
    guard lengths[256] != 0, let literals = Huffman(Array(lengths[..<literalCount])),
      let distances = Huffman(Array(lengths[literalCount...]))
    else { throw .malformed }
    return (literals, distances)
  }

  private mutating func codes(_ literals: Huffman, _ distances: Huffman) throws(Failure) {
    while true {
      let symbol = try decode(literals)
      if symbol < 256 {
        try append(1)
        output.append(UInt8(symbol))
        continue
      }
      if symbol == 256 { return }
      let index = symbol - 257
      guard index < Self.lengthBase.count else { throw .malformed }
      let length = try Self.lengthBase[index] + bits(Self.lengthExtra[index])
      let distanceSymbol = try decode(distances)
      guard distanceSymbol < Self.distanceBase.count else { throw .malformed }
      let distance = try Self.distanceBase[distanceSymbol] + bits(Self.distanceExtra[distanceSymbol])
      guard distance <= output.count else { throw .malformed }
      try append(length)
      var from = output.count - distance
      for _ in 0..<length {
        output.append(output[from])
        from += 1
      }
    }
  }
}
