#if Server
  import TestSupport
  import Doppel
  import DoppelServer
  import Foundation
  import Testing

  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif

  /// Server-sent event streams through the stub server: HTTP/1.1 chunked, one chunk per event,
  /// paced on the backend's clock; a dropped stream; a reconnect with `Last-Event-ID`.
  @Suite(.timeLimit(.minutes(1))) struct EventStreamServerTests {
    private let events: [ServerSentEvent] = [
      ServerSentEvent(id: "1", data: "Abyssinian"),
      ServerSentEvent(id: "2", data: "Bengal"),
      ServerSentEvent(id: "3", data: "Chartreux"),
    ]

    /// `text` as one HTTP/1.1 chunk.
    private func chunk(_ text: String) -> String {
      String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
    }

    @Test func eventsArrivePacedAsChunks() async throws {
      let clock = ManualClock()
      let backend = quietBackend(clock: clock)
      backend.stub(.get("/live"), .eventStream(events, every: .milliseconds(100)))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /live HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        await clock.waitForSleepers()
        // What has arrived before the first interval: the head alone. Each read waits as long as a
        // loaded machine needs; only the checks that nothing more came use a short timeout.
        let head = String(decoding: try #require(await connection.readHead()), as: UTF8.self).lowercased()
        #expect(try await nothingMore(on: connection))
        #expect(head.hasPrefix("http/1.1 200 ok\r\n"))
        #expect(head.contains("content-type: text/event-stream\r\n"))
        #expect(head.contains("cache-control: no-cache\r\n"))
        #expect(head.contains("transfer-encoding: chunked\r\n"))
        #expect(!head.contains("content-length"))
        for (index, event) in events.enumerated() {
          clock.advance(by: .milliseconds(100))
          // The last event comes with the end of the body; the connection stays open for the next
          // request.
          let isLast = index == events.count - 1
          let expected = chunk(event.text) + (isLast ? "0\r\n\r\n" : "")
          let bytes = try #require(await connection.read(exactly: expected.utf8.count))
          #expect(String(decoding: bytes, as: UTF8.self) == expected)
          if !isLast {
            // Nothing of the next event before its interval.
            await clock.waitForSleepers()
            #expect(try await nothingMore(on: connection))
          }
        }
      }
    }

    /// Whether nothing arrives on `connection` for 200 ms (and it stays open); reads then wait up
    /// to 10 seconds again.
    private func nothingMore(on connection: RawConnection) async throws -> Bool {
      connection.setReadTimeout(.milliseconds(200))
      defer { connection.setReadTimeout(.seconds(10)) }
      let (bytes, end) = try await connection.readUntilEnd()
      return bytes.isEmpty && end == .timedOut
    }

    @Test func aDroppedStreamClosesWithoutEndingTheBodyAndTheReconnectGetsTheRest() async throws {
      let backend = quietBackend()
      backend.stub(.get("/live"), .eventStream(Array(events.prefix(2)), every: .zero, thenDrop: true))
      backend.stub(
        .get("/live") && .header("Last-Event-ID", "2"), .eventStream(Array(events.dropFirst(2)), every: .zero))
      try await withStubServer(backend) { server in
        let connection = try await RawConnection.connect(port: server.port)
        try await connection.send("GET /live HTTP/1.1\r\nHost: x\r\n\r\n")
        let (bytes, end) = try await connection.readUntilEnd()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(end == .closed)
        #expect(text.hasSuffix("\r\n\r\n" + chunk(events[0].text) + chunk(events[1].text)))

        // URLSession's own HTTP stack reconnects with the last id it saw and gets the rest.
        let (body, response) = try await fetch(server.url("/live"), headers: ["Last-Event-ID": "2"])
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
        #expect(body == events[2].text)
      }
    }
  }
#endif
