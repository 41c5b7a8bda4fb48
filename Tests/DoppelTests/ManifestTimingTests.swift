import Doppel
import Foundation
import TestSupport
import Testing

/// A manifest's timing keys as a user's requests meet them on the backend's clock: `delay` holds
/// the answer back exactly that long, `throttle` and `chunked` pace the body piece by piece,
/// `dropAfterBytes` cuts it, `never` never answers, `events`/`every`/`thenDrop` stream events one
/// per interval and then drop the connection, and `seed`, `fault`, random delays and `failing`
/// give the same requests the same fates every run.
@Suite(.timeLimit(.minutes(1))) struct ManifestTimingTests {
  private static let timings = """
    {"stubs": [
      {"request": "/slow", "response": {"text": "late", "delay": "250ms"}},
      {"request": "/slow-error", "response": {"error": "timedOut", "delay": 1.5}},
      {"request": "/paced", "response": {"text": "abcdef", "throttle": 100}},
      {"request": "/chunks", "response": {"text": "abcdef", "chunked": {"size": 2, "every": "50ms"}}},
      {"request": "/cut", "response": {"text": "abcdef", "dropAfterBytes": 3}},
      {"request": "/never", "response": {"never": true}}
    ]}
    """

  private func loaded(_ json: String) throws -> (Backend, ManualClock) {
    let clock = ManualClock()
    return (try Backend(manifest: manifest(json), issueReporter: .ignore, clock: clock), clock)
  }

  @Test func aDelayWrittenAsADurationHoldsTheAnswerBackThatLong() async throws {
    let (backend, clock) = try loaded(Self.timings)
    let load = Task { try await backend.send(.get, "https://x.com/slow") }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(249))
    // Still waiting: the answer is not due yet.
    #expect(clock.sleeperCount == 1)
    clock.advance(by: .milliseconds(1))
    let (body, response) = try await load.value
    #expect(body == "late")
    #expect(response.statusCode == 200)
    #expect(clock.now.offset == .milliseconds(250))
  }

  @Test func aDelayWrittenInSecondsHoldsAnErrorBackThatLong() async throws {
    let (backend, clock) = try loaded(Self.timings)
    let load = Task { try await backend.respond(to: URLRequest(url: URL(string: "https://x.com/slow-error")!)) }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(1499))
    #expect(clock.sleeperCount == 1)
    clock.advance(by: .milliseconds(1))
    await expectURLError(.timedOut) { _ = try await load.value }
  }

  /// The pieces a delegate receives from `url`, each with the clock's time when it had arrived:
  /// the clock moves by `step` each time the backend waits, until the task completes.
  private func pieces(
    _ backend: Backend, clock: ManualClock, _ url: String, count: Int, step: Duration
  ) async -> (pieces: [String], at: [Duration], error: (any Error)?) {
    let delegate = EventDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    session.dataTask(with: URL(string: url)!).resume()
    await delegate.waitForResponse()
    var times: [Duration] = []
    for arrived in 1...count {
      // The first piece comes with the head; each other one needs its own tick.
      if arrived > 1 {
        await clock.waitForSleepers()
        clock.advance(by: step)
      }
      await delegate.waitForEvents(arrived)
      #expect(delegate.events.count == arrived)
      times.append(clock.now.offset)
    }
    let error = await delegate.completion()
    return (delegate.events, times, error)
  }

  @Test func throttleSendsTheBodyAtItsRateInPiecesOfAOneTwentiethSecond() async throws {
    let (backend, clock) = try loaded(Self.timings)
    // 100 bytes a second: 5 bytes with the head, the rest 50 ms later.
    let (pieces, times, error) = await pieces(
      backend, clock: clock, "https://x.com/paced", count: 2, step: .milliseconds(50))
    #expect(pieces == ["abcde", "f"])
    #expect(times == [.zero, .milliseconds(50)])
    #expect(error == nil)
  }

  @Test func chunkedSendsPiecesOfItsSizeAtItsInterval() async throws {
    let (backend, clock) = try loaded(Self.timings)
    let (pieces, times, error) = await pieces(
      backend, clock: clock, "https://x.com/chunks", count: 3, step: .milliseconds(50))
    #expect(pieces == ["ab", "cd", "ef"])
    #expect(times == [.zero, .milliseconds(50), .milliseconds(100)])
    #expect(error == nil)
  }

  @Test func dropAfterBytesDeliversThatManyBytesThenLosesTheConnection() async throws {
    let (backend, _) = try loaded(Self.timings)
    let delegate = EventDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    session.dataTask(with: URL(string: "https://x.com/cut")!).resume()
    let error = await delegate.completion()
    #expect(delegate.events == ["abc"])
    #expect((error as? URLError)?.code == .networkConnectionLost)
    await expectURLError(.networkConnectionLost) { _ = try await backend.send(.get, "https://x.com/cut") }
  }

  @Test func neverKeepsTheRequestWaitingUntilItIsCancelled() async throws {
    let (backend, clock) = try loaded(Self.timings)
    let done = Flag()
    let session = backend.session
    let load = Task {
      defer { done.set() }
      return try await session.data(from: URL(string: "https://x.com/never")!)
    }
    await clock.waitForSleepers()
    // Just short of the session's 60-second timeout: still no answer, still waiting.
    clock.advance(by: .seconds(59))
    #expect(clock.sleeperCount == 1)
    #expect(!done.isSet)
    load.cancel()
    await expectURLError(.cancelled) { _ = try await load.value }
  }

  // MARK: Event streams

  @Test func aManifestEventStreamArrivesOneEventPerIntervalThenDrops() async throws {
    let (backend, clock) = try loaded(
      """
      {"stubs": [
        {"request": "/live", "response": {
          "events": [
            {"id": "1", "event": "breed", "data": "Abyssinian"},
            {"comment": "keep-alive"},
            {"id": "2", "data": {"name": "Bengal"}, "retry": "2s"}
          ],
          "every": 0.1, "thenDrop": true, "headers": {"X-Stream": "breeds"}}}
      ]}
      """)
    let delegate = EventDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    let task = session.dataTask(with: URL(string: "https://x.com/live")!)
    task.resume()
    await delegate.waitForResponse()
    await clock.waitForSleepers()
    // No event comes with the head: the first waits its interval.
    #expect(delegate.events.isEmpty)
    let expected = [
      "id: 1\nevent: breed\ndata: Abyssinian\n\n",
      ": keep-alive\n\n",
      "id: 2\nretry: 2000\ndata: {\"name\":\"Bengal\"}\n\n",
    ]
    for arrived in 1...expected.count {
      clock.advance(by: .milliseconds(100))
      await delegate.waitForEvents(arrived)
      #expect(delegate.events == Array(expected.prefix(arrived)))
      #expect(clock.now.offset == .milliseconds(100 * arrived))
      if arrived < expected.count { await clock.waitForSleepers() }
    }
    // After the last event the connection is lost, as `thenDrop` says.
    let error = await delegate.completion()
    #expect((error as? URLError)?.code == .networkConnectionLost)
    let response = try #require(task.response as? HTTPURLResponse)
    #expect(response.statusCode == 200)
    #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
    #expect(response.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
    #expect(response.value(forHTTPHeaderField: "X-Stream") == "breeds")
  }

  // MARK: Faults, random delays, failure rates and the seed

  private static let chance = #"""
    {
      "seed": 1,
      "stubs": [
        {"request": "GET https://api.example.com/empty", "response": {"fault": "emptyResponse"}},
        {"request": "GET https://api.example.com/flaky",
         "response": {"text": "ok", "delay": {"uniform": {"min": "100ms", "max": 0.5}},
                      "failing": {"rate": 0.3, "with": {"status": 503}}}},
        {"request": "GET https://api.example.com/tail",
         "response": {"status": 204, "delay": {"lognormal": {"median": "200ms", "sigma": 0.5}}}}
      ]
    }
    """#

  /// The same stubs in Swift, with the same seed.
  private static func chanceInSwift(clock: ManualClock) -> Backend {
    let backend = quietBackend(clock: clock)
    backend.seed = 1
    backend.stub(.get("https://api.example.com/empty"), .fault(.emptyResponse))
    backend.stub(
      .get("https://api.example.com/flaky"),
      Response.text("ok").delayed(by: .uniform(min: .milliseconds(100), max: .milliseconds(500)))
        .failing(rate: 0.3, with: .status(503)))
    backend.stub(
      .get("https://api.example.com/tail"),
      Response.status(204).delayed(by: .lognormal(median: .milliseconds(200), sigma: 0.5)))
    return backend
  }

  /// Waits (without sleeping) until `ready` holds, for at most 30 seconds.
  private func waitUntil(_ what: String, _ ready: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(30)
    while !ready() {
      guard ContinuousClock.now < deadline else {
        Issue.record("waited 30 s for \(what)")
        return
      }
      await Task.yield()
    }
  }

  /// What each of `count` requests to `url` gets, in order: its status, and how long the clock
  /// had to move before it came (`at once` when it came without waiting).
  private func outcomes(_ backend: Backend, clock: ManualClock, _ url: String, count: Int) async throws -> [String] {
    var outcomes: [String] = []
    for _ in 0..<count {
      let done = Flag()
      let request = URLRequest(url: URL(string: url)!)
      let load = Task {
        defer { done.set() }
        return try await backend.respond(to: request)
      }
      await waitUntil("an answer or a wait") { done.isSet || clock.sleeperCount > 0 }
      var waited = "at once"
      if !done.isSet {
        let before = clock.now
        #expect(clock.advanceToNextDeadline())
        waited = "after \(before.duration(to: clock.now))"
      }
      let (_, response) = try await load.value
      outcomes.append("\(response.statusCode) \(waited)")
    }
    return outcomes
  }

  @Test func aManifestsFaultFailsAsTheFaultSays() async throws {
    let (backend, _) = try loaded(Self.chance)
    let code = try #require(FaultAndChanceTests.expectedCodes.first { $0.0 == .emptyResponse }?.1)
    await expectURLError(code) { _ = try await backend.send(.get, "https://api.example.com/empty") }
    do {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://api.example.com/empty")!))
      Issue.record("expected a failure")
    } catch let error as URLError {
      #expect(error.localizedDescription == "Empty reply from server (Response.fault(.emptyResponse)).")
    }
  }

  @Test func aManifestsSeedGivesTheSameDelaysAndFailuresEveryRun() async throws {
    let (backend, clock) = try loaded(Self.chance)
    #expect(backend.seed == 1)
    let flaky = try await outcomes(backend, clock: clock, "https://api.example.com/flaky", count: 20)
    // About 0.3 of them fail, at once; every answer that succeeds waits between 100 and 500 ms.
    #expect(
      flaky == [
        "200 after 0.280967268 seconds", "200 after 0.117852086 seconds", "503 at once",
        "200 after 0.398387161 seconds", "503 at once", "200 after 0.228540923 seconds",
        "200 after 0.349428293 seconds", "503 at once", "200 after 0.344534946 seconds", "503 at once",
        "200 after 0.335082581 seconds", "503 at once", "200 after 0.465726612 seconds",
        "200 after 0.228884719 seconds", "200 after 0.351715208 seconds", "200 after 0.383471414 seconds",
        "503 at once", "200 after 0.376931258 seconds", "200 after 0.484210587 seconds",
        "200 after 0.28703176 seconds",
      ])
    #expect(flaky.filter { $0 == "503 at once" }.count == 6)
    let tail = try await outcomes(backend, clock: clock, "https://api.example.com/tail", count: 5)
    // Around the median of 200 ms, with a long tail.
    #expect(
      tail == [
        "204 after 0.72724439 seconds", "204 after 0.071548219 seconds", "204 after 0.092249495 seconds",
        "204 after 0.227292405 seconds", "204 after 0.582491158 seconds",
      ])

    // Another backend from the same manifest, and one with the same stubs and seed in Swift,
    // give the same requests the same fates.
    let (again, againClock) = try loaded(Self.chance)
    #expect(try await outcomes(again, clock: againClock, "https://api.example.com/flaky", count: 20) == flaky)
    #expect(try await outcomes(again, clock: againClock, "https://api.example.com/tail", count: 5) == tail)
    let swiftClock = ManualClock()
    let swift = Self.chanceInSwift(clock: swiftClock)
    #expect(try await outcomes(swift, clock: swiftClock, "https://api.example.com/flaky", count: 20) == flaky)
    #expect(try await outcomes(swift, clock: swiftClock, "https://api.example.com/tail", count: 5) == tail)
  }
}
