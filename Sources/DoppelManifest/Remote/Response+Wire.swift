import DoppelCore
import DoppelRecording
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Response {
  /// The response as a manifest's `response` object, as ``DoppelRemote`` sends it.
  ///
  /// - Throws: ``DoppelError`` for what a manifest cannot say: a body that is not UTF-8 text, an
  ///   error other than a `URLError`, a body that could not be built.
  package func manifestResponse() throws(DoppelError) -> JSONValue {
    let fixed = try fixedManifestResponse()
    guard chance != nil || template != nil, case .object(var object) = fixed else { return fixed }
    if let mark = template {
      let seed = mark.template.seed
      object["template"] = seed == 0 ? true : ["seed": .number(Double(seed))]
      // A JSON body goes as "json", so that values are escaped as they are here.
      if mark.template.escapesJSON, case .string(let text)? = object["text"],
        let json = try? JSONValue(parsing: Data(text.utf8))
      {
        object["text"] = nil
        object["json"] = json
        if case .string(let type)? = object["contentType"], type == "application/json" { object["contentType"] = nil }
      }
    }
    if let chance {
      if let delay = chance.delay {
        switch delay.kind {
        case .uniform(let min, let max):
          object["delay"] = ["uniform": ["min": Self.seconds(min), "max": Self.seconds(max)]]
        case .lognormal(let median, let sigma):
          object["delay"] = ["lognormal": ["median": Self.seconds(median), "sigma": .number(sigma)]]
        }
      }
      if let failure = chance.failure {
        object["failing"] = ["rate": .number(failure.rate), "with": try failure.response.manifestResponse()]
      }
    }
    return .object(object)
  }

  /// The response without its random parts.
  private func fixedManifestResponse() throws(DoppelError) -> JSONValue {
    var object: [String: JSONValue] = [:]
    let timing = timing
    if timing.never { return ["never": true] }
    if let failure {
      if let fault = ConnectionFault(failure) {
        object["fault"] = .string(fault.rawValue)
        if timing.delay > .zero { object["delay"] = Self.seconds(timing.delay) }
        return .object(object)
      }
      guard let code = (failure as? URLError)?.code, let name = URLErrorCodeName.name(of: code) else {
        throw DoppelError.invalidStub(
          "The failure \(failure) cannot be sent to a stub server: a manifest's \"error\" is a URLError code (.error(.timedOut), .error(.notConnectedToInternet), …)."
        )
      }
      object["error"] = .string(name)
      if timing.delay > .zero { object["delay"] = Self.seconds(timing.delay) }
      return .object(object)
    }
    if let problem { throw problem }
    if webSocket != nil {
      throw DoppelError.invalidStub(
        "A WebSocket response cannot be sent to a stub server through DoppelRemote: write the stub in the server's manifest instead (a response with \"websocket\": {\"onConnect\": […], \"on\": […]})."
      )
    }
    let location = headers["Location"]
    if !timing.followRedirects, let location, (300...399).contains(status) {
      var remaining = headers
      remaining.remove("Location")
      object["redirect"] = ["to": .string(location), "status": .number(Double(status)), "follow": false]
      if !remaining.isEmpty { object["headers"] = Self.headers(remaining) }
      if timing.delay > .zero { object["delay"] = Self.seconds(timing.delay) }
      return .object(object)
    }
    object["status"] = .number(Double(status))
    if !headers.isEmpty { object["headers"] = Self.headers(headers) }
    switch body.source {
    case .problem(let problem):
      throw problem
    case .file(let url, _):
      object["file"] = .string(url.standardizedFileURL.path)
    case .data where isEventStream:
      // The events say the body; its content type is the one an event stream has.
      if case .events(let events, let every)? = timing.pacing {
        object["events"] = .array(events.map(Self.event))
        object["every"] = Self.seconds(every)
        if timing.dropAtEnd { object["thenDrop"] = true }
      }
    case .data(let data):
      if !data.isEmpty {
        guard let text = String(data: data, encoding: .utf8) else {
          throw DoppelError.invalidStub(
            "A response body of \(data.count) bytes that is not UTF-8 text cannot be sent to a stub server: a manifest body is text, JSON or a file. Write the bytes to a file and use .file(_:)."
          )
        }
        object["text"] = .string(text)
      }
    }
    if let contentType = body.contentType, !headers.contains("Content-Type"),
      object["text"] != nil || object["file"] != nil
    {
      object["contentType"] = .string(contentType)
    }
    if timing.delay > .zero { object["delay"] = Self.seconds(timing.delay) }
    switch timing.pacing {
    case .throttle(let bytesPerSecond)?: object["throttle"] = .number(Double(bytesPerSecond))
    case .chunks(let size, let every)?:
      object["chunked"] = ["size": .number(Double(size)), "every": Self.seconds(every)]
    case .events?, nil: break
    }
    if let bytes = timing.dropAfterBytes { object["dropAfterBytes"] = .number(Double(bytes)) }
    return .object(object)
  }

  /// One server-sent event as a manifest writes it.
  private static func event(_ event: ServerSentEvent) -> JSONValue {
    var object: [String: JSONValue] = [:]
    if let id = event.id { object["id"] = .string(id) }
    if let name = event.event { object["event"] = .string(name) }
    if let data = event.data { object["data"] = .string(data) }
    if let retry = event.retry { object["retry"] = seconds(retry) }
    if let comment = event.comment { object["comment"] = .string(comment) }
    return .object(object)
  }

  /// A duration as a number of seconds.
  private static func seconds(_ duration: Duration) -> JSONValue {
    let (seconds, attoseconds) = duration.components
    return .number(Double(seconds) + Double(attoseconds) / 1e18)
  }

  /// `{"Set-Cookie": ["a=1", "b=2"], "Cache-Control": "no-store"}`.
  private static func headers(_ headers: HTTPHeaders) -> JSONValue {
    var object: [String: [String]] = [:]
    var names: [String: String] = [:]
    for field in headers {
      let name = names[field.name.lowercased()] ?? field.name
      names[field.name.lowercased()] = name
      object[name, default: []].append(field.value)
    }
    return .object(object.mapValues { $0.count == 1 ? .string($0[0]) : .array($0.map(JSONValue.string)) })
  }
}

extension Responder {
  /// The responder as a manifest's `response` object, as ``DoppelRemote`` sends it.
  ///
  /// - Throws: ``DoppelError`` for a closure responder, which runs only in the process that
  ///   made it, or a response a manifest cannot say.
  package func manifestResponse() throws(DoppelError) -> JSONValue {
    switch kind {
    case .fixed(let response):
      return try response.manifestResponse()
    case .proxy(let proxy):
      var settings: [String: JSONValue] = ["to": .string(proxy.upstream.absoluteString)]
      if let cassette = proxy.recorder?.file { settings["record"] = .string(cassette.standardizedFileURL.path) }
      return ["proxy": .object(settings)]
    case .handler:
      throw DoppelError.invalidStub(
        "A closure responder cannot be sent to a stub server: it runs only in the process that made it. Send a fixed response or a .sequence([…]); for an answer that depends on the request, add a stub per case."
      )
    case .sequence(let responses, let end):
      var items: [JSONValue] = []
      for response in responses { items.append(try response.manifestResponse()) }
      let then: String
      switch end.kind {
      case .repeatLast: then = "repeatLast"
      case .cycle: then = "cycle"
      case .fail: then = "fail"
      }
      return ["sequence": .array(items), "then": .string(then)]
    }
  }
}

extension URLErrorCodeName {
  /// The Swift name of `code`, as a manifest's `"error"` writes it.
  static func name(of code: URLError.Code) -> String? {
    all.first { $0.code == code }?.name
  }
}
