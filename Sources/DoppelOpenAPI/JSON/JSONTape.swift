#if OpenAPI
  import Doppel

  /// A JSON value laid out flat for the schema checker: one array of nodes in document order and
  /// the UTF-8 bytes its strings point into.
  ///
  /// A body is checked far more often than it is looked at, so the checker reads it from here
  /// without a `String` per key or value nor a dictionary per object: keys are matched to a
  /// schema's properties by a hash made while parsing and a comparison of bytes, and a string's
  /// text is made only for a rule that needs it (a pattern on non-ASCII text, a message).
  ///
  /// An object's node is followed by its members, each a key node (a string, with its hash) and
  /// the nodes of its value; an array's by the nodes of its items.
  package struct JSONTape: Sendable {
    enum Kind: UInt8, Sendable {
      case null
      case bool
      case number
      case string
      case array
      case object
    }

    struct Node: Sendable {
      var kind: Kind
      /// A boolean's value; for a string, whether its bytes are all ASCII.
      var flag: Bool
      /// A string's first byte; for an array or object, the index of the node after its last one.
      var first: Int
      /// A string's end (one past its last byte); for an array or object, how many items or
      /// members it has.
      var second: Int
      /// A number's bits, or a key's hash.
      var payload: UInt64
    }

    var nodes: [Node] = []
    var bytes: [UInt8] = []

    init() {}

    /// The tape of `value`, for values that did not come from a body (parameters, examples, and
    /// the bodies the quick parser leaves to the positioned one).
    package init(_ value: JSONValue) {
      append(value)
    }

    private mutating func append(_ value: JSONValue) {
      switch value {
      case .null: nodes.append(Node(kind: .null, flag: false, first: 0, second: 0, payload: 0))
      case .bool(let flag): nodes.append(Node(kind: .bool, flag: flag, first: 0, second: 0, payload: 0))
      case .number(let number):
        nodes.append(Node(kind: .number, flag: false, first: 0, second: 0, payload: number.bitPattern))
      case .string(let text): appendString(text, key: false)
      case .array(let items):
        let index = nodes.count
        nodes.append(Node(kind: .array, flag: false, first: 0, second: items.count, payload: 0))
        for item in items { append(item) }
        nodes[index].first = nodes.count
      case .object(let members):
        let index = nodes.count
        nodes.append(Node(kind: .object, flag: false, first: 0, second: members.count, payload: 0))
        for (key, member) in members {
          appendString(key, key: true)
          append(member)
        }
        nodes[index].first = nodes.count
      }
    }

    private mutating func appendString(_ text: String, key: Bool) {
      let start = bytes.count
      bytes.append(contentsOf: text.utf8)
      var ascii = true
      var hash = Self.hashSeed
      for byte in bytes[start...] {
        if byte >= 0x80 { ascii = false }
        hash = Self.hash(hash, byte)
      }
      nodes.append(Node(kind: .string, flag: ascii, first: start, second: bytes.count, payload: key ? hash : 0))
    }

    // MARK: Hashing keys

    /// FNV-1a: cheap, and made byte by byte while a key is scanned.
    static let hashSeed: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    static func hash(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }

    static func hash(_ text: String) -> UInt64 {
      text.utf8.reduce(hashSeed, hash)
    }

    // MARK: Reading

    /// The index of the node after `index` and everything inside it.
    @inline(__always)
    func next(_ index: Int) -> Int {
      let node = nodes[index]
      return node.kind == .array || node.kind == .object ? node.first : index + 1
    }

    func number(_ index: Int) -> Double { Double(bitPattern: nodes[index].payload) }

    /// The text of the string at `index`.
    func string(_ index: Int) -> String {
      let node = nodes[index]
      return bytes.withUnsafeBufferPointer { buffer in
        String(decoding: UnsafeBufferPointer(rebasing: buffer[node.first..<node.second]), as: UTF8.self)
      }
    }

    /// Whether the bytes of the string at `index` are `utf8`.
    func string(_ index: Int, hasBytes utf8: [UInt8]) -> Bool {
      let node = nodes[index]
      guard utf8.count == node.second - node.first else { return false }
      return bytes.withUnsafeBufferPointer { buffer in
        utf8.withUnsafeBufferPointer { name in
          for offset in 0..<name.count where name[offset] != buffer[node.first + offset] { return false }
          return true
        }
      }
    }

    /// Whether the string at `index` is exactly `text`, as Swift compares strings.
    func string(_ index: Int, equals text: String) -> Bool {
      let node = nodes[index]
      var text = text
      let same = text.withUTF8 { utf8 in
        bytes.withUnsafeBufferPointer { buffer in
          utf8.count == node.second - node.first && utf8.elementsEqual(buffer[node.first..<node.second])
        }
      }
      if same { return true }
      // Text that is not ASCII may be written in more than one way that Swift calls equal.
      if node.flag && text.utf8.allSatisfy({ $0 < 0x80 }) { return false }
      return string(index) == text
    }

    /// The value at `index` as a ``JSONValue``, for the rules that compare whole values and for
    /// messages.
    package func value(_ index: Int) -> JSONValue {
      let node = nodes[index]
      switch node.kind {
      case .null: return .null
      case .bool: return .bool(node.flag)
      case .number: return .number(number(index))
      case .string: return .string(string(index))
      case .array:
        var items: [JSONValue] = []
        items.reserveCapacity(node.second)
        var item = index + 1
        while item < node.first {
          items.append(value(item))
          item = next(item)
        }
        return .array(items)
      case .object:
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(node.second)
        var key = index + 1
        while key < node.first {
          members[string(key)] = value(key + 1)
          key = next(key + 1)
        }
        return .object(members)
      }
    }
  }
#endif
