import Doppel
import Foundation
import TestSupport
import Testing

/// What DoppelRemote sends: matchers and responses as manifest JSON, read back by the manifest
/// reader to the same behaviour (an event stream streams the same events at the same pace), and a
/// clear refusal for what a manifest cannot say.
@Suite struct RemoteWireTests {
  /// `matcher` sent as manifest JSON and read back as a stub server reads it.
  private func roundTrip(_ matcher: Matcher) throws -> Matcher {
    let stub: JSONValue = ["request": try matcher.manifestRequest(), "response": ["status": 204]]
    let definition = try StubDefinition(
      parsing: try JSONEncoder().encode(stub), source: "request body", directory: URL(fileURLWithPath: "/tmp"))
    let backend = Backend(issueReporter: .ignore)
    return backend.register(definition).matcher
  }

  private func request(
    _ method: HTTPMethod = .get, _ url: String, headers: HTTPHeaders = [:], body: String? = nil
  ) -> Request {
    Request(method: method, url: URL(string: url)!, headers: headers, body: body.map { Data($0.utf8) })
  }

  @Test func sentMatchersMatchWhatTheOriginalsMatch() throws {
    let matchers: [Matcher] = [
      .get("https://api.example.com/breeds?page=2"),
      .post("/orders") && .jsonBody(["sku": "A1", "quantity": 2]),
      .get("/users/{id}"),
      .host("cdn.example.com") && .path(glob: "/images/**/*.png"),
      .path(regex: "^/v[0-9]+/me$") && .header("Authorization") && .header("Accept", "application/json"),
      .query(["tag": "a", "tag": "b"]),
      .query(exactly: ["q": "cats"]),
      .url(exactly: "https://api.example.com/search?q=cats"),
      .put("/notes/1") && .body("hello"),
      .patch("/me") && .jsonBody(containing: ["name": "Ada"]),
      .post("/form") && .formBody(["a": "1", "b": "two words"]),
      .any,
    ]
    let requests = [
      request(.get, "https://api.example.com/breeds?page=2&size=10"),
      request(.get, "http://api.example.com/breeds?page=2"),
      request(.post, "https://api.example.com/orders", body: #"{"quantity": 2, "sku": "A1"}"#),
      request(.get, "https://api.example.com/users/7"),
      request(.get, "https://cdn.example.com/images/a/b.png"),
      request(.get, "https://api.example.com/v2/me", headers: ["Authorization": "x", "Accept": "application/json"]),
      request(.get, "https://api.example.com/list?tag=b&tag=a"),
      request(.get, "https://api.example.com/search?q=cats"),
      request(.get, "https://api.example.com/search?q=cats&x=1"),
      request(.put, "https://api.example.com/notes/1", body: "hello"),
      request(.patch, "https://api.example.com/me", body: #"{"name": "Ada", "age": 36}"#),
      request(.post, "https://api.example.com/form", body: "b=two+words&a=1"),
    ]
    for matcher in matchers {
      let sent = try roundTrip(matcher)
      for request in requests {
        #expect(sent.matches(request) == matcher.matches(request), "\(matcher) on \(request)")
      }
    }
  }

  @Test func whatAManifestCannotSayIsRefusedWithTheFix() {
    #expect(
      throws: DoppelError(
        "The matcher custom cannot be sent to a stub server. A manifest request can say: method, url (a URL, a path or a path template), host, pathGlob, pathRegex, query, headers (a value or present), json, jsonContaining, text (a UTF-8 body), form and graphql; closures, .url(regex:), .header(_:regex:), .query(has:), .scheme and .port alone cannot be sent."
      )
    ) {
      try Matcher.custom("custom") { _ in true }.manifestRequest()
    }
    #expect(
      throws: DoppelError(
        #"The matcher (GET /a || GET /b) cannot be sent to a stub server. A manifest request has no "||": send one stub per alternative."#
      )
    ) { try (Matcher.get("/a") || .get("/b")).manifestRequest() }
    #expect(
      throws: DoppelError(
        "The matcher !(has header X) (in GET /a, !(has header X)) cannot be sent to a stub server. A manifest request has no \"!\": match what the request is rather than what it is not."
      )
    ) { try (Matcher.get("/a") && !.header("X")).manifestRequest() }
    #expect(
      throws: DoppelError(
        "A closure responder cannot be sent to a stub server: it runs only in the process that made it. Send a fixed response or a .sequence([…]); for an answer that depends on the request, add a stub per case."
      )
    ) { try Responder.handler { _ in .ok }.manifestResponse() }
    #expect(
      throws: DoppelError(
        "A response body of 2 bytes that is not UTF-8 text cannot be sent to a stub server: a manifest body is text, JSON or a file. Write the bytes to a file and use .file(_:)."
      )
    ) { try Response.data(Data([0xFF, 0xFE])).manifestResponse() }
  }

  /// The keys of `value`, an object.
  private func keys(of value: JSONValue?) -> Set<String> {
    guard case .object(let object)? = value else { return [] }
    return Set(object.keys)
  }

  /// The keys written inside `object`'s nested objects, by the list of keys the reader allows there.
  private func nestedKeys(of object: JSONValue) -> [(written: Set<String>, allowed: [String])] {
    guard case .object(let fields) = object else { return [] }
    var nested: [(Set<String>, [String])] = [
      (keys(of: fields["redirect"]), ManifestKeys.redirect), (keys(of: fields["chunked"]), ManifestKeys.chunked),
      (keys(of: fields["failing"]), ManifestKeys.failing), (keys(of: fields["proxy"]), ManifestKeys.proxy),
      (keys(of: fields["graphql"]), ManifestKeys.graphQL), (keys(of: fields["delay"]), ManifestKeys.randomDelay),
    ]
    if case .object(let delay)? = fields["delay"] {
      nested.append((keys(of: delay["uniform"]), ManifestKeys.uniformDelay))
      nested.append((keys(of: delay["lognormal"]), ManifestKeys.lognormalDelay))
    }
    if case .array(let events)? = fields["events"] { nested += events.map { (keys(of: $0), ManifestKeys.event) } }
    return nested
  }

  /// The writer writes only keys the reader knows, and every key of a stub's `request` and
  /// `response` that a Swift matcher or response can say: the format is described once, by
  /// `ManifestKeys`, which the JSON Schema test checks too.
  @Test func theWriterUsesTheReadersKeysAndEveryKeySwiftCanSay() throws {
    let matchers: [Matcher] = [
      .get("https://api.example.com/breeds?page=2") && .header("Accept", "application/json"),
      .host("cdn.example.com") && .path(glob: "/images/**/*.png"),
      .path(regex: "^/v[0-9]+/me$") && .query(exactly: ["q": "cats"]),
      .get("/list") && .query(["tag": "a"]),
      .post("/orders") && .jsonBody(["sku": "A1"]),
      .patch("/me") && .jsonBody(containing: ["name": "Ada"]),
      .put("/notes/1") && .body("hello"),
      .post("/form") && .formBody(["a": "1"]),
      .post("/graphql") && .graphQL(operation: "Me", variables: ["id": 1]),
    ]
    var written: [JSONValue] = []
    var requestKeys: Set<String> = []
    for matcher in matchers {
      let request = try matcher.manifestRequest()
      requestKeys.formUnion(keys(of: request))
      written.append(request)
    }
    #expect(requestKeys == Set(ManifestKeys.request))

    let events: [ServerSentEvent] = [.data("a", id: "1", event: "tick"), .comment("c")]
    let responses: [Response] = [
      .json(["name": "Ada"] as JSONValue, status: 201).header("Location", "/me").delayed(by: .milliseconds(5)),
      .json(["path": "{{path}}"] as JSONValue).templated(seed: 3),
      .file(URL(fileURLWithPath: "/tmp/breeds.json"), contentType: "application/json"),
      .error(.timedOut),
      .redirect(to: "/new", status: 301).notFollowed(),
      .never,
      .text("abc").throttled(bytesPerSecond: 10).droppingConnection(afterBytes: 2),
      .text("abc").chunked(size: 1, every: .milliseconds(10)),
      .eventStream(events, every: .milliseconds(10), thenDrop: true),
      .fault(.connectionReset),
      .ok.failing(rate: 0.5, with: .status(503)).delayed(by: .uniform(min: .zero, max: .seconds(1))),
    ]
    let responders: [Responder] = [
      .sequence([.status(503), .ok], then: .cycle),
      .proxy(to: URL(string: "https://api.example.com")!, recordingTo: URL(fileURLWithPath: "/tmp/api.har")),
    ]
    var responseKeys: Set<String> = []
    for response in try responses.map({ try $0.manifestResponse() }) + responders.map({ try $0.manifestResponse() }) {
      responseKeys.formUnion(keys(of: response))
      written.append(response)
    }
    // A WebSocket script cannot be sent (see aWebSocketResponseIsNotSentThroughDoppelRemote).
    #expect(responseKeys == Set(ManifestKeys.response).subtracting(["websocket"]))
    // Inside them: only the keys the reader allows there.
    for (keys, allowed) in written.flatMap(nestedKeys(of:)) {
      #expect(keys.isSubset(of: allowed), "\(keys.sorted()) written where the reader allows \(allowed)")
    }
  }

  @Test func responsesAreSentAsTheManifestWritesThem() throws {
    #expect(
      try Response.json(["name": "Ada"] as JSONValue, status: 201).header("Location", "/me").manifestResponse()
        == [
          "status": 201, "headers": ["Location": "/me"], "text": #"{"name":"Ada"}"#, "contentType": "application/json",
        ])
    #expect(try Response.status(404).manifestResponse() == ["status": 404])
    #expect(
      try Response.error(.timedOut).delayed(by: .milliseconds(250)).manifestResponse()
        == ["error": "timedOut", "delay": 0.25])
    #expect(try Response.never.manifestResponse() == ["never": true])
    #expect(
      try Response.redirect(to: "/new", status: 301).notFollowed().manifestResponse()
        == ["redirect": ["to": "/new", "status": 301, "follow": false]])
    #expect(
      try Response.text("abc").chunked(size: 1, every: .milliseconds(10)).droppingConnection(afterBytes: 2)
        .manifestResponse()
        == [
          "status": 200, "text": "abc", "contentType": "text/plain; charset=utf-8",
          "chunked": ["size": 1, "every": 0.01], "dropAfterBytes": 2,
        ])
    #expect(
      try Responder.sequence([.status(503), .status(200)], then: .cycle).manifestResponse()
        == ["sequence": [["status": 503], ["status": 200]], "then": "cycle"])
  }

  /// What a delegate sees of `/live` on `backend`, whose clock is `clock`: each event with the time
  /// it had arrived by, the headers, and how the stream ended.
  private func streamed(_ backend: Backend, clock: ManualClock, events count: Int) async throws -> [String] {
    let delegate = EventDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    let task = session.dataTask(with: URL(string: "https://a.com/live")!)
    task.resume()
    await delegate.waitForResponse()
    var seen: [String] = []
    for arrived in 1...count {
      await clock.waitForSleepers()
      #expect(delegate.events.count == arrived - 1)
      clock.advance(by: .milliseconds(250))
      await delegate.waitForEvents(arrived)
      seen.append("at \(clock.now.offset): \(delegate.events.last ?? "nothing")")
    }
    let error = await delegate.completion()
    let response = try #require(task.response as? HTTPURLResponse)
    seen.append("Content-Type: \(response.value(forHTTPHeaderField: "Content-Type") ?? "none")")
    seen.append("Cache-Control: \(response.value(forHTTPHeaderField: "Cache-Control") ?? "none")")
    seen.append("ended with \(error.map { "URLError \(($0 as? URLError)?.code.rawValue ?? 0)" } ?? "no error")")
    return seen
  }

  @Test(.timeLimit(.minutes(1))) func anEventStreamSentToAStubServerStreamsAsTheOriginalDoes() async throws {
    let response = Response.eventStream(
      [ServerSentEvent(id: "1", data: "a\nb", retry: .milliseconds(1500)), .comment("ping")],
      every: .milliseconds(250), thenDrop: true)
    let json = try response.manifestResponse()
    #expect(
      json
        == [
          "status": 200, "headers": ["Cache-Control": "no-cache"],
          "events": [["id": "1", "data": "a\nb", "retry": 1.5], ["comment": "ping"]], "every": 0.25, "thenDrop": true,
        ])
    // Read back as the stub server reads what DoppelRemote sends.
    let stub: JSONValue = ["request": "/live", "response": json]
    let definition = try StubDefinition(
      parsing: try JSONEncoder().encode(stub), source: "request body", directory: URL(fileURLWithPath: "/tmp"))
    let sentClock = ManualClock()
    let sent = quietBackend(clock: sentClock)
    sent.register(definition)
    let originalClock = ManualClock()
    let original = quietBackend(clock: originalClock)
    original.stub(.get("/live"), response)

    let expected = [
      "at 0.25 seconds: id: 1\nretry: 1500\ndata: a\ndata: b\n\n",
      "at 0.5 seconds: : ping\n\n",
      "Content-Type: text/event-stream",
      "Cache-Control: no-cache",
      "ended with URLError \(URLError.Code.networkConnectionLost.rawValue)",
    ]
    #expect(try await streamed(original, clock: originalClock, events: 2) == expected)
    #expect(try await streamed(sent, clock: sentClock, events: 2) == expected)
  }
}
