#if Server
  import Doppel
  import Foundation

  extension AdminController {
    /// What an admin request asks for, told apart before the trust model looks at it: the
    /// dashboard's files need no token, the rest of the admin API does.
    enum Route: Equatable {
      /// The JSON admin API (``AdminController/answer(method:target:body:backend:)``).
      case api
      /// A file of the dashboard: fixed text that holds no data.
      case dashboard(DashboardFile)
      /// `events`: a server-sent event stream that says when something changed (see
      /// `StubHTTPHandler+AdminEvents.swift`).
      case events

      /// Whether the trust model asks this route for the admin token (when there is one).
      var requiresToken: Bool {
        if case .dashboard = self { return false }
        return true
      }
    }

    /// The route of an admin request: `GET <prefix>` from a browser (an `Accept` that names
    /// `text/html`) is the dashboard's page, any other request to the prefix the JSON index;
    /// `dashboard.js`, `dashboard.css` and `dashboard.svg` are the page's script, stylesheet and
    /// icon, `events` the
    /// stream of changes the page listens to.
    func route(method: String, target: String, accept: [String]) -> Route {
      guard let prefix = settings.pathPrefix else { return .api }
      var path = Substring(target)
      if let mark = path.firstIndex(of: "?") { path = path[..<mark] }
      let rest: Substring
      if path == prefix.dropLast() {
        rest = ""
      } else if path.hasPrefix(prefix) {
        rest = path.dropFirst(prefix.count)
      } else {
        return .api
      }
      switch rest {
      case "": return method == "GET" && Self.acceptsHTML(accept) ? .dashboard(.page) : .api
      case "dashboard.js": return .dashboard(.script)
      case "dashboard.css": return .dashboard(.stylesheet)
      case "dashboard.svg": return .dashboard(.icon)
      case "events": return .events
      default: return .api
      }
    }

    /// Whether `Accept` field values name `text/html` (with a quality above zero): what a browser
    /// sends when it navigates, and what no API client sends.
    static func acceptsHTML(_ values: [String]) -> Bool {
      for value in values {
        for range in value.split(separator: ",") {
          let parameters = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
          guard parameters.first == "text/html" else { continue }
          let quality = parameters.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
          if (quality ?? 1) > 0 { return true }
        }
      }
      return false
    }

    /// The header fields every file of the dashboard is sent with: no script but its own, no
    /// framing, no caching, no guessing of types.
    static let dashboardHeaders: [(name: String, value: String)] = [
      ("Content-Security-Policy", "default-src 'self'; connect-src 'self'; frame-ancestors 'none'"),
      ("X-Frame-Options", "DENY"),
      ("X-Content-Type-Options", "nosniff"),
      ("Referrer-Policy", "no-referrer"),
    ]

    /// A file of the dashboard, or a 405 for another method than `GET`.
    func dashboardAnswer(_ file: DashboardFile, method: String) -> Answer {
      guard method == "GET" else { return Self.onlyGET(method) }
      let text: String
      let type: String
      switch file {
      case .page:
        text = DashboardFile.pageText(prefix: settings.pathPrefix ?? "/")
        type = "text/html; charset=utf-8"
      case .script:
        text = DashboardFile.scriptText
        type = "text/javascript; charset=utf-8"
      case .stylesheet:
        text = DashboardFile.stylesheetText
        type = "text/css; charset=utf-8"
      case .icon:
        text = DashboardFile.iconText
        type = "image/svg+xml"
      }
      return Answer(
        status: 200, body: .null, raw: Data(text.utf8), contentType: type, headers: Self.dashboardHeaders)
    }

    /// The 405 for a route that answers `GET` only.
    static func onlyGET(_ method: String) -> Answer {
      Answer(
        status: 405, body: ["error": .string("\(method) is not allowed here; use GET.")], allow: ["GET"])
    }

    /// What the dashboard's event stream reports, as one line of JSON: cheap to make, and different
    /// whenever the journal, the stubs, the scenario or a state changed.
    ///
    /// `requests` is the journal's next entry number (the `since` that asks for what is new),
    /// `changes` the number of admin requests that changed something, `stubRevision` an opaque
    /// text that changes whenever a stub is added or removed (a reload included).
    func changeSummary(_ backend: Backend) -> String {
      let scenario = activeScenario
      let summary: JSONValue = [
        "requests": .number(Double(backend.journalAppended)),
        "dropped": .number(Double(backend.droppedJournalEntries)),
        "stubs": .number(Double(backend.stubs.count)),
        // Opaque, and too large for a JSON number to keep exactly: a string.
        "stubRevision": .string(String(backend.stubRevision)),
        "scenario": scenario.map(JSONValue.string) ?? .null,
        "state": .string(backend.state()),
        "machines": .object(backend.stateMachines.mapValues(JSONValue.string)),
        "changes": .number(Double(changeCount)),
      ]
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      // A JSONValue always encodes; the fallback only keeps the stream well formed.
      return (try? encoder.encode(summary)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
  }
#endif
