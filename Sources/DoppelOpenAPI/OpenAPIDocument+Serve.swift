#if OpenAPI
  import Doppel
  import Foundation

  extension OpenAPIDocument {
    /// What a request asks for in its `Prefer` header: `code=404`, `example=empty` (Prism's names).
    struct Preference {
      var code: Int?
      var example: String?

      init(_ header: String?) {
        for part in (header ?? "").split(whereSeparator: { $0 == "," || $0 == ";" }) {
          let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
          guard pair.count == 2 else { continue }
          let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
          switch pair[0].lowercased() {
          case "code": code = Int(value)
          case "example": example = value
          default: break
          }
        }
      }
    }

    /// The response an operation gives to `request`: the status and example the `Prefer` header or
    /// the scenario asks for, else the lowest 2xx with its first example or a generated body.
    func response(for request: Request, operation: Operation, scenario: String?, seed: UInt64) -> Response {
      let preference = Preference(request.headers["Prefer"])
      let wanted = preference.example ?? scenario
      let reply: Operation.Reply
      var status: Int
      if let code = preference.code {
        guard let found = operation.reply(for: code) else {
          return .text(
            "\(name) documents no response \(code) for \(operation.name); it documents \(operation.replies.map(\.status).joined(separator: ", ")). Ask for one of those with Prefer: code=…",
            status: 500, headers: ["X-Doppel-Problem": "undocumented status"])
        }
        (reply, status) = (found, code)
      } else if let wanted,
        let found = Self.ordered(operation.replies).first(where: { reply in
          reply.content.contains { media in media.examples.contains { $0.name == wanted } }
        })
      {
        (reply, status) = (found, found.servedStatus)
      } else if let first = Self.ordered(operation.replies).first {
        (reply, status) = (first, first.servedStatus)
      } else {
        return .status(204)
      }
      var headers = HTTPHeaders()
      var generator = ExampleGenerator(
        table: table, seed: seed ^ SeededRandom.hash("\(operation.name) \(reply.status)"))
      for header in reply.headers where header.name.lowercased() != "content-type" {
        guard header.required || header.example != nil else { continue }
        let value = header.example ?? header.schema.map { generator.value(for: $0) } ?? .string("")
        headers.add(header.name, Self.text(value))
      }
      guard let media = reply.content.first(where: \.isJSON) ?? reply.content.first else {
        return Response(status: status, headers: headers)
      }
      let value: JSONValue?
      if let wanted, let named = media.examples.first(where: { $0.name == wanted }) {
        value = named.value
      } else if let example = media.example ?? media.examples.first?.value {
        value = example
      } else {
        value = media.schema.map { generator.value(for: $0) }
      }
      let contentType = media.type.contains("*") ? "application/json" : media.type
      guard let value else { return Response(status: status, headers: headers) }
      if media.isJSON {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data()
        return .data(data, status: status, headers: headers, contentType: contentType)
      }
      return .text(Self.text(value), status: status, headers: headers, contentType: contentType)
    }

    /// 2xx replies first (lowest code first), then the rest in document order.
    private static func ordered(_ replies: [Operation.Reply]) -> [Operation.Reply] {
      let success = replies.filter { (200..<300).contains($0.servedStatus) && $0.status != "default" }
        .sorted { $0.servedStatus < $1.servedStatus }
      return success + replies.filter { reply in !success.contains { $0.status == reply.status } }
    }

    /// A value as header or plain-text content.
    static func text(_ value: JSONValue) -> String {
      switch value {
      case .string(let text): return text
      case .number(let number): return SchemaValidator.number(number)
      case .bool(let flag): return flag ? "true" : "false"
      case .null: return ""
      case .array(let items): return items.map(text).joined(separator: ",")
      case .object: return value.description
      }
    }
  }
#endif
