import Doppel
import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct CassetteTimingsTests {
  static func entry(_ url: String, body: String = "ok", time: Double = 0, timings: JSONValue?) throws -> HAREntry {
    var entry = try HAREntry(request: Request(url: URL(string: url)!), response: .text(body))
    entry.time = time
    entry.extra["timings"] = timings
    return entry
  }

  @Test func recordedTimingsDelayTheResponseOnTheBackendsClock() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    let timings: JSONValue = [
      "blocked": -1, "dns": 100, "connect": 200, "ssl": 150, "send": 0, "wait": 1700, "receive": 0,
    ]
    try backend.replay(
      Cassette(entries: [Self.entry("https://api.example.com/slow", body: "late", time: 2000, timings: timings)]),
      replayingTimings: true)
    let done = Flag()
    let session = backend.session
    let load = Task {
      let (data, _) = try await session.data(from: URL(string: "https://api.example.com/slow")!)
      done.set()
      return String(decoding: data, as: UTF8.self)
    }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(1999))
    #expect(!done.isSet)
    // `ssl` is part of `connect`: 100 + 200 + 1700.
    clock.advance(by: .milliseconds(1))
    #expect(try await load.value == "late")
  }

  @Test func theReceiveTimeSpreadsTheBody() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    let body = String(repeating: "x", count: 1000)
    let timings: JSONValue = ["send": 0, "wait": 0, "receive": 500]
    try backend.replay(
      Cassette(entries: [Self.entry("https://api.example.com/big", body: body, timings: timings)]),
      replayingTimings: true)
    let delegate = EventDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    session.dataTask(with: URL(string: "https://api.example.com/big")!).resume()
    // No wait before the head: the first 100 bytes come with it.
    await delegate.waitForEvents(1)
    #expect(delegate.events.map(\.count) == [100])
    #expect(clock.now.offset == .zero)
    // 1000 bytes in 500 ms is 2000 bytes a second: 100 more bytes each 50 ms.
    for arrived in 2...10 {
      await clock.waitForSleepers()
      clock.advance(by: .milliseconds(50))
      await delegate.waitForEvents(arrived)
      #expect(delegate.events.map(\.count) == Array(repeating: 100, count: arrived))
    }
    #expect(await delegate.completion() == nil)
    #expect(delegate.events.joined() == body)
    #expect(clock.now.offset == .milliseconds(450))
  }

  @Test func withoutTimingsTheEntrysTimeIsTheDelay() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    try backend.replay(
      Cassette(entries: [Self.entry("https://api.example.com/x", time: 500, timings: nil)]), replayingTimings: true)
    let done = Flag()
    let session = backend.session
    let load = Task {
      _ = try await session.data(from: URL(string: "https://api.example.com/x")!)
      done.set()
    }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(499))
    #expect(!done.isSet)
    clock.advance(by: .milliseconds(1))
    try await load.value
  }

  @Test func timingsAreIgnoredUnlessAskedFor() async throws {
    let backend = quietBackend()
    let timings: JSONValue = ["send": 0, "wait": 86_400_000, "receive": 0]
    try backend.replay(Cassette(entries: [Self.entry("https://api.example.com/x", timings: timings)]))
    // No clock advance needed: the recorded day of waiting is not replayed.
    #expect(try await backend.send(.get, "https://api.example.com/x").body == "ok")
  }

  @Test func outOfRangeTimingsAreErrorsNamingTheEntry() throws {
    let cassette = Cassette(entries: [
      try Self.entry("https://api.example.com/a", timings: ["send": 0, "wait": 1e300, "receive": 0]),
      try Self.entry("https://api.example.com/b", timings: ["send": "soon", "wait": 0, "receive": 0]),
      try Self.entry("https://api.example.com/c", time: -5, timings: nil),
    ])
    #expect(throws: Never.self) { try quietBackend().replay(cassette) }
    let error = #expect(throws: DoppelError.self) {
      try quietBackend().replay(cassette, replayingTimings: true, name: "slow.har")
    }
    #expect(
      error?.message == """
        slow.har: log.entries[0].timings.wait: 1e+300 milliseconds is out of range. A recorded time is from 0 to 86400000 milliseconds (24 hours), or -1 when the phase did not happen; fix it, or replay without timings.
        slow.har: log.entries[1].timings.send: "soon" is not a number. A recorded time is a number of milliseconds, or -1 when the phase did not happen; fix it, or replay without timings.
        slow.har: log.entries[2].time: -5 milliseconds is out of range. A recorded time is from 0 to 86400000 milliseconds (24 hours), or -1 when the phase did not happen; fix it, or replay without timings.
        """)
  }
}
