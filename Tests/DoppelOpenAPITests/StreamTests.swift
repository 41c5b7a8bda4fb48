#if OpenAPI
  import Doppel
  import DoppelOpenAPI
  import Foundation
  import Testing

  /// A response the document declares as a stream is served as one when the request asks for it.
  @Suite struct StreamTests {
    static let document = """
      openapi: 3.1.0
      info: {title: Ticks, version: '1'}
      paths:
        /ticks:
          get:
            operationId: ticks
            responses:
              '200':
                description: ok
                content:
                  application/json:
                    schema: {type: array, items: {$ref: '#/components/schemas/Tick'}}
                  text/event-stream:
                    itemSchema: {$ref: '#/components/schemas/Tick'}
                  application/x-ndjson:
                    schema: {type: array, items: {$ref: '#/components/schemas/Tick'}}
      components:
        schemas:
          Tick:
            type: object
            required: [n]
            properties:
              n: {type: integer, minimum: 1, maximum: 9}
      """

    /// The answer to `GET /ticks` with `accept`, advancing the backend's clock past `events`.
    func ticks(accept: String?, events: Int = 0) async throws -> (String, HTTPURLResponse) {
      let clock = ManualClock()
      let backend = Backend(issueReporter: .ignore, clock: clock)
      try backend.addStubs(fromOpenAPI: try Documents.temporary("ticks.yaml", Self.document))
      var request = URLRequest(url: URL(string: "https://ticks.test/ticks")!)
      if let accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
      let answer = Task { try await backend.respond(to: request) }
      // The events come one every 100 ms of the backend's clock.
      for _ in 0..<events {
        await clock.waitForSleepers()
        clock.advance(by: .milliseconds(100))
      }
      let (data, response) = try await answer.value
      return (String(decoding: data, as: UTF8.self), response)
    }

    @Test func anEventStreamIsServedWhenTheRequestPrefersIt() async throws {
      let (body, response) = try await ticks(accept: "application/json;q=0.5, text/event-stream", events: 3)
      #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
      let data = body.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { $0.dropFirst(6) }
      #expect(data.count == 3)
      for item in data {
        guard case .object(let members) = try JSONValue(parsing: Data(item.utf8)), case .number(let n)? = members["n"]
        else {
          Issue.record("not a Tick: \(item)")
          continue
        }
        #expect((1...9).contains(n))
      }
      #expect(body.hasPrefix("id: 1\ndata: "))
    }

    @Test func jsonLinesAndJSONByTheAcceptHeader() async throws {
      let (lines, ndjson) = try await ticks(accept: "application/x-ndjson")
      #expect(ndjson.value(forHTTPHeaderField: "Content-Type") == "application/x-ndjson")
      #expect(lines.split(separator: "\n").count == 3)
      let (plain, json) = try await ticks(accept: nil)
      #expect(json.value(forHTTPHeaderField: "Content-Type") == "application/json")
      #expect(plain.hasPrefix("[{\"n\":"))
    }
  }
#endif
