import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension ManifestReader {
  /// A stub's `response`: one response, or a `sequence` of them.
  func responder(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> Responder {
    let fields = try object(node, path, known: ManifestKeys.response, what: "a response")
    if let proxy = fields["proxy"] {
      if let other = fields.members.map(\.key).first(where: { $0 != "proxy" }) {
        throw error(
          at: fields.keyOffset(other), path,
          "\"\(other)\" cannot be used with \"proxy\": a proxied response is the upstream's. Remove one.")
      }
      return try self.proxy(proxy, path + "proxy")
    }
    guard let sequence = fields["sequence"] else {
      if fields["then"] != nil {
        throw error(
          at: fields.keyOffset("then"), path,
          "\"then\" says what a sequence does after its last response, but this response has no \"sequence\". Remove \"then\", or add \"sequence\": [ … ]."
        )
      }
      return .response(try response(fields))
    }
    let others = fields.members.map(\.key).filter { $0 != "sequence" && $0 != "then" }
    if let other = others.first {
      throw error(
        at: fields.keyOffset(other), path,
        "\"\(other)\" cannot be used next to \"sequence\": each response of the sequence has its own. Move \"\(other)\" into the sequence's responses."
      )
    }
    let sequencePath = path + "sequence"
    let items = try array(sequence, sequencePath, of: "responses")
    guard !items.isEmpty else {
      throw error(
        sequence, sequencePath,
        "a sequence needs at least one response, such as [{\"status\": 503}, {\"status\": 200}].")
    }
    var responses: [Response] = []
    for (index, item) in items.enumerated() {
      let itemPath = sequencePath + index
      responses.append(
        try response(object(item, itemPath, known: ManifestKeys.sequenceItem, what: "a response of a sequence")))
    }
    var end = SequenceEnd.repeatLast
    if let then = fields["then"] {
      switch try string(then, path + "then", what: "one of repeatLast, cycle, fail") {
      case "repeatLast": end = .repeatLast
      case "cycle": end = .cycle
      case "fail": end = .fail
      case let other:
        throw error(
          then, path + "then",
          "\"\(other)\" is not a sequence end.\(Suggestion.didYouMean(other, in: ManifestKeys.sequenceEnds)) Use one of: \(ManifestKeys.sequenceEnds.joined(separator: ", "))."
        )
      }
    }
    return .sequence(responses, then: end)
  }

  /// One response: a failure (`error`), a response that never comes (`never`), a redirect, or a
  /// status with headers and a body; then its timing.
  func response(_ fields: Fields) throws(ManifestProblem) -> Response {
    let path = fields.path
    try requireAtMostOne(
      ManifestKeys.responseBody, in: fields, "a response has one body; keep one of json, text, file.")
    try requireAtMostOne(["throttle", "chunked"], in: fields, "both pace the body; keep one.")
    try checkEventStreamKeys(fields)
    if fields["never"] != nil {
      try requireAlone("never", in: fields, allowing: [], "a response that never comes has nothing else.")
      guard try bool(fields["never"]!, path + "never") else {
        throw error(fields["never"]!, path + "never", "\"never\": false has no effect. Remove it.")
      }
      return .never
    }
    var response: Response
    if let fault = fields["fault"] {
      try requireAlone("fault", in: fields, allowing: ["delay", "failing"], "a fault has no HTTP response.")
      let name = try string(fault, path + "fault", what: "a fault name")
      guard let value = Fault(named: name) else {
        throw error(
          fault, path + "fault",
          "\"\(name)\" is not a fault.\(Suggestion.didYouMean(name, in: ManifestKeys.faults)) Use one of: \(ManifestKeys.faults.joined(separator: ", "))."
        )
      }
      response = .fault(value)
    } else if let error = fields["error"] {
      try requireAlone("error", in: fields, allowing: ["delay", "failing"], "a failed request has no HTTP response.")
      response = .error(try urlError(error, path + "error"))
    } else if let script = fields["websocket"] {
      try requireAlone(
        "websocket", in: fields, allowing: ["headers"],
        "a WebSocket endpoint answers with its script, not with an HTTP status, body or timing.")
      var upgradeHeaders: HTTPHeaders = [:]
      if let node = fields["headers"] { upgradeHeaders = try headers(node, path + "headers") }
      response = try webSocket(script, path + "websocket", headers: upgradeHeaders)
    } else if let redirect = fields["redirect"] {
      try requireAlone(
        "redirect", in: fields, allowing: ["headers", "delay"],
        "a redirect has its own status and no body; put the status inside \"redirect\".")
      var redirectHeaders: HTTPHeaders = [:]
      if let node = fields["headers"] { redirectHeaders = try headers(node, path + "headers") }
      response = try self.redirect(redirect, path + "redirect", headers: redirectHeaders)
    } else {
      response = try httpResponse(fields)
    }
    if let delay = fields["delay"] {
      if case .object = delay.value {
        response = response.delayed(by: try randomDelay(delay, path + "delay"))
      } else {
        response = response.delayed(by: try duration(delay, path + "delay"))
      }
    }
    if let throttle = fields["throttle"] {
      response = response.throttled(
        bytesPerSecond: try count(throttle, path + "throttle", from: 1, what: "bytes per second"))
    }
    if let chunked = fields["chunked"] {
      let chunkPath = path + "chunked"
      let (size, every) = try bothFields(
        chunked, chunkPath, keys: ManifestKeys.chunked, what: "chunking ({\"size\": 512, \"every\": \"50ms\"})",
        missing:
          "chunking needs both \"size\" (bytes) and \"every\" (a duration), for example {\"size\": 512, \"every\": \"50ms\"}."
      )
      response = response.chunked(
        size: try count(size, chunkPath + "size", from: 1, what: "a chunk size in bytes"),
        every: try duration(every, chunkPath + "every"))
    }
    if let drop = fields["dropAfterBytes"] {
      response = response.droppingConnection(
        afterBytes: try count(drop, path + "dropAfterBytes", from: 0, what: "a number of bytes"))
    }
    if let failing = fields["failing"] {
      let failingPath = path + "failing"
      let (rate, with) = try bothFields(
        failing, failingPath, keys: ManifestKeys.failing,
        what: "a failure rate ({\"rate\": 0.2, \"with\": {\"status\": 503}})",
        missing:
          "a failure rate needs both \"rate\" (the share of requests that fail, from 0 to 1) and \"with\" (the response they get), for example {\"rate\": 0.2, \"with\": {\"status\": 503}}."
      )
      let failure = try self.response(
        object(with, failingPath + "with", known: ManifestKeys.failingResponse, what: "the response of failed requests")
      )
      response = response.failing(
        rate: try number(rate, failingPath + "rate", in: 0...1, what: "a share of requests from 0 to 1, such as 0.2"),
        with: failure)
    }
    return response
  }

  /// A random delay: `{"uniform": {"min": "50ms", "max": "400ms"}}` or
  /// `{"lognormal": {"median": "120ms", "sigma": 0.6}}`.
  private func randomDelay(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> RandomDelay {
    let example =
      "{\"uniform\": {\"min\": \"50ms\", \"max\": \"400ms\"}} or {\"lognormal\": {\"median\": \"120ms\", \"sigma\": 0.6}}"
    let fields = try object(node, path, known: ManifestKeys.randomDelay, what: "a random delay (\(example))")
    try requireAtMostOne(ManifestKeys.randomDelay, in: fields, "a delay has one distribution; keep one.")
    if let uniform = fields["uniform"] {
      let uniformPath = path + "uniform"
      let (min, max) = try bothFields(
        uniform, uniformPath, keys: ManifestKeys.uniformDelay, what: "bounds ({\"min\": \"50ms\", \"max\": \"400ms\"})",
        missing: "a uniform delay needs both \"min\" and \"max\", for example {\"min\": \"50ms\", \"max\": \"400ms\"}.")
      let low = try duration(min, uniformPath + "min")
      let high = try duration(max, uniformPath + "max")
      guard low <= high else {
        // Bounds written the other way round still name one range: it is served, with a warning.
        log.warn(
          error(
            max, uniformPath + "max",
            "warning: \"max\" is shorter than \"min\"; the delay is drawn between them as if they were swapped. Swap them."
          ))
        return .uniform(min: high, max: low)
      }
      return .uniform(min: low, max: high)
    }
    if let lognormal = fields["lognormal"] {
      let lognormalPath = path + "lognormal"
      let (median, sigma) = try bothFields(
        lognormal, lognormalPath, keys: ManifestKeys.lognormalDelay,
        what: "a lognormal delay ({\"median\": \"120ms\", \"sigma\": 0.6})",
        missing:
          "a lognormal delay needs both \"median\" (a duration) and \"sigma\" (the spread, such as 0.6), for example {\"median\": \"120ms\", \"sigma\": 0.6}."
      )
      return .lognormal(
        median: try duration(median, lognormalPath + "median"),
        sigma: try number(sigma, lognormalPath + "sigma", in: 0...10, what: "a spread from 0 to 10, such as 0.6"))
    }
    throw error(node, path, "a random delay names its distribution: \(example).")
  }

  /// `"proxy": "https://api.example.com"`, or `{"to": "https://api.example.com", "record": "api.har"}`
  /// (the cassette relative to the manifest's directory).
  private func proxy(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> Responder {
    let example =
      "\"https://api.example.com\", or {\"to\": \"https://api.example.com\", \"record\": \"cassettes/api.har\"}"
    var toNode = node
    var toPath = path
    var cassette: URL?
    if case .object = node.value {
      let fields = try object(node, path, known: ManifestKeys.proxy, what: "a proxy (\(example))")
      guard let to = fields["to"] else {
        throw error(node, path, "a proxy needs \"to\": the upstream server's URL, as in \(example).")
      }
      toNode = to
      toPath = path + "to"
      if let record = fields["record"] {
        let relative = try nonEmptyString(
          record, path + "record", what: "a cassette file path relative to the manifest")
        let url = try containedFile(relative, record, path + "record", instead: "remove \"record\"")
        if reach != nil && url.pathExtension.lowercased() != "har" {
          throw beyondReach(
            record, path + "record",
            "\"\(relative)\" is not a .har file; a stub added through the admin API records only into a HAR cassette (a path ending in .har) inside the server's folder for its files."
          )
        }
        cassette = url
      }
    }
    let text = try nonEmptyString(toNode, toPath, what: "the upstream server's URL, as in \(example)")
    guard let upstream = URL(string: text) else {
      throw error(toNode, toPath, "\"\(text)\" is not a URL. Write the upstream as \(example).")
    }
    let responder = Responder.proxy(to: upstream, recordingTo: cassette)
    if let problem = responder.problem { throw error(toNode, toPath, problem.message) }
    if let allowed = reach?.proxyHosts, let host = upstream.host?.lowercased(),
      !allowed.contains(where: { $0.lowercased() == host })
    {
      let hosts = allowed.isEmpty ? "none" : allowed.joined(separator: ", ")
      throw beyondReach(
        toNode, toPath,
        "a stub added through the admin API may proxy only to the hosts the server allows (\(hosts)), and \(host) is not one. Start the server with --admin-proxy \(host) (StubServer.AdminAPI.proxyHosts) to allow it."
      )
    }
    return responder
  }

  /// An error unless `key` stands only with the keys in `allowing`.
  private func requireAlone(_ key: String, in fields: Fields, allowing: [String], _ reason: String)
    throws(ManifestProblem)
  {
    guard let other = fields.members.map(\.key).first(where: { $0 != key && !allowing.contains($0) }) else { return }
    throw error(
      at: fields.keyOffset(other), fields.path, "\"\(other)\" cannot be used with \"\(key)\": \(reason) Remove one.")
  }

  private func httpResponse(_ fields: Fields) throws(ManifestProblem) -> Response {
    let path = fields.path
    var status = 200
    if let node = fields["status"] {
      status = try integer(node, path + "status", in: 100...599, what: "an HTTP status from 100 to 599")
    }
    var headers: HTTPHeaders = [:]
    if let node = fields["headers"] { headers = try self.headers(node, path + "headers") }
    var contentType: String?
    if let node = fields["contentType"] {
      contentType = try nonEmptyString(node, path + "contentType", what: "a media type such as \"application/json\"")
    }
    if let events = fields["events"] {
      var every = Duration.zero
      if let node = fields["every"] { every = try duration(node, path + "every") }
      var thenDrop = false
      if let node = fields["thenDrop"] { thenDrop = try bool(node, path + "thenDrop") }
      var response = Response.eventStream(
        try self.events(events, path + "events"), every: every, status: status, headers: headers, thenDrop: thenDrop)
      if let contentType { response.headers.replace("Content-Type", with: contentType) }
      return response
    }
    if let json = fields["json"] {
      return .text(
        json.compactText(in: bytes), status: status, headers: headers, contentType: contentType ?? "application/json")
    }
    if let text = fields["text"] {
      return .text(
        try string(text, path + "text"), status: status, headers: headers,
        contentType: contentType ?? "text/plain; charset=utf-8")
    }
    if let file = fields["file"] {
      return .file(try fixtureFile(file, path + "file"), status: status, headers: headers, contentType: contentType)
    }
    var response = Response.status(status, headers: headers)
    if let contentType { response.headers.replace("Content-Type", with: contentType) }
    return response
  }

  /// The keys of a server-sent event stream stand with the keys of an HTTP response that fit it.
  private func checkEventStreamKeys(_ fields: Fields) throws(ManifestProblem) {
    guard fields["events"] != nil else {
      for key in ["every", "thenDrop"] where fields[key] != nil {
        throw error(
          at: fields.keyOffset(key), fields.path,
          "\"\(key)\" belongs to an event stream, but this response has no \"events\". Add \"events\": [{\"data\": \"…\"}], or remove \"\(key)\"."
        )
      }
      return
    }
    for key in ManifestKeys.responseBody + ["throttle", "chunked", "template"] where fields[key] != nil {
      let reason =
        ManifestKeys.responseBody.contains(key)
        ? "the events are the body."
        : key == "template" ? "an event stream is sent as written." : "\"every\" paces the events."
      throw error(
        at: fields.keyOffset(key), fields.path, "\"\(key)\" cannot be used with \"events\": \(reason) Remove one.")
    }
  }

  /// A response's `events`: `[{"id": "1", "event": "breed", "data": "Abyssinian"}, {"comment": "ping"}]`.
  private func events(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> [ServerSentEvent] {
    var events: [ServerSentEvent] = []
    for (index, item) in try array(node, path, of: "server-sent events").enumerated() {
      let itemPath = path + index
      let fields = try object(
        item, itemPath, known: ManifestKeys.event, what: "a server-sent event ({\"id\": \"1\", \"data\": \"…\"})")
      guard !fields.members.isEmpty else {
        throw error(
          item, itemPath,
          "an event needs at least one of \(ManifestKeys.event.joined(separator: ", ")), for example {\"data\": \"hello\"}."
        )
      }
      var event = ServerSentEvent()
      for key in ["id", "event"] {
        guard let value = fields[key] else { continue }
        let text = try string(value, fields.path(key))
        guard !text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
          throw error(value, fields.path(key), "an event's \(key) is one line; remove the line break.")
        }
        if key == "id" { event.id = text } else { event.event = text }
      }
      if let data = fields["data"] {
        // A string is sent as it is; any other JSON as its compact text.
        if case .string(let text) = data.value { event.data = text } else { event.data = data.compactText(in: bytes) }
      }
      if let retry = fields["retry"] { event.retry = try duration(retry, fields.path("retry")) }
      if let comment = fields["comment"] { event.comment = try string(comment, fields.path("comment")) }
      events.append(event)
    }
    return events
  }

  /// `{"Cache-Control": "no-store", "Set-Cookie": ["a=1", "b=2"]}`, in the order written.
  ///
  /// A stub read from the admin API may set no `Access-Control-*` field: a web page could use one
  /// to read answers across origins. The user chooses who may (`doppel serve --cors`).
  func headers(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> HTTPHeaders {
    let pairs = try stringPairs(node, path, what: "header fields", allowArrays: true)
    if reach != nil, let name = pairs.first(where: { $0.0.lowercased().hasPrefix("access-control-") })?.0 {
      throw error(
        node, path + name,
        "a stub added through the admin API cannot set \(name): a web page could use it to read the server's answers from another origin. Start the server with --cors ORIGIN (StubServer.Configuration.corsOrigins) to let a browser app at ORIGIN read the stubs, or add the header in a manifest."
      )
    }
    return HTTPHeaders(pairs)
  }

  /// A fixture file's URL, relative to the manifest's directory; it must exist now.
  private func fixtureFile(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> URL {
    let relative = try nonEmptyString(node, path, what: "a file path relative to the manifest")
    if let found = fixtureFiles.found[relative] { return found }
    let url = try containedFile(relative, node, path, instead: "send the body as \"json\" or \"text\"")
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw error(
        node, path,
        "the fixture file \"\(relative)\" does not exist (looked for \(url.standardizedFileURL.path)). Create it, or fix the path; it is relative to the manifest's directory \(directory.path)."
      )
    }
    guard !isDirectory.boolValue else {
      throw error(node, path, "\"\(relative)\" is a directory, not a fixture file. Name a file inside it.")
    }
    let found = url.standardizedFileURL
    fixtureFiles.found[relative] = found
    return found
  }

  private func urlError(_ node: PositionedJSON, _ path: ManifestKeyPath) throws(ManifestProblem) -> URLError {
    switch node.value {
    case .string(let name):
      if let code = URLErrorCodeName.code(named: name) { return URLError(code) }
      throw error(
        node, path,
        "\"\(name)\" is not a URLError code name.\(Suggestion.didYouMean(name, in: URLErrorCodeName.names)) Use one of: \(URLErrorCodeName.names.joined(separator: ", "))."
      )
    default:
      throw error(node, path, "expected a URLError code name such as \"notConnectedToInternet\", found \(node.kind).")
    }
  }

  private func redirect(_ node: PositionedJSON, _ path: ManifestKeyPath, headers: HTTPHeaders) throws(ManifestProblem)
    -> Response
  {
    let fields = try object(
      node, path, known: ManifestKeys.redirect, what: "a redirect ({\"to\": \"/new\", \"status\": 302})")
    guard let to = fields["to"] else {
      throw error(node, path, "a redirect needs \"to\": the URL or path to go to, for example {\"to\": \"/new\"}.")
    }
    let location = try nonEmptyString(to, path + "to", what: "a URL or path")
    var status = 302
    if let node = fields["status"] {
      status = try integer(node, path + "status", in: 300...399, what: "a redirect status from 300 to 399")
    }
    var response = Response.redirect(to: location, status: status, headers: headers)
    if let follow = fields["follow"], try !bool(follow, path + "follow") { response = response.notFollowed() }
    return response
  }
}
