import Doppel
import Foundation
import Testing

@testable import DoppelCore
@testable import DoppelRecording

/// Redaction reads every HAR entry as a `JSONValue` built straight from the value
/// (`JSONValue(fastEncoding:)`), not from the bytes `JSONEncoder` writes: what it builds must be
/// what writing and reading back gives, or a secret in a field written differently would be missed.
@Suite struct JSONValueEncoderTests {
  /// What `JSONEncoder` writes for `value`, read back.
  static func throughBytes<T: Encodable>(_ value: T) throws -> JSONValue? {
    JSONValue(reading: Array(try JSONEncoder().encode(value)))
  }

  struct Everything: Encodable {
    var int8: Int8 = -8
    var int16: Int16 = 16
    var int32: Int32 = -32
    var int64: Int64 = .max
    var uint8: UInt8 = 8
    var uint16: UInt16 = 16
    var uint32: UInt32 = 32
    var uint64: UInt64 = .max
    var int = -42
    var uint: UInt = 42
    var float: Float = 0.1
    var double = 0.1
    var bool = true
    var string = "a \"quoted\" ✓"
    var absent: String? = nil
    var present: String? = "here"
    var url = URL(string: "https://api.example.com/a%20b?c=d#e")!
    var relative = URL(string: "b", relativeTo: URL(string: "https://api.example.com/a/")!)!
    var data = Data([0, 1, 2, 250])
    var date = Date(timeIntervalSinceReferenceDate: 12.5)
    var json: JSONValue = ["a": [1, "b", nil, true], "c": 2.5]
    var nested: [[String: [Int]]] = [["x": [1, 2]], [:]]
    var empty: [String] = []
    var dictionary: [String: Double] = ["one": 1, "half": 0.5]
    var numberKeys: [Int: String] = [1: "one"]

    enum Keys: String, CodingKey { case explicitNil, sub, list }

    func encode(to encoder: any Encoder) throws {
      // The synthesized form of every field, then containers written by hand.
      try Synthesized(self).encode(to: encoder)
      var container = encoder.container(keyedBy: Keys.self)
      try container.encodeNil(forKey: .explicitNil)
      var sub = container.nestedContainer(keyedBy: Keys.self, forKey: .sub)
      try sub.encode(7, forKey: .list)
      var list = container.nestedUnkeyedContainer(forKey: .list)
      try list.encode(Int8(1))
      try list.encode(UInt64(2))
      try list.encode(Float(1.5))
      try list.encodeNil()
      var inner = list.nestedUnkeyedContainer()
      try inner.encode("deep")
      var parent = container.superEncoder().singleValueContainer()
      try parent.encode("parent")
    }

    /// The fields, encoded as the compiler would.
    struct Synthesized: Encodable {
      let int8: Int8, int16: Int16, int32: Int32, int64: Int64
      let uint8: UInt8, uint16: UInt16, uint32: UInt32, uint64: UInt64
      let int: Int, uint: UInt, float: Float, double: Double, bool: Bool, string: String
      let absent: String?, present: String?, url: URL, relative: URL, data: Data, date: Date
      let json: JSONValue, nested: [[String: [Int]]], empty: [String], dictionary: [String: Double]
      let numberKeys: [Int: String]

      init(_ all: Everything) {
        (int8, int16, int32, int64) = (all.int8, all.int16, all.int32, all.int64)
        (uint8, uint16, uint32, uint64) = (all.uint8, all.uint16, all.uint32, all.uint64)
        (int, uint, float, double, bool, string) = (all.int, all.uint, all.float, all.double, all.bool, all.string)
        (absent, present, url, relative, data, date) = (
          all.absent, all.present, all.url, all.relative, all.data, all.date
        )
        (json, nested, empty, dictionary) = (all.json, all.nested, all.empty, all.dictionary)
        numberKeys = all.numberKeys
      }
    }
  }

  @Test func everyKindOfValueIsWhatJSONEncoderWritesReadBack() throws {
    let built = try JSONValue(fastEncoding: Everything())
    #expect(built == (try Self.throughBytes(Everything())))
    // Spot checks of the strategies JSONEncoder applies by default.
    guard case .object(let fields) = built else {
      Issue.record("not an object: \(built)")
      return
    }
    #expect(fields["url"] == "https://api.example.com/a%20b?c=d#e")
    #expect(fields["relative"] == "https://api.example.com/a/b")
    #expect(fields["data"] == "AAEC+g==")
    #expect(fields["date"] == 12.5)
    #expect(fields["float"] == 0.1)
    #expect(fields["absent"] == nil)
    #expect(fields["explicitNil"] == .null)
    #expect(fields["super"] == "parent")
  }

  @Test func harDocumentsAreWhatJSONEncoderWritesReadBack() throws {
    let cassettes = [
      try HARFixtures.madeInCode(),
      try Cassette(data: Data(HARFixtures.browserExport.utf8), file: "export.har"),
      try Cassette(data: Data(BrowserHARTests.chromeHAR.utf8), file: "chrome.har"),
    ]
    for cassette in cassettes {
      #expect(try JSONValue(fastEncoding: cassette.har) == (try Self.throughBytes(cassette.har)))
      for entry in cassette.entries {
        #expect(try JSONValue(fastEncoding: entry) == (try Self.throughBytes(entry)))
      }
    }
  }

  @Test(arguments: [Double.nan, .infinity, -.infinity])
  func aNumberThatIsNotFiniteThrowsAsWithJSONEncoder(_ number: Double) {
    struct Holder: Encodable {
      let value: JSONValue
      let list: [Float]
    }
    #expect(throws: EncodingError.self) { try JSONValue(fastEncoding: ["time": number]) }
    #expect(throws: EncodingError.self) { try JSONEncoder().encode(["time": number]) }
    #expect(throws: EncodingError.self) { try JSONValue(fastEncoding: Holder(value: ["a": .number(number)], list: [])) }
    #expect(throws: EncodingError.self) { try JSONValue(fastEncoding: Holder(value: 1, list: [Float(number)])) }
  }
}
