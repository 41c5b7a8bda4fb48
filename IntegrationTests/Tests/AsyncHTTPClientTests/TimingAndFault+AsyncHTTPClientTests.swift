import AsyncHTTPClient
import Doppel
import DoppelServer
import Foundation
import NIOCore
import TestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Pacing, faults and deadlines as AsyncHTTPClient sees them through the stub server.
@Suite(.timeLimit(.minutes(1))) struct AsyncHTTPClientTimingTests {
  @Test func chunksArriveOneByOneAsTheClockAdvances() async throws {
    let clock = ManualClock()
    let backend = quietBackend(clock: clock)
    backend.stub(.get("/stream"), Response.text("aabbcc").chunked(size: 2, every: .seconds(1)))
    try await withStubServer(backend) { server in
      let response = try await HTTPClient.shared.execute(
        HTTPClientRequest(url: server.url("/stream").absoluteString), timeout: .seconds(10))
      #expect(response.headers["Content-Length"] == ["6"])
      var pieces = response.body.makeAsyncIterator()
      var received = ""
      // The first piece comes with the head.
      while received.count < 2, let piece = try await pieces.next() { received += String(buffer: piece) }
      #expect(received == "aa")
      for expected in ["aabb", "aabbcc"] {
        await clock.waitForSleepers()
        clock.advance(by: .seconds(1))
        while received.count < expected.count, let piece = try await pieces.next() { received += String(buffer: piece) }
        #expect(received == expected)
      }
      #expect(try await pieces.next() == nil)
    }
  }

  @Test func droppingTheConnectionTruncatesTheBodyAgainstItsLength() async throws {
    let backend = quietBackend()
    backend.stub(.get("/cut"), Response.text(String(repeating: "x", count: 100)).droppingConnection(afterBytes: 10))
    try await withStubServer(backend) { server in
      let connection = try await RawConnection.connect(port: server.port)
      try await connection.send("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n")
      let (bytes, end) = try await connection.readUntilEnd()
      let text = String(decoding: bytes, as: UTF8.self)
      #expect(end == .closed)
      #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
      #expect(text.lowercased().contains("content-length: 100\r\n"))
      #expect(text.hasSuffix("\r\n\r\n" + String(repeating: "x", count: 10)))

      await #expect(throws: (any Error).self) {
        _ = try await fetch(server.url("/cut"))
      }
      await #expect(throws: (any Error).self) {
        let response = try await HTTPClient.shared.execute(
          HTTPClientRequest(url: server.url("/cut").absoluteString), timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
      }
    }
  }

  @Test func aResponseThatNeverComesLeavesTheClientToTimeOut() async throws {
    let backend = quietBackend()
    backend.stub(.get("/never"), .never)
    backend.stub(.get("/timeout"), .error(.timedOut))
    try await withStubServer(backend) { server in
      for path in ["/never", "/timeout"] {
        await #expect(throws: HTTPClientError.deadlineExceeded) {
          _ = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: server.url(path).absoluteString), deadline: .now() + .milliseconds(300))
        }
      }
    }
  }

}
