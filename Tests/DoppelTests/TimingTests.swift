import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct TimingTests {
  @Test func aDelayedResponseWaitsForTheClock() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/breeds"), .text("late").delayed(by: .seconds(2)))
    let done = Flag()
    let session = backend.session
    let load = Task {
      let (data, _) = try await session.data(from: URL(string: "https://a.com/breeds")!)
      done.set()
      return String(decoding: data, as: UTF8.self)
    }
    await clock.waitForSleepers()
    #expect(!done.isSet)
    clock.advance(by: .seconds(1))
    #expect(!done.isSet)
    clock.advance(by: .seconds(1))
    #expect(try await load.value == "late")
  }

  @Test func aDelayedErrorFailsAtTheRightTime() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/x"), Response.error(.notConnectedToInternet).delayed(by: .milliseconds(500)))
    let session = backend.session
    let load = Task { try await session.data(from: URL(string: "https://a.com/x")!) }
    await clock.waitForSleepers()
    clock.advance(by: .milliseconds(500))
    await expectURLError(.notConnectedToInternet) { _ = try await load.value }
  }

  @Test func cancellingDuringTheDelayGivesCancelled() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/x"), .text("never seen").delayed(by: .seconds(30)))
    let session = backend.session
    let load = Task { try await session.data(from: URL(string: "https://a.com/x")!) }
    await clock.waitForSleepers()
    load.cancel()
    do {
      _ = try await load.value
      Issue.record("expected cancellation")
    } catch let error as URLError {
      #expect(error.code == .cancelled)
    }
  }

  @Test func aDelegateReceivesPacedChunksAndCompletionHandlersTheWholeBody() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/stream"), .text("aaaabbbbcc").chunked(size: 4, every: .seconds(1)))

    // Delegate: three pieces, paced.
    let delegate = ChunkDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    let finished = Task { await delegate.completion() }
    session.dataTask(with: URL(string: "https://a.com/stream")!).resume()
    await clock.waitForSleepers()
    #expect(delegate.chunks == ["aaaa"])
    clock.advance(by: .seconds(1))
    await clock.waitForSleepers()
    #expect(delegate.chunks == ["aaaa", "bbbb"])
    clock.advance(by: .seconds(1))
    _ = await finished.value
    #expect(delegate.chunks == ["aaaa", "bbbb", "cc"])

    // async caller: the whole body after the pacing.
    let whole = Task { try await backend.session.data(from: URL(string: "https://a.com/stream")!) }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    let (data, _) = try await whole.value
    #expect(String(decoding: data, as: UTF8.self) == "aaaabbbbcc")
  }

  @Test func throttlingTakesBodySizeOverRate() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/big"), .data(Data(count: 2_000)).throttled(bytesPerSecond: 1_000))
    let load = Task { try await backend.session.data(from: URL(string: "https://a.com/big")!) }
    var advanced = Duration.zero
    while !Task.isCancelled {
      await clock.waitForSleepers()
      clock.advance(by: .milliseconds(50))
      advanced += .milliseconds(50)
      if advanced >= .milliseconds(1_950) { break }
    }
    let (data, _) = try await load.value
    #expect(data.count == 2_000)
    #expect(advanced == .milliseconds(1_950))  // 40 pieces of 50 bytes, the first with the head
  }

  @Test func aDroppedConnectionDeliversPartOfTheBodyThenFails() async throws {
    let backend = quietBackend()
    backend.stub(.get("/file"), .text("0123456789").droppingConnection(afterBytes: 4))
    let delegate = ChunkDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    session.dataTask(with: URL(string: "https://a.com/file")!).resume()
    let error = await delegate.completion()
    #expect(delegate.chunks == ["0123"])
    #expect((error as? URLError)?.code == .networkConnectionLost)
    await expectURLError(.networkConnectionLost) {
      _ = try await backend.session.data(from: URL(string: "https://a.com/file")!)
    }
  }

  @Test func aResponseThatNeverComesTimesOutOnTheSessionsTimeout() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/hang"), .never)
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 5
    let session = backend.makeSession(configuration: configuration)
    let load = Task { try await session.data(from: URL(string: "https://a.com/hang")!) }
    await clock.waitForSleepers()
    #expect(clock.sleeperCount == 1)
    clock.advance(by: .seconds(4))
    #expect(clock.sleeperCount == 1)
    clock.advance(by: .seconds(1))
    do {
      _ = try await load.value
      Issue.record("expected a timeout")
    } catch let error as URLError {
      #expect(error.code == .timedOut)
      #expect(error.failingURL?.absoluteString == "https://a.com/hang")
    }
  }

  @Test func theRequestsOwnTimeoutWinsOverALongDelay() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/slow"), .text("slow").delayed(by: .seconds(10)))
    var request = URLRequest(url: URL(string: "https://a.com/slow")!)
    request.timeoutInterval = 3
    let short = request
    let load = Task { try await backend.session.data(for: short) }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(3))
    await expectURLError(.timedOut) { _ = try await load.value }
    // A delay under the timeout is fine.
    request.timeoutInterval = 20
    let long = request
    let ok = Task { try await backend.session.data(for: long) }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(10))
    #expect(String(decoding: try await ok.value.0, as: UTF8.self) == "slow")
  }

  /// A timeout of infinity (or NaN, or beyond what `Duration` holds) means no limit, as the user
  /// meant it, instead of trapping in `Duration.seconds(_:)`: through the session, with the
  /// request's own timeout and with the session's, and through the in-memory door.
  @Test(arguments: [TimeInterval.infinity, .nan, 1e300, -.infinity])
  func aTimeoutBeyondWhatADurationHoldsDoesNotCrash(_ timeout: TimeInterval) async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/slow"), .text("slow").delayed(by: .seconds(10)))
    var request = URLRequest(url: URL(string: "https://a.com/slow")!)
    request.timeoutInterval = timeout
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.timeoutIntervalForResource = timeout
    let session = backend.makeSession(configuration: configuration)
    let sent = request
    let throughTheRequest = Task { try await backend.session.data(for: sent) }
    let throughTheSession = Task { try await session.data(from: URL(string: "https://a.com/slow")!) }
    let inMemory = Task { try await backend.respond(to: sent) }
    if timeout == -.infinity {
      // A negative timeout ends the exchange at once, before the delay: as any negative one does.
      await expectURLError(.timedOut) { _ = try await throughTheRequest.value }
      await expectURLError(.timedOut) { _ = try await throughTheSession.value }
      await expectURLError(.timedOut) { _ = try await inMemory.value }
    } else {
      await clock.waitForSleepers(count: 3)
      clock.advance(by: .seconds(10))
      #expect(String(decoding: try await throughTheRequest.value.0, as: UTF8.self) == "slow")
      #expect(String(decoding: try await throughTheSession.value.0, as: UTF8.self) == "slow")
      #expect(String(decoding: try await inMemory.value.0, as: UTF8.self) == "slow")
    }
  }

  /// Waits (without sleeping) until `backend` has seen `count` requests, for at most 30 seconds.
  private func waitForRequests(_ backend: Backend, _ count: Int) async {
    let deadline = ContinuousClock.now + .seconds(30)
    while backend.requests.count < count {
      guard ContinuousClock.now < deadline else {
        Issue.record("the backend saw \(backend.requests.count) of \(count) requests within 30 s")
        return
      }
      await Task.yield()
    }
  }

  /// On the real clock a delayed answer is one timer on the task's work queue (Linux): it still
  /// comes after its delay, whole.
  @Test func onTheRealClockADelayedAnswerComesAfterItsDelay() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/x"), .text("late").delayed(by: .milliseconds(80)))
    let clock = ContinuousClock()
    let start = clock.now
    let (data, response) = try await backend.session.data(from: URL(string: "https://a.com/x")!)
    #expect(clock.now - start >= .milliseconds(80))
    #expect(String(decoding: data, as: UTF8.self) == "late")
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
  }

  /// Cancelling ends the load without waiting for the delay's timer: with a delay of ten minutes
  /// the cancelled load ends long before it (the bound is generous, for a loaded machine; a CI run
  /// once took 12.8 s to deliver the cancellation with the whole suite running in parallel).
  @Test func onTheRealClockCancellingDuringTheDelayGivesCancelledAtOnce() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/x"), .text("never seen").delayed(by: .seconds(600)))
    let session = backend.session
    let load = Task { try await session.data(from: URL(string: "https://a.com/x")!) }
    await waitForRequests(backend, 1)
    let clock = ContinuousClock()
    let start = clock.now
    load.cancel()
    await expectURLError(.cancelled) { _ = try await load.value }
    #expect(clock.now - start < .seconds(300))
  }

  /// The user's suspend during the delay starts the request over on resume, as before.
  @Test func onTheRealClockTheUsersSuspendAndResumeStillWork() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/x"), .text("resumed").delayed(by: .milliseconds(50)))
    let (result, continuation) = AsyncStream<String>.makeStream()
    let task = backend.session.dataTask(with: URL(string: "https://a.com/x")!) { data, _, error in
      continuation.yield(error.map { "error \($0)" } ?? String(decoding: data ?? Data(), as: UTF8.self))
    }
    task.resume()
    await waitForRequests(backend, 1)
    task.suspend()
    task.resume()
    for await text in result {
      #expect(text == "resumed")
      break
    }
  }

  @Test func theUsersOwnSuspendAndResumeStillWork() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/x"), .text("resumed").delayed(by: .seconds(1)))
    let session = backend.session
    let (result, continuation) = AsyncStream<String>.makeStream()
    let task = session.dataTask(with: URL(string: "https://a.com/x")!) { data, _, error in
      continuation.yield(error.map { "error \($0)" } ?? String(decoding: data ?? Data(), as: UTF8.self))
    }
    task.resume()
    await clock.waitForSleepers()
    task.suspend()
    task.resume()
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    for await text in result {
      #expect(text == "resumed")
      break
    }
  }

  @Test func cancellingMidStreamGivesCancelledAndStopsDelivery() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/stream"), .text("aaaabbbbcccc").chunked(size: 4, every: .seconds(1)))
    let delegate = ChunkDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    let task = session.dataTask(with: URL(string: "https://a.com/stream")!)
    task.resume()
    await clock.waitForSleepers()
    #expect(delegate.chunks == ["aaaa"])
    task.cancel()
    let error = await delegate.completion()
    #expect((error as? URLError)?.code == .cancelled)
    clock.advance(by: .seconds(5))
    #expect(delegate.chunks == ["aaaa"])
    #expect(clock.sleeperCount == 0)
  }

  @Test func suspendingMidStreamPausesAndResumeContinues() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/stream"), .text("aaaabbbb").chunked(size: 4, every: .seconds(1)))
    let delegate = ChunkDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    let task = session.dataTask(with: URL(string: "https://a.com/stream")!)
    task.resume()
    await clock.waitForSleepers()
    task.suspend()
    clock.advance(by: .seconds(1))  // the next piece is due, but the task is suspended
    #expect(delegate.chunks == ["aaaa"])
    task.resume()
    let error = await delegate.completion()
    #expect(error == nil)
    #expect(delegate.chunks == ["aaaa", "bbbb"])
    #expect(backend.requests.count == 1)
  }

  @Test func inMemoryAnswersHonourDelaysAndFaults() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/slow"), .text("slow").delayed(by: .seconds(1)))
    backend.stub(.get("/drop"), .text("0123456789").droppingConnection(afterBytes: 2))
    let load = Task { try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/slow")!)) }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    #expect(String(decoding: try await load.value.0, as: UTF8.self) == "slow")
    await expectURLError(.networkConnectionLost) {
      _ = try await backend.respond(to: URLRequest(url: URL(string: "https://a.com/drop")!))
    }
  }

  @Test func manyDelayedRequestsInFlightStayIntact() async throws {
    let backend = quietBackend()
    backend.stub(.get("/item/{n}")) { request in
      .text("item \(request.pathParameters["n"]!)").delayed(by: .microseconds(200))
    }
    let session = backend.session
    try await withThrowingTaskGroup(of: Bool.self) { group in
      var sent = 0
      for _ in 0..<64 {
        let n = sent
        sent += 1
        group.addTask {
          try await session.data(from: URL(string: "https://a.com/item/\(n)")!).0 == Data("item \(n)".utf8)
        }
      }
      while let intact = try await group.next() {
        #expect(intact)
        if sent < 2_000 {
          let n = sent
          sent += 1
          group.addTask {
            try await session.data(from: URL(string: "https://a.com/item/\(n)")!).0 == Data("item \(n)".utf8)
          }
        }
      }
    }
    #expect(backend.requests.count == 2_000)
  }
}

/// A data delegate that records each piece of body and the completion.
final class ChunkDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // Safe: all mutable state is inside `Locked`.
  private let state = Locked<
    (chunks: [String], error: (any Error)?, done: Bool, waiter: CheckedContinuation<(any Error)?, Never>?)
  >(([], nil, false, nil))

  var chunks: [String] { state.withLock { $0.chunks } }

  /// Waits for the task to complete; returns its error.
  func completion() async -> (any Error)? {
    await withCheckedContinuation { continuation in
      let finished = state.withLock { state -> (any Error)?? in
        if state.done { return .some(state.error) }
        state.waiter = continuation
        return nil
      }
      if let finished { continuation.resume(returning: finished) }
    }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    state.withLock { $0.chunks.append(String(decoding: data, as: UTF8.self)) }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    let waiter = state.withLock { state -> CheckedContinuation<(any Error)?, Never>? in
      state.done = true
      state.error = error
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: error)
  }
}
