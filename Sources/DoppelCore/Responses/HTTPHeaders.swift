@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// An ordered list of HTTP header fields with case-insensitive names and repeatable entries.
///
/// ```swift
/// var headers: HTTPHeaders = ["Content-Type": "application/json", "Set-Cookie": "a=1", "Set-Cookie": "b=2"]
/// headers["content-type"]            // "application/json"
/// headers.values(for: "Set-Cookie")  // ["a=1", "b=2"]
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral,
  CustomStringConvertible
{
  /// One header field: a name as it was given and its value.
  public struct Field: Sendable, Hashable {
    /// The name, with the case it was given in.
    public var name: String
    /// The value.
    public var value: String

    /// Creates a field.
    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  private var fields: [Field]

  /// Creates an empty list.
  public init() { fields = [] }

  /// Creates a list from fields, keeping their order and repetitions.
  public init(_ fields: [Field]) { self.fields = fields }

  /// Creates a list from `(name, value)` pairs, keeping their order and repetitions.
  public init(_ pairs: [(String, String)]) {
    fields = pairs.map { Field(name: $0.0, value: $0.1) }
  }

  /// Creates a list from a dictionary, ordered by name.
  public init(_ dictionary: [String: String]) {
    self.init(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
  }

  /// Creates a list from a dictionary literal; a name may appear more than once.
  public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

  /// The number of fields.
  public var count: Int { fields.count }

  /// Whether there are no fields.
  public var isEmpty: Bool { fields.isEmpty }

  /// The first value for `name` (compared case-insensitively), or `nil`. Setting replaces every
  /// field of that name; setting `nil` removes them.
  public subscript(name: String) -> String? {
    get { fields.first { Self.same($0.name, name) }?.value }
    set {
      if let newValue {
        replace(name, with: newValue)
      } else {
        remove(name)
      }
    }
  }

  /// Every value for `name` (compared case-insensitively), in order.
  public func values(for name: String) -> [String] {
    fields.filter { Self.same($0.name, name) }.map(\.value)
  }

  /// The fields with the spaces and tabs around each value removed, as an HTTP parser reads them.
  func trimmingValueWhitespace() -> HTTPHeaders {
    func padded(_ value: String) -> Bool {
      guard let first = value.utf8.first, let last = value.utf8.last else { return false }
      return first == 32 || first == 9 || last == 32 || last == 9
    }
    guard fields.contains(where: { padded($0.value) }) else { return self }
    return HTTPHeaders(
      fields.map {
        Field(name: $0.name, value: padded($0.value) ? $0.value.trimmingCharacters(in: [" ", "\t"]) : $0.value)
      })
  }

  /// Whether a field named `name` (compared case-insensitively) exists.
  public func contains(_ name: String) -> Bool { fields.contains { Self.same($0.name, name) } }

  /// Appends a field, keeping any existing field of the same name.
  public mutating func add(_ name: String, _ value: String) {
    fields.append(Field(name: name, value: value))
  }

  /// Replaces every field named `name` with one field holding `value`, kept at the position of the
  /// first such field (or appended when there was none).
  public mutating func replace(_ name: String, with value: String) {
    guard let first = fields.firstIndex(where: { Self.same($0.name, name) }) else {
      fields.append(Field(name: name, value: value))
      return
    }
    fields[first].value = value
    var index = fields.count - 1
    while index > first {
      if Self.same(fields[index].name, name) { fields.remove(at: index) }
      index -= 1
    }
  }

  /// Removes every field named `name`.
  public mutating func remove(_ name: String) { fields.removeAll { Self.same($0.name, name) } }

  /// Merges `other` in: every name present in `other` replaces the fields of that name here.
  public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
    var result = self
    var names = Set<String>()
    for field in other.fields where names.insert(field.name.lowercased()).inserted {
      result.remove(field.name)
    }
    result.fields.append(contentsOf: other.fields)
    return result
  }

  /// The fields in a dictionary; repeated names are joined with `", "` as HTTP allows.
  public var dictionary: [String: String] {
    var result: [String: String] = [:]
    var canonical: [String: String] = [:]
    for field in fields {
      let key = field.name.lowercased()
      if let name = canonical[key] {
        result[name, default: ""] += ", " + field.value
      } else {
        canonical[key] = field.name
        result[field.name] = field.value
      }
    }
    return result
  }

  /// Iterates the fields in order.
  public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

  /// One `Name: value` line per field.
  public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

  /// Two lists are equal when they hold the same fields in the same order, names compared
  /// case-insensitively.
  public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
    lhs.fields.count == rhs.fields.count
      && zip(lhs.fields, rhs.fields).allSatisfy { same($0.name, $1.name) && $0.value == $1.value }
  }

  /// Hashes names case-insensitively, consistent with `==`.
  public func hash(into hasher: inout Hasher) {
    for field in fields {
      hasher.combine(field.name.lowercased())
      hasher.combine(field.value)
    }
  }

  /// ASCII case-insensitive comparison, as header names are ASCII tokens.
  static func same(_ a: String, _ b: String) -> Bool {
    var left = a.utf8.makeIterator()
    var right = b.utf8.makeIterator()
    while true {
      switch (left.next(), right.next()) {
      case (nil, nil): return true
      case (let x?, let y?):
        if x != y && lower(x) != lower(y) { return false }
      default: return false
      }
    }
  }

  @inline(__always)
  private static func lower(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }
}
