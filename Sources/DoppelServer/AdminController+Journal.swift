#if Server
  import Doppel
  import Foundation

  extension AdminController {
    /// The journal's query parameters.
    static let requestFilters = ["method", "path", "header", "since"]

    /// `GET requests?method=POST&path=/users/{id}&header=Accept:application/json&since=12`.
    func requests(_ query: [URLQueryItem], _ backend: Backend) throws -> Answer {
      var filter: Matcher = .any
      var globFilter: String?
      var since = 0
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
          guard value.hasPrefix("/") else {
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
      let next = backend.journalAppended
      let (entries, dropped) = backend.journal(since: since)
      let first = next - entries.count
      // One step budget for the filter's glob across every entry it scans: once it is spent, each
      // further search answers at once.
      let (items, ranOut) = SearchBudget.measure { () -> [JSONValue] in
        var items: [JSONValue] = []
        for (offset, entry) in entries.enumerated() where filter.matches(entry.request) {
          items.append(
            Self.describe(
              entry, index: first + offset, unmatchedStatus: unmatchedStatus, redaction: settings.journalRedaction))
        }
        return items
      }
      if ranOut {
        throw DoppelError.server(
          "query: path: the glob \"\(globFilter ?? "")\" spent the step budget of one request (\(SearchBudget.described)) scanning \(entries.count) journal entries. Narrow the filter: a glob with fewer * (each one multiplies the backtracking), or since=, method= or header= to scan fewer entries."
        )
      }
      return Answer(
        status: 200,
        body: [
          "requests": .array(items), "next": .number(Double(next)), "dropped": .number(Double(dropped)),
          "journalLimit": backend.journalLimit.map { .number(Double($0)) } ?? .null,
        ])
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
        let redacted = redaction.redact(HAREntry(request: request, error: URLError(.unknown))).request
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
      if let error = entry.error {
        object["error"] = .string(redaction.map { $0.redact(line: "\(error)") } ?? "\(error)")
      }
      if let report = entry.unmatchedReport {
        object["nearMiss"] = .string(redaction.map { $0.redact(line: report) } ?? report)
      }
      return .object(object)
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
        guard error.refusal != .unprocessable else { throw AdminError(422, error.message) }
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
