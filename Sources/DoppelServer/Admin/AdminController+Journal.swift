#if Server
  import Doppel
  import Foundation
  @_spi(DoppelInternals) import DoppelToolkit

  extension AdminController {
    /// The journal's query parameters.
    static let requestFilters = [
      "method", "path", "header", "status", "matched", "text", "from", "to", "since", "limit", "last", "before",
    ]

    /// The most entries one answer of `GET requests` holds, unless `limit` asks for fewer: 1,000.
    static let requestPageLimit = 1_000

    /// About the most bytes of requests (URLs, headers and bodies) one answer of `GET requests`
    /// holds: 8 MiB. The entry that passes it ends the page (an entry holds at most the journal's
    /// per-body limit and a request head), so a page stays near this size whatever the journal
    /// holds, and a client reads the rest with `since` set to the answer's `next`.
    static let requestPageBytes = 8 * 1024 * 1024

    /// The most journal entries one answer of `GET requests` looks at: 100,000. A filter that
    /// matches few of them ends the page there, with `more` and `next` to read on.
    static let requestPageScan = 100_000

    /// The most journal entries one answer of `GET requests` looks at with `text`, which reads each
    /// entry redacted: 10,000.
    static let requestTextScan = 10_000

    /// How many entries are copied out of the journal at a time while a page is read.
    static let requestWindow = 4_096

    /// `GET requests?method=POST&path=/users/{id}&header=Accept:application/json&since=12`, and
    /// `status=4xx`, `matched=false`, `text=…`, `from=` and `to=` (ISO 8601 times).
    ///
    /// With `last=200` (and `before=` an entry's number, to read further back), the newest 200
    /// entries that match, of the newest entries one answer looks at, with `matches`: how many of
    /// those matched. The dashboard reads its list so, and never the rest of a full journal.
    func requests(_ query: [URLQueryItem], _ backend: Backend) throws -> Answer {
      var filter: Matcher = .any
      var statuses: ClosedRange<Int>?
      var matched: Bool?
      var text: String?
      var from: Date?
      var to: Date?
      var globFilter: String?
      var since = 0
      var pageLimit = Self.requestPageLimit
      var last: Int?
      var before: Int?
      for item in query {
        let value = item.value ?? ""
        switch item.name {
        case "method":
          guard !value.isEmpty, value.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }) else {
            throw DoppelError.server(
              "query: method: \"\(value)\" is not an HTTP method. Write one such as GET or POST.")
          }
          filter = filter && .method(HTTPMethod(value.uppercased()))
        case "path":
          // By its first scalar: `"/🏻"` starts with "/" though its first character is "/🏻".
          guard value.unicodeScalars.first == "/" else {
            throw DoppelError.server(
              "query: path: \"\(value)\" is not a path. Write a path (/users/7), a template (/users/{id}) or a glob (/images/**/*.png)."
            )
          }
          let matcher: Matcher =
            value.contains("*") || value.contains("?") ? .path(glob: value) : .path(value)
          if let problem = matcher.problem { throw DoppelError.server("query: path: \(problem.message)") }
          if value.contains("*") || value.contains("?") { globFilter = value }
          filter = filter && matcher
        case "header":
          let parts = value.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
          guard let name = parts.first, !name.isEmpty else {
            throw DoppelError.server(
              "query: header: \"\(value)\" is not a header. Write a name (Authorization) or a name and value (Accept: application/json)."
            )
          }
          filter = filter && (parts.count > 1 ? .header(name, parts[1]) : .header(name))
        case "status":
          let lowered = value.lowercased()
          if lowered.utf8.count == 3, lowered.hasSuffix("xx"), let digit = Int(lowered.prefix(1)),
            (1...5).contains(digit)
          {
            statuses = (digit * 100)...(digit * 100 + 99)
          } else if value.utf8.count == 3, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = Int(value),
            (100...599).contains(number)
          {
            statuses = number...number
          } else {
            throw DoppelError.server(
              "query: status: \"\(value)\" is not a status or a class of them. Write one such as 404, or a class: 1xx, 2xx, 3xx, 4xx or 5xx."
            )
          }
        case "matched":
          guard value == "true" || value == "false" else {
            throw DoppelError.server(
              "query: matched: \"\(value)\" is not true or false. Write matched=true for the requests a stub answered, matched=false for the others."
            )
          }
          matched = value == "true"
        case "text":
          guard !value.isEmpty, value.unicodeScalars.count <= 1_000 else {
            throw DoppelError.server(
              "query: text: write 1 to 1000 characters to look for (in the URL, the headers, the body and the near-miss report, as redacted)."
            )
          }
          text = value
        case "from", "to":
          guard let date = Self.parseTimestamp(value) else {
            throw DoppelError.server(
              "query: \(item.name): \"\(value)\" is not a time. Write it in RFC 3339 (ISO 8601), such as 2025-01-31T09:30:00Z or 2025-01-31T09:30:00.250+01:00."
            )
          }
          if item.name == "from" { from = date } else { to = date }
        case "limit":
          guard let number = Int(value), (1...Self.requestPageLimit).contains(number) else {
            throw DoppelError.server(
              "query: limit: \"\(value)\" is not a page size. Pass 1 to \(Self.requestPageLimit) (entries in one answer; \(Self.requestPageLimit) by default)."
            )
          }
          pageLimit = number
        case "last":
          guard let number = Int(value), (1...Self.requestPageLimit).contains(number) else {
            throw DoppelError.server(
              "query: last: \"\(value)\" is not a page size. Pass 1 to \(Self.requestPageLimit): the newest entries that match, in one answer."
            )
          }
          last = number
        case "before":
          guard let number = Int(value), number >= 0, number <= StubDefinition.largestCount else {
            throw DoppelError.server(
              "query: before: \"\(value)\" is not an entry number. Pass 0 to \(StubDefinition.largestCount): the \"index\" of the oldest entry read so far."
            )
          }
          before = number
        case "since":
          guard let number = Int(value), number >= 0, number <= StubDefinition.largestCount else {
            throw DoppelError.server(
              "query: since: \"\(value)\" is not an entry number. Pass 0 to \(StubDefinition.largestCount): the \"next\" of an earlier answer."
            )
          }
          since = number
        default:
          throw DoppelError.server(
            "query: unknown parameter \"\(item.name)\".\(Self.closest(item.name, in: Self.requestFilters).map { " Did you mean \"\($0)\"?" } ?? "") The parameters are: \(Self.requestFilters.joined(separator: ", "))."
          )
        }
      }
      // One page: at most `pageLimit` entries, about `requestPageBytes`, and `requestPageScan`
      // entries looked at, read from the journal a window at a time, so that neither a long
      // journal nor a filter that matches little costs one request more than that.
      let status = unmatchedStatus
      let oldestKept = backend.droppedJournalEntries
      let scanLimit = text == nil ? Self.requestPageScan : Self.requestTextScan
      func keeps(_ entry: JournalEntry, _ index: Int) -> Bool {
        if let matched, entry.isMatched != matched { return false }
        if let from, entry.receivedAt < from { return false }
        if let to, entry.receivedAt > to { return false }
        if let statuses {
          let answered = entry.response?.status ?? (!entry.isMatched && entry.error != nil ? status : nil)
          guard let answered, statuses.contains(answered) else { return false }
        }
        if let text {
          // In what the dashboard shows: the entry redacted, so that a search cannot find a secret.
          let shown = describeForList(entry, index: index, oldestKept: oldestKept)
          return Self.contains(shown, text)
        }
        return true
      }
      var cursor = since
      var dropped: Int?
      var items: [JournalEntry] = []
      var indices: [Int] = []
      var bytes = 0
      var scanned = 0
      var more = false
      var appended = 0
      var matches = 0
      // With `last`: the newest `scanLimit` entries before `end` are looked at, and the newest
      // `last` that match are kept (the oldest let go as newer ones come).
      var end = Int.max
      if let last {
        appended = backend.journalAppended
        end = min(before ?? appended, appended)
        cursor = max(since, end - scanLimit)
        pageLimit = last
      }
      let start = cursor
      let (_, ranOut) = SearchBudget.measure {
        reading: while cursor < end {
          let window = backend.journal(since: cursor, maximum: Self.requestWindow)
          if dropped == nil { dropped = window.dropped }
          if last == nil { appended = window.appended }
          cursor = window.first
          guard !window.entries.isEmpty else { break }
          for entry in window.entries {
            guard cursor < end else { break reading }
            if last == nil {
              guard items.count < pageLimit, bytes < Self.requestPageBytes, scanned < scanLimit else {
                more = true
                break reading
              }
            }
            scanned += 1
            if filter.matches(entry.request) && keeps(entry, cursor) {
              matches += 1
              items.append(entry)
              indices.append(cursor)
              bytes += entry.journaledBytes
              if last != nil, items.count >= 2 * pageLimit {
                items.removeFirst(items.count - pageLimit)
                indices.removeFirst(indices.count - pageLimit)
              }
            }
            cursor += 1
          }
        }
      }
      if last != nil {
        if items.count > pageLimit {
          items.removeFirst(items.count - pageLimit)
          indices.removeFirst(indices.count - pageLimit)
        }
        // Older entries the journal keeps were not looked at.
        more = start > max(since, oldestKept)
        dropped = max(0, oldestKept - since)
      }
      if ranOut {
        throw DoppelError.server(
          "query: path: the glob \"\(globFilter ?? "")\" spent the step budget of one request (\(SearchBudget.described)) scanning \(scanned) journal entries. Narrow the filter: a glob with fewer * (each one multiplies the backtracking), or since=, method= or header= to scan fewer entries."
        )
      }
      let described = zip(items, indices).map { entry, index in
        describeForList(entry, index: index, oldestKept: oldestKept)
      }
      var body: [String: JSONValue] = [
        "requests": .array(described),
        "next": .number(Double(last != nil ? end : more ? cursor : appended)),
        "dropped": .number(Double(dropped ?? 0)), "more": .bool(more),
        "journalLimit": backend.journalLimit.map { .number(Double($0)) } ?? .null,
      ]
      if last != nil {
        body["matches"] = .number(Double(matches))
        body["first"] = .number(Double(start))
        // The dashboard read its list: describe the rest before its next filter or search.
        if before == nil { describeAhead(backend) }
      }
      return Answer(status: 200, body: .object(body))
    }

    /// One journal entry as JSON.
    ///
    /// - Parameters:
    ///   - unmatchedStatus: the status the server answered a request no stub matched with, which
    ///     the entry gets as its `status`: what the client received.
    ///   - redaction: what to redact of the request (its URL, path, headers and body, and the
    ///     text of the error and the near-miss report), as recording would; `nil` to show it as
    ///     sent.
    static func describe(
      _ entry: JournalEntry, index: Int, unmatchedStatus: Int, redaction: Redaction? = nil
    ) -> JSONValue {
      let request = entry.request
      var object: [String: JSONValue] = [
        "index": .number(Double(index)),
        "method": .string(request.method.rawValue),
        "url": .string(request.url.absoluteString),
        "path": .string(request.path),
        "headers": .array(request.headers.map { ["name": .string($0.name), "value": .string($0.value)] }),
        "matched": .bool(entry.isMatched),
      ]
      if let redaction {
        // The request alone: no time to format, no answer to look at (the list shows the status).
        let alone = HAREntry(startedDateTime: "", request: HARRequest(request), response: HARResponse(status: 0))
        let redacted = redaction.redact(alone).request
        object["url"] = .string(redacted.url)
        object["path"] = .string(URL(string: redacted.url)?.path ?? request.path)
        object["headers"] = .array(redacted.headers.map { ["name": .string($0.name), "value": .string($0.value)] })
        if let body = redacted.postData?.text, !body.isEmpty {
          object["body"] = redacted.postData?.encoding == "base64" ? ["base64": .string(body)] : ["text": .string(body)]
        } else if let omitted = entry.omittedRequestBody {
          object["body"] = ["length": .number(Double(omitted.length)), "sha256": .string(omitted.sha256)]
        }
      } else if let body = request.body, !body.isEmpty {
        if let text = String(data: body, encoding: .utf8) {
          object["body"] = ["text": .string(text)]
        } else {
          object["body"] = ["base64": .string(body.base64EncodedString())]
        }
      } else if let omitted = entry.omittedRequestBody {
        object["body"] = ["length": .number(Double(omitted.length)), "sha256": .string(omitted.sha256)]
      }
      if let stub = entry.stub {
        var described: [String: JSONValue] = [
          "id": .number(Double(stub.registrationNumber)), "location": .string(stub.location.description),
        ]
        if let name = stub.name { described["name"] = .string(name) }
        object["stub"] = .object(described)
      }
      if let response = entry.response {
        object["status"] = .number(Double(response.status))
      } else if !entry.isMatched, entry.error != nil {
        object["status"] = .number(Double(unmatchedStatus))
      }
      // An unmatched request's error is usually its near-miss report: redacted once for both.
      let report = entry.unmatchedReport.map { report in (report, redaction.map { $0.redact(line: report) } ?? report) }
      if let error = entry.error {
        let text = "\(error)"
        object["error"] = .string(
          text == report?.0 ? report?.1 ?? text : redaction.map { $0.redact(line: text) } ?? text)
      }
      object["receivedAt"] = .string(timestamp(entry.receivedAt))
      if let report {
        object["nearMiss"] = .string(report.1)
      }
      return .object(object)
    }

    /// Whether a text of `value` (a key's value, not its name) holds `text`, case-insensitively.
    static func contains(_ value: JSONValue, _ text: String) -> Bool {
      switch value {
      case .string(let string): return string.range(of: text, options: .caseInsensitive) != nil
      case .array(let items): return items.contains { contains($0, text) }
      case .object(let fields): return fields.values.contains { contains($0, text) }
      default: return false
      }
    }

    /// `GET requests.har`: every entry the journal keeps as a HAR 1.2 document, secrets redacted as
    /// recording redacts them; a request no stub matched as the answer the client got (the
    /// unmatched status and the near-miss report).
    func journalHAR(_ backend: Backend) throws -> Answer {
      let status = unmatchedStatus
      let entries = backend.journal.compactMap { entry in
        // As the server sent it (StubHTTPHandler.respond): the report and a line break.
        entry.harEntry { report in .text(report + "\n", status: status, headers: ["X-Doppel-Unmatched": "1"]) }
      }
      let data = try Cassette(entries: entries).encoded(redaction: settings.journalRedaction ?? .default)
      return Answer(status: 200, body: .null, raw: data)
    }

    /// `POST verify` with `{"request": …, "count": 1}`.
    func verify(_ body: Data?, _ backend: Backend) throws -> Answer {
      let read: (matcher: Matcher, expected: ClosedRange<Int>?, impossible: String?)
      do {
        read = try StubDefinition.verification(body ?? Data(), source: "request body")
      } catch {
        guard error.fault != .unusable else { throw AdminError(422, error.message) }
        throw error
      }
      let (matcher, expected, impossible) = read
      let requests = backend.requests
      let count = requests.filter(matcher.matches).count
      var object: [String: JSONValue] = [
        "count": .number(Double(count)), "request": .string(matcher.description),
        "dropped": .number(Double(backend.droppedJournalEntries)),
      ]
      if let impossible {
        object["ok"] = .bool(false)
        object["expected"] = .string("no count")
        object["report"] = .string(impossible)
      } else if let expected {
        let ok = expected.contains(count)
        object["ok"] = .bool(ok)
        object["expected"] = .string(Matcher.describe(expected))
        if !ok {
          object["report"] = .string(
            matcher.verificationReport(
              requests: requests, count: count, expected: expected, dropped: backend.droppedJournalEntries))
        }
      }
      return Answer(status: 200, body: .object(object), changedNothing: true)
    }
  }
#endif
