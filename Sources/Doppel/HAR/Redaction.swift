import Foundation

/// Which secrets to replace with ``marker`` before a cassette touches the disk.
///
/// ```swift
/// let redaction = Redaction.default.adding(headers: ["X-Session"], jsonFields: ["user.password"])
/// try cassette.save(to: url, redaction: redaction)
/// ```
///
/// Header names and query parameter names compare case-insensitively. A JSON field is a key path
/// from the body's root, such as `user.password`; arrays along the way are looked into, so
/// `items.token` reaches the `token` of every element of `items`. Request and response bodies are
/// both redacted.
///
/// Replay still matches redacted values: a recorded header, query parameter or JSON field whose
/// value is the marker matches any value.
public struct Redaction: Sendable, Equatable {
  /// What a redacted value is replaced with: `REDACTED`.
  public static let marker = "REDACTED"

  /// Header names whose values are replaced (the parsed `cookies` of a HAR entry follow `Cookie`
  /// and `Set-Cookie`).
  public private(set) var headers: [String]
  /// Query parameter names whose values are replaced, in URLs (the request's, a redirect's
  /// `Location`) and in form-encoded request bodies.
  public private(set) var queryParameters: [String]
  /// JSON key paths, such as `user.password`, whose values are replaced in JSON bodies.
  public private(set) var jsonFields: [String]

  /// Creates a redaction of exactly these names (see ``default`` for the usual ones).
  public init(headers: [String] = [], queryParameters: [String] = [], jsonFields: [String] = []) {
    self.headers = headers
    self.queryParameters = queryParameters
    self.jsonFields = jsonFields
  }

  /// The headers `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-API-Key`,
  /// `X-Auth-Token` and `X-Amz-Security-Token`, and the query parameters `api_key`, `apikey`,
  /// `api-key`, `key`, `token`, `access_token`, `refresh_token`, `id_token`, `client_secret`,
  /// `secret`, `password`, `signature`, `sig`, `auth`, `X-Amz-Signature`, `X-Amz-Credential` and
  /// `X-Amz-Security-Token`.
  public static let `default` = Redaction(
    headers: [
      "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-API-Key", "X-Auth-Token",
      "X-Amz-Security-Token",
    ],
    queryParameters: [
      "api_key", "apikey", "api-key", "key", "token", "access_token", "refresh_token", "id_token", "client_secret",
      "secret", "password", "signature", "sig", "auth", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token",
    ])

  /// Redacts nothing.
  public static let disabled = Redaction()

  /// This redaction with more names.
  public func adding(headers: [String] = [], queryParameters: [String] = [], jsonFields: [String] = []) -> Redaction {
    Redaction(
      headers: self.headers + headers, queryParameters: self.queryParameters + queryParameters,
      jsonFields: self.jsonFields + jsonFields)
  }

  /// `cassette` with every entry redacted.
  public func redact(_ cassette: Cassette) -> Cassette {
    var copy = cassette
    copy.entries = cassette.entries.map(redact)
    return copy
  }

  /// `entry` with its secrets replaced by ``marker``.
  public func redact(_ entry: HAREntry) -> HAREntry {
    let headerNames = Set(headers.map { $0.lowercased() })
    let queryNames = Set(queryParameters.map { $0.lowercased() })
    let paths = jsonFields.map { $0.split(separator: ".").map(String.init) }
    var entry = entry

    var request = entry.request
    request.headers = redactHeaders(request.headers, headerNames, queryNames)
    request.url = Self.redactQuery(in: request.url, queryNames)
    request.queryString = request.queryString.map { item in
      var item = item
      if queryNames.contains(item.name.lowercased()) { item.value = Self.marker }
      return item
    }
    if headerNames.contains("cookie") { request.extra["cookies"] = Self.redactCookies(request.extra["cookies"]) }
    if var postData = request.postData {
      if let text = postData.text {
        if postData.mimeType.lowercased().contains("x-www-form-urlencoded") {
          postData.text = Self.redactForm(text, queryNames)
        } else {
          let redacted = Self.redactJSON(text, encoding: postData.encoding, paths)
          postData.text = redacted.text
          postData.encoding = redacted.encoding
        }
      }
      if case .array(let params)? = postData.extra["params"] {
        postData.extra["params"] = .array(params.map { Self.redactPair($0, queryNames) })
      }
      request.postData = postData
    }
    entry.request = request

    var response = entry.response
    response.headers = redactHeaders(response.headers, headerNames, queryNames)
    response.redirectURL = Self.redactQuery(in: response.redirectURL, queryNames)
    if headerNames.contains("set-cookie") { response.extra["cookies"] = Self.redactCookies(response.extra["cookies"]) }
    if let text = response.content.text {
      let redacted = Self.redactJSON(text, encoding: response.content.encoding, paths)
      response.content.text = redacted.text
      response.content.encoding = redacted.encoding
    }
    entry.response = response
    return entry
  }

  // MARK: Parts

  private func redactHeaders(
    _ fields: [HARNameValue], _ names: Set<String>, _ queryNames: Set<String>
  ) -> [HARNameValue] {
    fields.map { field in
      var field = field
      let name = field.name.lowercased()
      if names.contains(name) {
        field.value = Self.marker
      } else if name == "location" || name == "content-location" {
        field.value = Self.redactQuery(in: field.value, queryNames)
      }
      return field
    }
  }

  private static func redactPair(_ value: JSONValue, _ names: Set<String>) -> JSONValue {
    guard case .object(var object) = value, case .string(let name)? = object["name"],
      names.contains(name.lowercased()), object["value"] != nil
    else { return value }
    object["value"] = .string(marker)
    return .object(object)
  }

  private static func redactCookies(_ cookies: JSONValue?) -> JSONValue? {
    guard case .array(let list)? = cookies else { return cookies }
    return .array(
      list.map { cookie in
        guard case .object(var object) = cookie, object["value"] != nil else { return cookie }
        object["value"] = .string(marker)
        return .object(object)
      })
  }

  /// `url` with the values of the named query parameters replaced, the rest byte for byte.
  static func redactQuery(in url: String, _ names: Set<String>) -> String {
    guard !names.isEmpty, let question = url.firstIndex(of: "?") else { return url }
    let afterQuestion = url.index(after: question)
    let end = url[afterQuestion...].firstIndex(of: "#") ?? url.endIndex
    let query = String(url[afterQuestion..<end])
    return String(url[..<afterQuestion]) + redactForm(query, names) + String(url[end...])
  }

  /// A `name=value&…` string with the values of the named parameters replaced.
  static func redactForm(_ form: String, _ names: Set<String>) -> String {
    form.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
      guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
      let rawName = String(pair[..<equals])
      let name = (rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName).lowercased()
      return names.contains(name) ? rawName + "=" + marker : String(pair)
    }.joined(separator: "&")
  }

  /// A JSON body with the values at `paths` replaced; bodies that are not JSON, or in which no
  /// path is found, come back unchanged.
  private static func redactJSON(
    _ text: String, encoding: String?, _ paths: [[String]]
  ) -> (text: String, encoding: String?) {
    guard !paths.isEmpty else { return (text, encoding) }
    let data: Data
    if encoding?.lowercased() == "base64" {
      guard let decoded = Data(base64Encoded: text.filter { !$0.isWhitespace }) else { return (text, encoding) }
      data = decoded
    } else {
      data = Data(text.utf8)
    }
    guard var json = try? JSONValue(parsing: data) else { return (text, encoding) }
    var changed = false
    for path in paths where !path.isEmpty {
      json = replace(json, at: path[...], changed: &changed)
    }
    guard changed else { return (text, encoding) }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let output = try? encoder.encode(json) else { return (text, encoding) }
    if encoding?.lowercased() == "base64" { return (output.base64EncodedString(), encoding) }
    return (String(decoding: output, as: UTF8.self), encoding)
  }

  private static func replace(_ value: JSONValue, at path: ArraySlice<String>, changed: inout Bool) -> JSONValue {
    guard let key = path.first else { return value }
    switch value {
    case .array(let elements):
      return .array(elements.map { replace($0, at: path, changed: &changed) })
    case .object(var object):
      guard let inner = object[key] else { return value }
      if path.count == 1 {
        if inner != .string(marker) {
          object[key] = .string(marker)
          changed = true
        }
      } else {
        object[key] = replace(inner, at: path.dropFirst(), changed: &changed)
      }
      return .object(object)
    default:
      return value
    }
  }
}
