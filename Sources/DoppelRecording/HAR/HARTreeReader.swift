import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Reads the HAR types straight from a ``PositionedJSON`` tree, field by field in the order their
/// `Decodable` conformances read them, so a problem is the one decoding would have met first.
///
/// It replaces a generic `Decoder` over the tree, which cost a container, a coding path and a
/// dynamic cast per field: a cassette of 50,000 entries loads in a fraction of the time. A problem
/// carries only the offset of the faulty value (or of the object missing a key); its JSON path is
/// found from the offset afterwards (see ``path(to:in:)``), so reading builds no path at all.
enum HARTreeReader {
  /// A value that does not fit: where it is, and what is wrong with the fix.
  struct Problem: Error, Sendable {
    let offset: Int
    let message: String
  }

  /// Whole numbers read into `Int` are within ±2^53, where every integer is exact in a JSON
  /// number.
  static let largestWhole = 9_007_199_254_740_992.0

  static func file(_ node: PositionedJSON) throws(Problem) -> HARFile {
    let fields = try object(node, isDocument: true)
    return HARFile(log: try readLog(fields.required("log")), extra: fields.extra(excluding: ["log"]))
  }

  // MARK: HAR objects

  private static func readLog(_ node: PositionedJSON) throws(Problem) -> HARLog {
    let fields = try object(node)
    let version = try fields.optional("version").map(string) ?? "1.2"
    let creator = try fields.optional("creator").map(readCreator) ?? HARCreator(name: "unknown", version: "")
    let entries = try array(fields.required("entries"), of: readEntry)
    return HARLog(
      version: version, creator: creator, entries: entries,
      extra: fields.extra(excluding: ["version", "creator", "entries"]))
  }

  private static func readCreator(_ node: PositionedJSON) throws(Problem) -> HARCreator {
    let fields = try object(node)
    return HARCreator(
      name: try fields.optional("name").map(string) ?? "", version: try fields.optional("version").map(string) ?? "",
      extra: fields.extra(excluding: ["name", "version"]))
  }

  private static func readEntry(_ node: PositionedJSON) throws(Problem) -> HAREntry {
    let fields = try object(node)
    let startedDateTime = try fields.optional("startedDateTime").map(string) ?? ""
    let time = try fields.optional("time").map(double) ?? 0
    let request = try readRequest(fields.required("request"))
    let response = try readResponse(fields.required("response"))
    return HAREntry(
      startedDateTime: startedDateTime, time: time, request: request, response: response,
      extra: fields.extra(excluding: ["startedDateTime", "time", "request", "response"]))
  }

  private static func readRequest(_ node: PositionedJSON) throws(Problem) -> HARRequest {
    let fields = try object(node)
    let method = try string(fields.required("method"))
    let url = try string(fields.required("url"))
    let (httpVersion, headers) = try readVersionAndHeaders(fields)
    let queryString = try fields.optional("queryString").map(readNameValues) ?? []
    let postData = try fields.optional("postData").map(readPostData)
    return HARRequest(
      method: method, url: url, httpVersion: httpVersion, headers: headers, queryString: queryString,
      postData: postData,
      extra: fields.extra(excluding: ["method", "url", "httpVersion", "headers", "queryString", "postData"]))
  }

  private static func readResponse(_ node: PositionedJSON) throws(Problem) -> HARResponse {
    let fields = try object(node)
    let status = try int(fields.required("status"))
    let statusText = try fields.optional("statusText").map(string) ?? ""
    let (httpVersion, headers) = try readVersionAndHeaders(fields)
    let content = try fields.optional("content").map(readContent) ?? HARContent()
    let redirectURL = try fields.optional("redirectURL").map(string) ?? ""
    return HARResponse(
      status: status, statusText: statusText, httpVersion: httpVersion, headers: headers, content: content,
      redirectURL: redirectURL,
      extra: fields.extra(excluding: ["status", "statusText", "httpVersion", "headers", "content", "redirectURL"]))
  }

  /// The `httpVersion` and `headers` a request and a response both have.
  private static func readVersionAndHeaders(
    _ fields: Fields
  ) throws(Problem) -> (httpVersion: String, headers: [HARNameValue]) {
    (
      try fields.optional("httpVersion").map(string) ?? "HTTP/1.1",
      try fields.optional("headers").map(readNameValues) ?? []
    )
  }

  private static func readContent(_ node: PositionedJSON) throws(Problem) -> HARContent {
    let fields = try object(node)
    let size = try fields.optional("size").map(int) ?? 0
    let mimeType = try fields.optional("mimeType").map(string) ?? ""
    let text = try fields.optional("text").map(string)
    let encoding = try fields.optional("encoding").map(string)
    return HARContent(
      size: size, mimeType: mimeType, text: text, encoding: encoding,
      extra: fields.extra(excluding: ["size", "mimeType", "text", "encoding"]))
  }

  private static func readPostData(_ node: PositionedJSON) throws(Problem) -> HARPostData {
    let fields = try object(node)
    let mimeType = try fields.optional("mimeType").map(string) ?? ""
    let text = try fields.optional("text").map(string)
    let encoding = try fields.optional("encoding").map(string)
    return HARPostData(
      mimeType: mimeType, text: text, encoding: encoding,
      extra: fields.extra(excluding: ["mimeType", "text", "encoding"])
    )
  }

  private static func readNameValues(_ node: PositionedJSON) throws(Problem) -> [HARNameValue] {
    try array(node) { (item) throws(Problem) in
      let fields = try object(item)
      let name = try string(fields.required("name"))
      let value = try fields.optional("value").map(string) ?? ""
      return HARNameValue(name: name, value: value, extra: fields.extra(excluding: ["name", "value"]))
    }
  }

  // MARK: Objects and arrays

  /// The members of an object, with the lookups HAR objects need.
  private struct Fields {
    let node: PositionedJSON
    let members: [PositionedJSON.Member]
    let isDocument: Bool

    /// The value of `key`; the parser refuses repeated keys, so the first is the only one.
    subscript(key: String) -> PositionedJSON? {
      for member in members where member.key == key { return member.value }
      return nil
    }

    /// A field the HAR object must have; `null` is passed on, for the reader to refuse.
    func required(_ key: String) throws(Problem) -> PositionedJSON {
      guard let value = self[key] else {
        throw Problem(
          offset: node.offset,
          message:
            "\(isDocument ? "the document" : "this object") has no \"\(key)\", which HAR 1.2 requires. Add it, or export the capture again."
        )
      }
      return value
    }

    /// A field the HAR object may leave out or set to `null`.
    func optional(_ key: String) -> PositionedJSON? {
      guard let value = self[key] else { return nil }
      if case .null = value.value { return nil }
      return value
    }

    /// Every field not in `known`, kept as JSON so that a rewrite preserves it.
    func extra(excluding known: [String]) -> [String: JSONValue] {
      var extra: [String: JSONValue] = [:]
      for member in members where !known.contains(member.key) { extra[member.key] = member.value.jsonValue }
      return extra
    }
  }

  private static func object(_ node: PositionedJSON, isDocument: Bool = false) throws(Problem) -> Fields {
    guard case .object(let members) = node.value else {
      throw problem(
        isDocument
          ? "expected a HAR document (a JSON object such as {\"log\": {\"entries\": []}})" : "expected an object",
        node)
    }
    return Fields(node: node, members: members, isDocument: isDocument)
  }

  private static func array<T>(
    _ node: PositionedJSON, of element: (PositionedJSON) throws(Problem) -> T
  ) throws(Problem) -> [T] {
    guard case .array(let items) = node.value else { throw problem("expected an array", node) }
    var result: [T] = []
    result.reserveCapacity(items.count)
    for item in items { result.append(try element(item)) }
    return result
  }

  // MARK: Scalars

  private static func string(_ node: PositionedJSON) throws(Problem) -> String {
    guard case .string(let text) = node.value else { throw problem("expected a string", node) }
    return text
  }

  private static func int(_ node: PositionedJSON) throws(Problem) -> Int {
    guard case .number(let literal) = node.value else { throw problem("expected a whole number", node) }
    let number = PositionedJSON.number(literal)
    guard number.isFinite, number.rounded(.towardZero) == number else {
      throw problem("expected a whole number", node, why: ", which is not a whole number")
    }
    guard abs(number) <= largestWhole, let value = Int(exactly: number) else {
      throw problem(
        "expected a whole number from -9007199254740992 to 9007199254740992", node, why: ", which is too large")
    }
    return value
  }

  private static func double(_ node: PositionedJSON) throws(Problem) -> Double {
    guard case .number(let literal) = node.value else { throw problem("expected a number", node) }
    let number = PositionedJSON.number(literal)
    guard number.isFinite else { throw problem("expected a number", node, why: ", which is too large for a number") }
    return number
  }

  /// `expected a string, found the number 1. Fix the value, or export the capture again.`
  private static func problem(_ expected: String, _ node: PositionedJSON, why: String = "") -> Problem {
    Problem(
      offset: node.offset, message: "\(expected), found \(node.kind)\(why). Fix the value, or export the capture again."
    )
  }

  // MARK: Paths

  /// The JSON path of the value that starts at `offset` (`log.entries[3].response.status`), or
  /// `""` for the document itself. Every value starts at its own offset, so the path is found by
  /// going down into the member or element whose value starts last at or before `offset`.
  static func path(to offset: Int, in root: PositionedJSON) -> String {
    var path = ""
    var node = root
    while node.offset != offset {
      switch node.value {
      case .object(let members):
        guard let member = members.last(where: { $0.value.offset <= offset }) else { return path }
        path += path.isEmpty ? member.key : "." + member.key
        node = member.value
      case .array(let items):
        guard let index = items.lastIndex(where: { $0.offset <= offset }) else { return path }
        path += "[\(index)]"
        node = items[index]
      default:
        return path
      }
    }
    return path
  }
}
