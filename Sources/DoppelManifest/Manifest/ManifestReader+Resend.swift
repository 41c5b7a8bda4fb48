import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// What `doppel drift` re-sends for a manifest stub: the one request its `request` describes, or
/// why it cannot be told from the stub (a pattern, a GraphQL matcher). `package`: for the tool
/// only.
package struct ManifestResend: Sendable {
  /// The method (`GET` when the stub names none).
  package var method = "GET"
  /// The URL as written (an absolute URL or a path), with the stub's `query` items added.
  package var url = ""
  /// The header fields with a value (a header matched as `true`, present with any value, is not
  /// sent).
  package var headers: [HARNameValue] = []
  /// The body of `json`, `jsonContaining`, `text` or `form`.
  package var body: Data?
  /// `nil` when the request can be sent; else why not, as a sentence without its full stop.
  package var unsendable: String?
}

extension ManifestReader {
  /// The request a stub's `request` node describes, for `doppel drift`. Only called on a node the
  /// matcher reader accepted, so it reports no problems.
  func resend(_ node: PositionedJSON) -> ManifestResend {
    var resend = ManifestResend()
    if case .string(let text) = node.value {
      // `METHOD URL` (a method is upper-case ASCII letters), else a URL alone. Read as bytes: this
      // runs for every stub of a manifest.
      let bytes = text.utf8
      let space = UInt8(ascii: " ")
      let start = bytes.firstIndex { $0 != space } ?? bytes.endIndex
      let wordEnd = bytes[start...].firstIndex(of: space) ?? bytes.endIndex
      let rest = bytes[wordEnd...].firstIndex { $0 != space } ?? bytes.endIndex
      if start < wordEnd, rest < bytes.endIndex,
        bytes[start..<wordEnd].allSatisfy({ $0 &- UInt8(ascii: "A") < 26 })
      {
        resend.method = String(text[start..<wordEnd])
        resend.url = String(text[rest...])
      } else {
        resend.url = text
      }
      return checked(resend)
    }
    guard case .object(let members) = node.value else { return resend }
    var query: [URLQueryItem] = []
    for member in members {
      let value = member.value.value
      switch (member.key, value) {
      case ("method", .string(let method)): resend.method = method.uppercased()
      case ("url", .string(let url)): resend.url = url
      case ("pathGlob", .string(let pattern)), ("pathRegex", .string(let pattern)):
        resend.unsendable = "its path is a pattern (\(member.key)), not one URL"
        // Shown in the report where the URL would be.
        if resend.url.isEmpty { resend.url = pattern }
      case ("graphql", _):
        resend.unsendable = "a GraphQL matcher names an operation, not the whole request"
      case ("query", .object(let items)), ("queryExactly", .object(let items)):
        for item in items {
          switch item.value.value {
          case .string(let text): query.append(URLQueryItem(name: item.key, value: text))
          case .array(let values):
            for case .string(let text) in values.map(\.value) {
              query.append(URLQueryItem(name: item.key, value: text))
            }
          default: break
          }
        }
      case ("headers", .object(let fields)):
        for case (let name, .string(let text)) in fields.map({ ($0.key, $0.value.value) }) {
          resend.headers.append(HARNameValue(name: name, value: text))
        }
      case ("json", _), ("jsonContaining", _):
        resend.body = Data(member.value.serialized.utf8)
        resend.headers.append(HARNameValue(name: "Content-Type", value: "application/json"))
      case ("text", .string(let text)):
        resend.body = Data(text.utf8)
      case ("form", .object(let fields)):
        var form = URLComponents()
        form.queryItems = fields.compactMap { field in
          if case .string(let text) = field.value.value { return URLQueryItem(name: field.key, value: text) }
          return nil
        }
        resend.body = Data((form.percentEncodedQuery ?? "").utf8)
        resend.headers.append(HARNameValue(name: "Content-Type", value: "application/x-www-form-urlencoded"))
      default: break
      }
    }
    if resend.unsendable == nil, resend.url.isEmpty {
      resend.unsendable = "its request has no \"url\" to send"
    }
    if !query.isEmpty, var components = URLComponents(string: resend.url) {
      components.queryItems = (components.queryItems ?? []) + query
      resend.url = components.string ?? resend.url
    }
    return checked(resend)
  }

  /// `resend`, marked unsendable when its URL is a path template (`/users/{id}`).
  private func checked(_ resend: ManifestResend) -> ManifestResend {
    var resend = resend
    // A template has a brace, written or percent-encoded; most URLs have neither, and need not be
    // parsed.
    guard resend.unsendable == nil,
      resend.url.utf8.contains(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "%") })
    else { return resend }
    let path = URLComponents(string: resend.url)?.path ?? resend.url
    if path.contains("{") {
      resend.unsendable = "its path is a template (\(path)), not one URL"
    }
    return resend
  }
}
