#if Server
  import Doppel
  import Foundation

  extension AdminController {
    /// How many bytes of a binary body the detail of a journal entry shows in hexadecimal.
    static let hexPreviewBytes = 64

    /// `GET requests/{index}`: one journal entry in full, as the dashboard shows an opened row: the
    /// request (headers, body), the answer (status, headers, body, how it was played back), the
    /// stub that answered or the near-miss report, and a WebSocket conversation's frames, each
    /// redacted as the journal's HAR is.
    func requestDetail(_ id: String, _ backend: Backend) throws -> Answer {
      let prefix = settings.pathPrefix ?? "/"
      guard let index = Int(id), index >= 0 else {
        throw AdminError(
          404,
          "There is no journal entry \"\(id)\": entries are numbered 0, 1, 2, … (the \"index\" of an entry in GET \(prefix)requests)."
        )
      }
      let window = backend.journal(since: index, maximum: 1)
      guard let entry = window.entries.first, window.first == index else {
        let kept = backend.droppedJournalEntries
        let range =
          window.appended <= kept
          ? "The journal keeps no entries now."
          : "The journal keeps entries \(kept) to \(window.appended - 1)."
        let why =
          index < window.appended
          ? "the journal's limit dropped it, or the journal was cleared since"
          : "no request has been journaled with that number yet"
        throw AdminError(404, "There is no journal entry \(index): \(why). \(range) GET \(prefix)requests lists them.")
      }
      return Answer(status: 200, body: detail(of: entry, index: index, backend))
    }

    /// One journal entry in full (see ``requestDetail(_:_:)``).
    func detail(of entry: JournalEntry, index: Int, _ backend: Backend) -> JSONValue {
      let redaction = settings.journalRedaction ?? .default
      let status = unmatchedStatus
      // As the journal's HAR has it: the unmatched request with the answer the client got.
      let har =
        entry.harEntry { report in .text(report + "\n", status: status, headers: ["X-Doppel-Unmatched": "1"]) }
      let pending = har == nil
      let redacted = redaction.redact(har ?? HAREntry(request: entry.request, error: URLError(.unknown)))
      var request: [String: JSONValue] = [
        "method": .string(redacted.request.method),
        "url": .string(redacted.request.url),
        "path": .string(URL(string: redacted.request.url)?.path ?? entry.request.path),
        "headers": Self.fields(redacted.request.headers),
      ]
      if let omitted = entry.omittedRequestBody {
        request["body"] = [
          "kind": "omitted", "size": .number(Double(omitted.length)), "sha256": .string(omitted.sha256),
        ]
      } else if let body = redacted.request.postData, let text = body.text, !text.isEmpty {
        request["body"] = Self.body(text: text, encoding: body.encoding, mimeType: body.mimeType)
      }
      var object: [String: JSONValue] = [
        "index": .number(Double(index)),
        "receivedAt": .string(Self.timestamp(entry.receivedAt)),
        "matched": .bool(entry.isMatched),
        "pending": .bool(pending),
        "request": .object(request),
      ]
      if !pending, redacted.response.status != 0 {
        var response: [String: JSONValue] = [
          "status": .number(Double(redacted.response.status)),
          "headers": Self.fields(redacted.response.headers),
          "timing": .string(entry.response?.playbackDescription ?? "at once"),
        ]
        let content = redacted.response.content
        if let omitted = entry.omittedResponseBody {
          response["body"] = [
            "kind": "omitted", "size": .number(Double(omitted.length)), "sha256": .string(omitted.sha256),
          ]
        } else if let text = content.text, !text.isEmpty {
          var body = Self.body(text: text, encoding: content.encoding, mimeType: content.mimeType)
          if content.mimeType.lowercased().hasPrefix("text/event-stream"), case .object(var fields) = body {
            // An event stream as its events: the blocks between blank lines.
            fields["events"] = .array(
              text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
                .filter { !$0.isEmpty }.map(JSONValue.string))
            body = .object(fields)
          }
          response["body"] = body
        }
        object["response"] = .object(response)
      }
      if let stub = entry.stub {
        var described: [String: JSONValue] = [
          "id": .number(Double(stub.registrationNumber)), "location": .string(stub.location.description),
        ]
        if let name = stub.name { described["name"] = .string(name) }
        object["stub"] = .object(described)
      }
      if let error = entry.error, entry.isMatched || entry.unmatchedReport == nil {
        object["error"] = .string(redaction.redact(line: "\(error)"))
      }
      if let report = entry.unmatchedReport { object["nearMiss"] = .string(redaction.redact(line: report)) }
      if entry.response?.status == 101 {
        object["webSocket"] = .array(webSocketFrames(of: entry, index: index, backend, redaction: redaction))
      }
      return .object(object)
    }

    /// The frames of the WebSocket conversation `entry` (an upgrade) began, as the backend keeps
    /// them: the k-th upgrade to a URL in the journal is the k-th connection to it among the events.
    private func webSocketFrames(
      of entry: JournalEntry, index: Int, _ backend: Backend, redaction: Redaction
    ) -> [JSONValue] {
      let url = entry.request.url
      let window = backend.journal(since: 0, maximum: max(0, index - backend.droppedJournalEntries + 1))
      let ordinal = window.entries.filter { $0.request.url == url && $0.response?.status == 101 }.count
      let events = backend.webSocketEvents.filter { $0.url == url }
      var connections: [Int] = []
      for event in events where !connections.contains(event.connection) { connections.append(event.connection) }
      guard ordinal >= 1, ordinal <= connections.count else { return [] }
      let connection = connections[ordinal - 1]
      return events.filter { $0.connection == connection }.map { event in
        let frame: String
        if let message = event.message {
          frame = message.description
        } else if event.isClose {
          frame =
            "close" + (event.closeCode.map { " \($0)" } ?? "")
            + (event.closeReason.isEmpty ? "" : " \(event.closeReason.debugDescription)")
        } else {
          frame = "the server dropped the connection"
        }
        return [
          "connection": .number(Double(event.connection)),
          "from": .string(event.isFromClient ? "client" : "server"),
          "frame": .string(redaction.redact(line: frame)),
        ]
      }
    }

    private static func fields(_ fields: [HARNameValue]) -> JSONValue {
      .array(fields.map { ["name": .string($0.name), "value": .string($0.value)] })
    }

    /// A body as the dashboard shows it: JSON pretty-printed, text as text, anything else as its
    /// size and the first bytes in hexadecimal.
    static func body(text: String, encoding: String?, mimeType: String) -> JSONValue {
      if encoding == "base64" {
        let data = Data(base64Encoded: text) ?? Data()
        if let decoded = String(data: data, encoding: .utf8), !decoded.contains("\u{0}") {
          return body(text: decoded, encoding: nil, mimeType: mimeType)
        }
        let preview = data.prefix(hexPreviewBytes).map { String(format: "%02x", $0) }.joined(separator: " ")
        return [
          "kind": "binary", "size": .number(Double(data.count)), "mimeType": .string(mimeType),
          "hexPreview": .string(preview + (data.count > hexPreviewBytes ? " …" : "")),
        ]
      }
      let size = JSONValue.number(Double(text.utf8.count))
      let first = text.first { !$0.isWhitespace }
      if first == "{" || first == "[" || mimeType.lowercased().contains("json"),
        let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
        let pretty = try? JSONSerialization.data(
          withJSONObject: parsed, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
      {
        return [
          "kind": "json", "size": size, "mimeType": .string(mimeType),
          "text": .string(String(decoding: pretty, as: UTF8.self)),
        ]
      }
      return ["kind": "text", "size": size, "mimeType": .string(mimeType), "text": .string(text)]
    }

    /// `2025-01-31T09:30:12.345Z`.
    static func timestamp(_ date: Date) -> String {
      date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The times the journal's `from` and `to` take (RFC 3339, as the admin API's document says):
    /// `2025-01-31T09:30:00Z`, `2025-01-31t09:30:00.250+01:00`.
    static let timestampPattern =
      #"^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(\.[0-9]{1,9})?([Zz]|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))$"#

    /// A time as the journal's `from` and `to` take it (see ``timestampPattern``), or `nil`. A
    /// day past its month's end counts on into the next month; a leap second is the second before.
    static func parseTimestamp(_ text: String) -> Date? {
      guard text.utf8.count <= 64, let expression = try? NSRegularExpression(pattern: timestampPattern),
        let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
      else { return nil }
      func group(_ number: Int) -> String? {
        Range(match.range(at: number), in: text).map { String(text[$0]) }
      }
      func number(_ index: Int) -> Int { group(index).flatMap { Int($0) } ?? 0 }
      // Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
      let month = number(2)
      let year = number(1) - (month <= 2 ? 1 : 0)
      let era = (year >= 0 ? year : year - 399) / 400
      let yearOfEra = year - era * 400
      let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + number(3) - 1
      let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
      let days = era * 146_097 + dayOfEra - 719_468
      var seconds = Double(days * 86_400 + number(4) * 3_600 + number(5) * 60 + min(number(6), 59))
      if let fraction = group(7) { seconds += Double("0" + fraction) ?? 0 }
      if let sign = group(9) {
        let offset = Double(number(10) * 3_600 + number(11) * 60)
        seconds -= sign == "-" ? -offset : offset
      }
      return Date(timeIntervalSince1970: seconds)
    }
  }
#endif
