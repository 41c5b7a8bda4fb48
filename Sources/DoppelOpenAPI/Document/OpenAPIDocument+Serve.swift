#if OpenAPI
  import Doppel
  import Foundation

  extension OpenAPIDocument {
    /// What stubs made from the document do with a request that breaks it.
    public enum InvalidRequests: Sendable, Hashable {
      /// Refused with 400 or 422, as Prism refuses it (the default).
      case refused
      /// Answered as a valid request would be; the violations are only reported where the
      /// backend also validates (`backend.validate(against: document)`).
      case answered
    }

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

    /// The answer to a request that breaks `operation` (a parameter, the body, its content
    /// type), or `nil` when the request conforms: the operation's own answer for the status
    /// (400 for parameters, 422 for the body; a documented 400 serves for both, then `4XX`, then
    /// `default`) when it documents one, else an RFC 9457 problem naming the violations. Either
    /// way the `X-Doppel-Refused` header names the first violation.
    func refusal(for request: Request, operation: Operation, seed: UInt64) -> Response? {
      let violations = check(request, operation, request.pathParameters)
      guard let first = violations.first else { return nil }
      let status =
        violations.allSatisfy { $0.part == "request security" }
        ? 401 : violations.contains { !$0.part.hasPrefix("request body") && $0.part != "request security" } ? 400 : 422
      let summary = Self.oneLine(first.description)
      // The operation's own answer: for the status, else a documented 400, else its `4XX` or
      // `default`, else another client error it documents, so that the status is documented.
      let refusals: Set<Int> = [400, 401, 403, 404, 409, 422]
      let documented =
        operation.replies.first { $0.status == String(status) } ?? operation.replies.first { $0.status == "400" }
        ?? operation.replies.first { $0.status.uppercased() == "4XX" }
        ?? operation.replies.first { $0.status == "default" }
        ?? operation.replies.first { Int($0.status).map(refusals.contains) == true }
      if let reply = documented {
        // The reply's own code when it names one (a documented 400 for a body too), so that the
        // status is one the operation documents.
        let served = Int(reply.status) ?? status
        var answer = self.answer(
          request, operation: operation, reply: reply, status: served, scenario: nil, seed: seed)
        answer.headers.replace("X-Doppel-Refused", with: summary)
        return answer
      }
      let listed = violations.prefix(10).map { "- \($0.description)" }.joined(separator: "\n")
      let more = violations.count > 10 ? "\n(and \(violations.count - 10) more)" : ""
      return Self.problem(
        status: status,
        title: status == 400 ? "Bad Request" : status == 401 ? "Unauthorized" : "Unprocessable Content",
        detail:
          "The request breaks \(operation.name) (\(operation.key), \(name):\(operation.location.line)):\n\(listed)\(more)",
        headers: ["X-Doppel-Refused": summary])
    }

    /// `text` on one line, for a header value: line breaks and other control characters become
    /// spaces, and it is cut at 512 characters.
    static func oneLine(_ text: String) -> String {
      let cleaned = String(
        String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
      return cleaned.count > 512 ? String(cleaned.prefix(511)) + "…" : cleaned
    }

    /// The response an operation gives to `request`: the status and example the `Prefer` header or
    /// the scenario asks for, else the lowest 2xx with its first example or a generated body.
    func response(
      for request: Request, operation: Operation, scenario: String?, seed: UInt64, examples: Examples = .conforming
    ) -> Response {
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
      return answer(
        request, operation: operation, reply: reply, status: status, scenario: wanted, seed: seed, examples: examples)
    }

    /// What stubs made from the document do with an example that breaks its own schema.
    public enum Examples: Sendable, Hashable {
      /// A generated answer is served in its place (the default; ``OpenAPIDocument/warnings``
      /// names the example).
      case conforming
      /// Served as written.
      case asIs
    }

    /// What tells an example apart in ``brokenExamples``.
    static func exampleKey(
      _ operation: Operation, _ reply: Operation.Reply, _ media: Operation.MediaType, _ name: String?
    ) -> String {
      "\(operation.key) \(reply.status) \(media.type) \(name ?? "")"
    }

    /// The answer `reply` gives with `status`: its headers, and its example named `wanted`, else
    /// its first example, else a body generated from its schema.
    func answer(
      _ request: Request, operation: Operation, reply: Operation.Reply, status: Int, scenario wanted: String?,
      seed: UInt64, examples: Examples = .conforming
    ) -> Response {
      var headers = HTTPHeaders()
      // The path's values take part in the seed, so that `/pets/42` always gets the same pet and
      // `/pets/43` another one.
      let parameters = request.pathParameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      var generator = ExampleGenerator(
        table: table,
        seed: seed ^ SeededRandom.hash("\(operation.name) \(reply.status) \(parameters.joined(separator: "&"))"))
      for header in reply.headers where header.name.lowercased() != "content-type" {
        guard header.required || header.example != nil else { continue }
        let value = header.example ?? header.schema.map { generator.value(for: $0) } ?? .string("")
        headers.add(header.name, Self.text(value))
      }
      guard let media = Self.negotiate(reply.content, accept: request.headers["Accept"]) else {
        return Response(status: status, headers: headers)
      }
      // The named example asked for, else the example, else the first named one; one that
      // breaks its own schema only with `examples: .asIs`.
      var candidates: [(name: String?, value: JSONValue)] = []
      if let wanted, let named = media.examples.first(where: { $0.name == wanted }) { candidates.append(named) }
      if let example = media.example { candidates.append((nil, example)) }
      if let first = media.examples.first { candidates.append(first) }
      let usable = candidates.first { candidate in
        examples == .asIs || !brokenExamples.contains(Self.exampleKey(operation, reply, media, candidate.name))
      }
      if media.isStream {
        return stream(media, example: usable?.value, status: status, headers: headers, generator: &generator)
      }
      var value = usable?.value
      if value == nil, let schema = media.schema {
        value = echoing(request.pathParameters, in: generator.value(for: schema), schema: schema, generator: generator)
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

    /// `value` with the request's path parameters where a generated object names them: a
    /// property of the parameter's name (`petId`, `pet_id`), or `id` for a parameter named like an
    /// id (`petId`, `pet_id`, `id`), takes the parameter's value when the schema allows it, so that
    /// `GET /pets/42` answers a pet whose `id` is 42.
    func echoing(
      _ parameters: [String: String], in value: JSONValue, schema: Int, generator: ExampleGenerator
    ) -> JSONValue {
      guard !parameters.isEmpty, case .object(var fields) = value else { return value }
      var changed = false
      for (name, given) in parameters.sorted(by: { $0.key < $1.key }) {
        let lowered = name.lowercased()
        var names = [name]
        if lowered == "id" || lowered.hasSuffix("id") { names.append("id") }
        for property in names {
          guard let current = fields[property] else { continue }
          let replacement: JSONValue
          switch current {
          case .number:
            guard let number = Double(given), number.isFinite else { continue }
            replacement = .number(number)
          case .string: replacement = .string(given)
          default: continue
          }
          var candidate = fields
          candidate[property] = replacement
          if generator.conforms(.object(candidate), to: schema) {
            fields = candidate
            changed = true
          }
          break
        }
      }
      return changed ? .object(fields) : value
    }

    /// The matcher for requests to `template` under each of the servers' paths.
    func pathMatcher(_ template: String) -> Matcher {
      let matchers = basePaths.map { Matcher.path($0 + template) }
      return matchers.dropFirst().reduce(matchers[0]) { $0 || $1 }
    }

    /// The documented path `request` reaches and the methods it documents, when it does not
    /// document the request's method; `nil` otherwise (and for `HEAD` where `GET` is documented,
    /// which is answered as `GET`).
    func undocumentedMethod(_ request: Request) -> (template: String, allow: String)? {
      guard case .wrongMethod(let template, let methods, _) = lookup(method: request.method, path: request.path)
      else { return nil }
      if request.method == .head && methods.contains("GET") { return nil }
      return (template, methods.joined(separator: ", "))
    }

    /// The answer to a method `template` does not document: 405 with `Allow` and an RFC 9457
    /// problem, or for `OPTIONS` 204 with `Allow`.
    func methodNotAllowed(_ request: Request, template: String, allow: String) -> Response {
      if request.method == .options { return Response(status: 204, headers: ["Allow": allow]) }
      return Self.problem(
        status: 405, title: "Method Not Allowed",
        detail:
          "\(name) documents \(template) for \(allow) only, not \(request.method.rawValue). Send one of those, or add the operation to the document.",
        headers: ["Allow": allow])
    }

    /// An RFC 9457 problem (`application/problem+json`).
    static func problem(status: Int, title: String, detail: String, headers: HTTPHeaders = [:]) -> Response {
      let object: JSONValue = .object([
        "type": .string("about:blank"), "title": .string(title), "status": .number(Double(status)),
        "detail": .string(detail),
      ])
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      let data = (try? encoder.encode(object)) ?? Data()
      return .data(data, status: status, headers: headers, contentType: "application/problem+json")
    }

    /// The media type of `content` that the `Accept` header prefers: the highest q-value, a
    /// specific match before `type/*` before `*/*`, then document order; JSON first when the
    /// request states no preference (or none of `content` is acceptable).
    static func negotiate(_ content: [Operation.MediaType], accept: String?) -> Operation.MediaType? {
      let fallback = content.first(where: { $0.isJSON && !$0.isStream }) ?? content.first
      guard let accept, !accept.isEmpty else { return fallback }
      var best: (media: Operation.MediaType, quality: Double, precision: Int)?
      for range in accept.split(separator: ",") {
        let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let type = parts.first, !type.isEmpty else { continue }
        let quality =
          parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
        guard quality > 0 else { continue }
        let precision = type == "*/*" ? 0 : type.hasSuffix("/*") ? 1 : 2
        for media in content {
          let fits =
            precision == 0 || (precision == 1 && media.base.hasPrefix(String(type.dropLast())))
            || media.base == type
          guard fits else { continue }
          // `*/*` says nothing of which: JSON first, as without an Accept header.
          let chosen = precision == 0 ? (fallback ?? media) : media
          if let current = best,
            current.quality > quality || (current.quality == quality && current.precision >= precision)
          {
            continue
          }
          best = (chosen, quality, precision)
          break
        }
      }
      return best?.media ?? fallback
    }

    /// How many items a stream from the document holds, and the time before each on the
    /// backend's clock.
    static let streamItems = 3
    static let streamInterval = Duration.milliseconds(100)

    /// A `text/event-stream` or JSON Lines answer: the items of its example (an array's elements,
    /// else the one value), else ``streamItems`` items made from the media type's `itemSchema`
    /// (OpenAPI 3.2), else its schema (an array's `items`); events one every ``streamInterval`` on
    /// the backend's clock, JSON Lines at once.
    private func stream(
      _ media: Operation.MediaType, example: JSONValue?, status: Int, headers: HTTPHeaders,
      generator: inout ExampleGenerator
    ) -> Response {
      var itemSchema = media.itemSchema ?? media.schema
      if media.itemSchema == nil, let schema = media.schema, let items = table.resolved(schema).items,
        table.resolved(schema).types?.contains("array") == true
      {
        itemSchema = items
      }
      // An event stream's example written as the wire text (`data: …` lines, a blank line
      // between events) is played event by event.
      if media.base == "text/event-stream", case .string(let text)? = example, let events = Self.events(in: text) {
        return .eventStream(events, every: Self.streamInterval, status: status, headers: headers)
      }
      let values: [JSONValue]
      switch example {
      case .array(let elements)?: values = elements
      case let example?: values = [example]
      case nil:
        values = (0..<Self.streamItems).map { _ in itemSchema.map { generator.value(for: $0) } ?? .object([:]) }
      }
      let items: [String] = values.map { value in
        if case .string(let text) = value, media.base == "text/event-stream" { return text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
      }
      if media.base == "text/event-stream" {
        let events = items.enumerated().map { ServerSentEvent(id: String($0.offset + 1), data: $0.element) }
        return .eventStream(events, every: Self.streamInterval, status: status, headers: headers)
      }
      // JSON Lines at once: one line an item.
      let body = Data(items.map { $0 + "\n" }.joined().utf8)
      return Response.data(body, status: status, headers: headers, contentType: media.type)
    }

    /// The events of `text` written as an event stream's wire text (fields `id`, `event`, `data`
    /// and `retry` a line each, a blank line after each event); `nil` when it has no `data:` line.
    static func events(in text: String) -> [ServerSentEvent]? {
      var events: [ServerSentEvent] = []
      let blocks = text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
      for block in blocks {
        var id: String?
        var event: String?
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
          let (field, value) =
            line.firstIndex(of: ":").map { index in
              (String(line[..<index]), String(line[line.index(after: index)...]).trimmingPrefix(" "))
            } ?? (String(line), "")
          switch field {
          case "id": id = String(value)
          case "event": event = String(value)
          case "data": data.append(String(value))
          default: break
          }
        }
        guard !data.isEmpty else { continue }
        events.append(ServerSentEvent(id: id, event: event, data: data.joined(separator: "\n")))
      }
      return events.isEmpty ? nil : events
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
