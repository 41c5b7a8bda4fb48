import DoppelCore
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// One interaction of a Pact contract: a stub that answered, with one distinct request it matched
/// and the response it gave, as a `Synchronous/HTTP` interaction of the Pact Specification V4.
struct PactInteraction {
  /// Unique within a contract; an interaction of the same description in an existing file is
  /// replaced by this one.
  var description: String
  var request: [String: JSONValue]
  var response: [String: JSONValue]

  /// The interaction as Pact writes it, with its `key`: a digest of everything else.
  var json: JSONValue {
    var object: [String: JSONValue] = [
      "type": "Synchronous/HTTP", "description": .string(description), "pending": false,
      "request": .object(request), "response": .object(response),
    ]
    object["key"] = .string(String(SHA256.hex(Data(JSONValue.object(object).description.utf8)).prefix(16)))
    return .object(object)
  }

  /// What tells two requests to one stub apart: everything the contract says of the request.
  private var requestPrint: String { JSONValue.object(request).description }

  /// The interactions of `journal`: for each stub that answered, in order of first use, one per
  /// distinct request it answered (the first response it gave to that request), secrets redacted
  /// with `redaction` across all of them together. Requests no stub matched, requests that failed
  /// (a fault, an error) and requests whose body the journal kept only as a digest are left out.
  /// Ordered by description.
  static func all(in journal: [JournalEntry], redaction: Redaction) throws -> [PactInteraction] {
    var used: [(stub: StubHandle, entry: HAREntry)] = []
    for entry in journal {
      guard let stub = entry.stub, entry.response != nil, entry.omittedRequestBody == nil,
        entry.omittedResponseBody == nil, var har = entry.harEntry(), har.response.status > 0
      else { continue }
      // The description comes from the stub's matcher, which may spell out a secret the request
      // sent (`.jsonBody(["password": …])`): it is redacted with the entry.
      har.extra[descriptionKey] = .string(stub.name ?? stub.matcher.description)
      used.append((stub, har))
    }
    let redacted = try redaction.redacted(Cassette(entries: used.map(\.entry))).entries
    var groups: [(stub: StubHandle, interactions: [PactInteraction])] = []
    var groupIndex: [ObjectIdentifier: Int] = [:]
    for (use, entry) in zip(used, redacted) {
      let made = PactInteraction(stub: use.stub, entry: entry)
      let id = ObjectIdentifier(use.stub)
      guard let index = groupIndex[id] else {
        groupIndex[id] = groups.count
        groups.append((use.stub, [made]))
        continue
      }
      if !groups[index].interactions.contains(where: { $0.requestPrint == made.requestPrint }) {
        groups[index].interactions.append(made)
      }
    }
    var interactions: [PactInteraction] = []
    var taken: [String: Int] = [:]
    for group in groups {
      for var interaction in group.interactions {
        if group.interactions.count > 1 { interaction.description += " — " + interaction.requestLine }
        let count = taken[interaction.description, default: 0] + 1
        taken[interaction.description] = count
        if count > 1 { interaction.description += " (\(count))" }
        interactions.append(interaction)
      }
    }
    return interactions.sorted { $0.description < $1.description }
  }

  /// `GET /breeds?page=2`.
  private var requestLine: String {
    var line = (request["method"]?.text ?? "") + " " + (request["path"]?.text ?? "")
    if case .object(let query)? = request["query"] {
      let items = query.keys.sorted().flatMap { name in
        (query[name]?.items ?? []).map { "\(name)=\($0.text ?? "")" }
      }
      line += "?" + items.joined(separator: "&")
    }
    return line
  }

  /// Headers a contract never holds: they describe one connection or one encoding of the body,
  /// not the API.
  private static let connectionHeaders: Set<String> = [
    "content-length", "transfer-encoding", "connection", "keep-alive", "date",
  ]

  /// Where an entry carries its interaction's description through redaction.
  private static let descriptionKey = "_doppelPactDescription"

  private init(stub: StubHandle, entry: HAREntry) {
    if case .string(let text)? = entry.extra[Self.descriptionKey] {
      description = text
    } else {
      description = Redaction.marker
    }
    var requestRules = PactRules()
    var responseRules = PactRules()
    let parts = stub.matcher.flattened.compactMap(\.spelling)

    // The request: method, path, query, the headers the stub looked at, the body.
    let components = URLComponents(string: entry.request.url)
    let path = components?.path ?? "/"
    request = ["method": .string(entry.request.method), "path": .string(path.isEmpty ? "/" : path)]
    if !entry.request.queryString.isEmpty {
      var query: [String: [JSONValue]] = [:]
      for item in entry.request.queryString { query[item.name, default: []].append(.string(item.value)) }
      request["query"] = .object(query.mapValues(JSONValue.array))
    }
    var headerNames: [String] = []
    for part in parts {
      switch part {
      case .url(let url):
        let path = StubURL.parse(url).map(\.path)
        if case .success(let path) = path, let regex = PactRegex.template(path) {
          requestRules.addPath(PactRules.regex(regex))
        }
      case .pathGlob(let glob): requestRules.addPath(PactRules.regex(PactRegex.glob(glob)))
      case .pathRegex(let regex): requestRules.addPath(PactRules.regex(regex))
      case .header(let name, let value):
        headerNames.append(name)
        if value == nil { requestRules.add(PactRules.type, category: "header", key: name) }
      case .headerRegex(let name, let regex):
        headerNames.append(name)
        requestRules.add(PactRules.regex(regex), category: "header", key: name)
      default: break
      }
    }
    var body = Self.body(entry.request.postData.flatMap { ($0.text, $0.encoding, $0.mimeType) })
    if body != nil { headerNames.append("Content-Type") }
    var headers: [String: JSONValue] = [:]
    for name in headerNames where headers.keys.allSatisfy({ $0.lowercased() != name.lowercased() }) {
      let values = entry.request.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
      guard !values.isEmpty else { continue }
      headers[name] = .array(values.map(JSONValue.string))
      if values.contains(where: { $0.contains(Redaction.marker) }) {
        requestRules.add(PactRules.type, category: "header", key: name)
      }
    }
    if !headers.isEmpty { request["headers"] = .object(headers) }
    for part in parts {
      guard case .jsonContaining(let subset) = part, case .object(var written)? = body,
        let content = written["content"], case .object = content
      else { continue }
      let projected = PactJSONPath.projection(of: content, onto: subset)
      written["content"] = projected
      body = .object(written)
      for path in PactJSONPath.leaves(of: projected) { requestRules.add(PactRules.type, category: "body", key: path) }
    }
    if let body { request["body"] = body }
    if !requestRules.isEmpty { request["matchingRules"] = requestRules.json }

    // The response: status, headers, body; what a template fills in, or redaction replaced, is
    // matched by type.
    response = ["status": .number(Double(entry.response.status))]
    var responseHeaders: [String: [JSONValue]] = [:]
    var order: [String] = []
    for field in entry.response.headers where !Self.connectionHeaders.contains(field.name.lowercased()) {
      let name = order.first { $0.lowercased() == field.name.lowercased() } ?? field.name
      if responseHeaders[name] == nil { order.append(name) }
      responseHeaders[name, default: []].append(.string(field.value))
      if field.value.contains(Redaction.marker) {
        responseRules.add(PactRules.type, category: "header", key: name)
      }
    }
    let template = Self.template(of: stub)
    for field in template?.headers ?? [:] where field.value.contains("{{") {
      if let name = order.first(where: { $0.lowercased() == field.name.lowercased() }) {
        responseRules.add(PactRules.type, category: "header", key: name)
      }
    }
    if !responseHeaders.isEmpty { response["headers"] = .object(responseHeaders.mapValues(JSONValue.array)) }
    let content = entry.response.content
    if let body = Self.body((content.text, content.encoding, content.mimeType)) {
      response["body"] = body
      if case .object(let written) = body, let json = written["content"], written["encoded"] == .bool(false) {
        var paths = Set(PactJSONPath.strings(containing: Redaction.marker, in: json))
        if let template, case .data(let data) = template.body.source, let text = String(data: data, encoding: .utf8) {
          paths.formUnion(PactTemplateShape.templatedPaths(in: text))
        }
        for path in paths.sorted() { responseRules.add(PactRules.type, category: "body", key: path) }
      }
    }
    if !responseRules.isEmpty { response["matchingRules"] = responseRules.json }
  }

  /// The templated response a stub always answers with, if it does.
  private static func template(of stub: StubHandle) -> Response? {
    guard case .fixed(let response) = stub.responder.kind, response.template != nil else { return nil }
    return response
  }

  /// A body as Pact V4 writes it: JSON as JSON, other text as a string, other bytes in base64;
  /// `nil` for no body.
  private static func body(_ body: (text: String?, encoding: String?, mimeType: String)?) -> JSONValue? {
    guard let body, let text = body.text, !text.isEmpty else { return nil }
    let contentType = body.mimeType.isEmpty ? "application/octet-stream" : body.mimeType
    if body.encoding == "base64" {
      return ["contentType": .string(contentType), "encoded": "base64", "content": .string(text)]
    }
    if contentType.lowercased().contains("json"), let json = try? JSONValue(parsing: Data(text.utf8)) {
      return ["contentType": .string(contentType), "encoded": false, "content": json]
    }
    return ["contentType": .string(contentType), "encoded": false, "content": .string(text)]
  }
}

extension JSONValue {
  /// The string, if this is one.
  fileprivate var text: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The elements, if this is an array.
  fileprivate var items: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }
}
