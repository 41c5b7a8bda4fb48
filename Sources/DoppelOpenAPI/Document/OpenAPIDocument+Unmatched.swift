#if OpenAPI
  import Doppel
  import Foundation

  extension OpenAPIDocument {
    /// The body the document gives its errors when it declares one: the JSON object schema its
    /// operations' `404` answers use most (then their `4XX`, then `default`), with its media
    /// type; `nil` when no operation documents such an answer with a JSON object schema.
    struct ErrorShape: Sendable {
      let schema: Int
      let contentType: String
    }

    /// See ``ErrorShape``: ties go to the schema seen first in document order.
    func errorShape() -> ErrorShape? {
      for wanted in ["404", "4XX", "default"] {
        var counts: [Int: (count: Int, first: Int, type: String)] = [:]
        var order = 0
        for operation in operations {
          for reply in operation.replies where reply.status.uppercased() == wanted.uppercased() {
            guard let media = reply.content.first(where: { $0.isJSON && !$0.isStream }), let schema = media.schema,
              Self.isObject(table.resolved(schema))
            else { continue }
            let type = media.type.contains("*") ? "application/json" : media.type
            let seen = counts[schema] ?? (0, order, type)
            counts[schema] = (seen.count + 1, seen.first, seen.type)
            order += 1
          }
        }
        let best = counts.max { lhs, rhs in
          lhs.value.count != rhs.value.count ? lhs.value.count < rhs.value.count : lhs.value.first > rhs.value.first
        }
        if let best { return ErrorShape(schema: best.key, contentType: best.value.type) }
      }
      return nil
    }

    /// Whether a schema describes an object: an error body the report can go into.
    private static func isObject(_ schema: Schema) -> Bool {
      schema.types?.contains("object") == true
        || (schema.types == nil && (!schema.properties.isEmpty || !schema.allOf.isEmpty))
    }

    /// Whether `path` lies under one of the document's server paths (every path does when one of
    /// them is the root).
    func serves(path: String) -> Bool {
      basePaths.contains { base in
        base.isEmpty || path == base || (path.hasPrefix(base) && path.dropFirst(base.count).first == "/")
      }
    }

    /// The names of the string properties an error body carries its message in, in the order
    /// they are tried.
    static let messageProperties = [
      "detail", "message", "error_description", "errorMessage", "error_message", "description", "error", "title",
      "msg", "reason",
    ]

    /// The answer to a request under the document's paths that no stub matched, at a front door
    /// that answers it with `status` (the stub server's `404`): the document's error shape (see
    /// ``errorShape()``) generated to conform, with the near-miss report in its message property
    /// when the schema allows it, else an RFC 9457 problem whose `detail` is the report. `nil`
    /// for a path outside the document's servers.
    func unmatchedAnswer(for request: Request, report: String, status: Int, shape: ErrorShape?, seed: UInt64)
      -> Response?
    {
      guard serves(path: request.path) else { return nil }
      let headers: HTTPHeaders = ["X-Doppel-Unmatched": "1", "X-Doppel-Near-Miss": Self.oneLine(firstLine(report))]
      guard let shape else {
        return Self.problem(
          status: status, title: HTTPURLResponse.localizedString(forStatusCode: status).capitalized, detail: report,
          headers: headers)
      }
      var generator = ExampleGenerator(table: table, seed: seed ^ SeededRandom.hash("unmatched \(status)"))
      var value = generator.value(for: shape.schema)
      if case .object(var fields) = value {
        // The report where the document keeps an error's text, if the schema takes it there; the
        // first line if only a shorter text fits.
        placing: for name in Self.messageProperties {
          guard case .string = fields[name] else { continue }
          for text in [report, firstLine(report)] {
            var candidate = fields
            candidate[name] = .string(text)
            if generator.conforms(.object(candidate), to: shape.schema) {
              fields = candidate
              break placing
            }
          }
        }
        value = .object(fields)
      }
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      let data = (try? encoder.encode(value)) ?? Data()
      return .data(data, status: status, headers: headers, contentType: shape.contentType)
    }

    private func firstLine(_ text: String) -> String {
      String(text.prefix { $0 != "\n" })
    }
  }
#endif
