import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

/// The URLSession door's Apple-platform delivery (``Platform/Delivery/loadingThread``), driven on
/// Linux: the protocol is made for a route that follows Apple's contract, started on a thread of
/// the test's own that runs its run loop in a mode of its own, and answered into a fake
/// `URLProtocolClient` that records every call, the thread it ran on, and whether the protocol's
/// lock was free during the call (a call made under the lock would deadlock the probe, and the
/// bounded wait would fail the test).
@Suite(.timeLimit(.minutes(2))) struct LoadingThreadDeliveryTests {
  /// A mode no other code runs a run loop in: a block scheduled only in the default mode never runs.
  static let mode = RunLoop.Mode("DoppelLoadingThreadTests")

  @Test func anAnswerThatTakesTimeArrivesOnTheLoadingThreadInOrder() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("https://api.test/breeds"), .text("whiskers").delayed(by: .seconds(2)))
    let loader = try await LoaderThread.start(mode: Self.mode)
    let client = FakeClient(loader: loader)
    let load = try Load(backend: backend, url: "https://api.test/breeds", client: client)

    loader.run { load.protocolInstance.startLoading() }
    await clock.waitForSleepers()
    #expect(client.calls.isEmpty)
    clock.advance(by: .seconds(2))
    #expect(await client.wait { $0.contains("finish") })

    #expect(client.calls == ["response 200", "data whiskers", "finish"])
    #expect(client.records.allSatisfy { $0.onLoadingThread && $0.inLoadingMode && $0.lockFree })
  }

  @Test func anImmediateAnswerIsDeliveredInsideStartLoadingWithoutTheLock() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.test/now"), .json(["ok": true]))
    let loader = try await LoaderThread.start(mode: Self.mode)
    let client = FakeClient(loader: loader)
    let load = try Load(backend: backend, url: "https://api.test/now", client: client)

    let callsDuringStart = Locked(0)
    loader.run {
      load.protocolInstance.startLoading()
      callsDuringStart.withLock { $0 = client.calls.count }
    }
    #expect(await client.wait { $0.contains("finish") })
    #expect(callsDuringStart.withLock { $0 } == 3)
    #expect(client.records.allSatisfy { $0.onLoadingThread && $0.lockFree })
  }

  @Test func aStopFromInsideAClientCallEndsTheLoadWithoutDeadlock() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("https://api.test/slow"), .text("0123456789").throttled(bytesPerSecond: 2))
    let loader = try await LoaderThread.start(mode: Self.mode)
    let client = FakeClient(loader: loader)
    let load = try Load(backend: backend, url: "https://api.test/slow", client: client)
    // The session cancels the task as soon as it has the response, from inside that call.
    client.onCall = { call in
      if call.hasPrefix("response") { load.protocolInstance.stopLoading() }
    }

    loader.run { load.protocolInstance.startLoading() }
    #expect(await client.wait { $0.contains("response 200") })
    while clock.advanceToNextDeadline() {}
    // Nothing more may come: a block still on its way to the loader would deliver now.
    #expect(await loader.drain())
    #expect(client.calls == ["response 200"])
    #expect(client.records.allSatisfy { $0.onLoadingThread && $0.lockFree })
  }

  @Test func cancellingMidBodyDeliversNothingMore() async throws {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("https://api.test/paced"), .text("abcdef").chunked(size: 2, every: .seconds(1)))
    let loader = try await LoaderThread.start(mode: Self.mode)
    let client = FakeClient(loader: loader)
    let load = try Load(backend: backend, url: "https://api.test/paced", client: client)

    loader.run { load.protocolInstance.startLoading() }
    #expect(await client.wait { $0.contains("response 200") })
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    #expect(await client.wait { $0.contains { $0.hasPrefix("data") } })
    // URLSession cancels the task: it calls stopLoading on the loading thread.
    loader.run { load.protocolInstance.stopLoading() }
    #expect(await loader.drain())
    while clock.advanceToNextDeadline() {}
    #expect(await loader.drain())
    #expect(client.calls == ["response 200", "data ab"])
    #expect(client.records.allSatisfy { $0.onLoadingThread && $0.lockFree })
  }

  @Test func aRedirectGoesToTheClientAndTheSessionDecides() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.test/old"), .redirect(to: "/new"))
    backend.stub(.get("https://api.test/new"), .text("moved here"))
    let loader = try await LoaderThread.start(mode: Self.mode)
    let client = FakeClient(loader: loader)
    let load = try Load(backend: backend, url: "https://api.test/old", client: client)

    loader.run { load.protocolInstance.startLoading() }
    #expect(await client.wait { $0.contains("finish") })
    // The session's delegate would now decide; this one declined, so the 302 itself completes.
    #expect(client.calls == ["redirect 302 to https://api.test/new", "response 302", "finish"])
    // Doppel did not follow it: only the first request reached the backend.
    #expect(backend.requests.map(\.url.path) == ["/old"])
    #expect(client.records.allSatisfy { $0.onLoadingThread && $0.lockFree })
  }

  @Test func aSessionThatFollowsTheRedirectStopsTheLoadInsideTheCall() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.post("https://api.test/form"), .redirect(to: "https://other.test/done", status: 303))
    let loader = try await LoaderThread.start(mode: Self.mode)
    let client = FakeClient(loader: loader)
    var request = URLRequest(url: URL(string: "https://api.test/form")!)
    request.httpMethod = "POST"
    request.httpBody = Data("a=1".utf8)
    let load = try Load(backend: backend, request: request, client: client)
    client.onCall = { call in
      if call.hasPrefix("redirect") { load.protocolInstance.stopLoading() }
    }

    loader.run { load.protocolInstance.startLoading() }
    #expect(await client.wait { !$0.isEmpty })
    #expect(await loader.drain())
    #expect(client.calls == ["redirect 303 to https://other.test/done"])
    // A 303 is followed with a GET and no body, as a real server's client would.
    #expect(client.redirects.map(\.httpMethod) == ["GET"])
    #expect(client.redirects.map(\.httpBody) == [nil])
  }

  @Test func anAnswerMarkedNotFollowedIsAResponse() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.test/old"), .redirect(to: "/new", status: 301).notFollowed())
    let loader = try await LoaderThread.start(mode: Self.mode)
    let client = FakeClient(loader: loader)
    let load = try Load(backend: backend, url: "https://api.test/old", client: client)

    loader.run { load.protocolInstance.startLoading() }
    #expect(await client.wait { $0.contains("finish") })
    #expect(client.calls == ["response 301", "finish"])
  }

  @Test func anAuthenticationChallengeKeepsItsNameOnApplePlatforms() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.test/me"), .status(401).header("WWW-Authenticate", #"Basic realm="api""#))
    let loader = try await LoaderThread.start(mode: Self.mode)
    let client = FakeClient(loader: loader)
    let load = try Load(backend: backend, url: "https://api.test/me", client: client)

    loader.run { load.protocolInstance.startLoading() }
    #expect(await client.wait { $0.contains("finish") })
    #expect(client.responses.first?.value(forHTTPHeaderField: "WWW-Authenticate") == #"Basic realm="api""#)
    #expect(client.responses.first?.value(forHTTPHeaderField: "X-Doppel-WWW-Authenticate") == nil)
  }

  @Test func theTwoPlatformsDifferWhereTheNotesSay() {
    #expect(Platform.apple.delivery == .loadingThread)
    #expect(Platform.corelibs.delivery == .sessionQueue)
    #expect(Platform.apple.redirectsThroughClient && !Platform.corelibs.redirectsThroughClient)
    #expect(Platform.corelibs.refusesDownloadTasks && !Platform.apple.refusesDownloadTasks)
    #expect(Platform.apple.urlErrorCode(for: .reset) == .networkConnectionLost)
    #expect(Platform.corelibs.urlErrorCode(for: .empty) == .badServerResponse)
    #if canImport(FoundationNetworking)
      #expect(Platform.current == .corelibs)
    #else
      #expect(Platform.current == .apple)
    #endif
  }
}

/// One load through a protocol instance made for an Apple-contract route of `backend`.
private struct Load: @unchecked Sendable {
  // Safe: the instance is used on the loader thread only (and read there by the fake client).
  let protocolInstance: URLProtocol

  init(backend: Backend, url: String, client: FakeClient) throws {
    try self.init(backend: backend, request: URLRequest(url: try #require(URL(string: url))), client: client)
  }

  init(backend: Backend, request: URLRequest, client: FakeClient) throws {
    let route = BackendRegistry.shared.addRoute(to: backend, configuration: .ephemeral, platform: .apple)
    let instance = ScopedProtocolClass.make(for: route).init(request: request, cachedResponse: nil, client: client)
    protocolInstance = instance
    client.protocolInstance = instance
  }
}

/// A thread running its run loop in one mode, as CFNetwork's loader thread runs its own.
private final class LoaderThread: @unchecked Sendable {
  // Safe: `loading` is set once, before `start` returns, and only read afterwards; the thread
  // object is only compared by identity.
  private(set) var loading: LoadingThread!
  let mode: RunLoop.Mode

  private init(mode: RunLoop.Mode) { self.mode = mode }

  /// Starts the thread and waits (bounded) until its run loop runs.
  static func start(mode: RunLoop.Mode) async throws -> LoaderThread {
    let loader = LoaderThread(mode: mode)
    let started = await withCheckedContinuation { (continuation: CheckedContinuation<LoadingThread?, Never>) in
      let thread = Thread {
        // A timer far in the future keeps the run loop running with nothing else scheduled.
        RunLoop.current.add(Timer(timeInterval: 1e9, repeats: false) { _ in }, forMode: mode)
        // A block runs once: the first thing the running loop does is announce itself.
        RunLoop.current.perform(inModes: [mode]) { continuation.resume(returning: LoadingThread.current()) }
        while true { _ = RunLoop.current.run(mode: mode, before: .distantFuture) }
      }
      thread.name = "LoadingThreadDeliveryTests loader"
      thread.start()
    }
    guard let started else { throw DoppelError("the loader thread's run loop did not run") }
    loader.loading = started
    #expect(loader.loading.modes.contains(mode))
    return loader
  }

  /// Runs `work` on the thread, in its mode.
  func run(_ work: @escaping @Sendable () -> Void) { loading.perform(work) }

  /// Waits (bounded) until everything handed to the thread before now has run; `false` on timeout.
  func drain() async -> Bool {
    await bounded { resume in self.run { resume() } }
  }
}

/// A `URLProtocolClient` that records each call.
private final class FakeClient: NSObject, URLProtocolClient, @unchecked Sendable {
  // Safe: all mutable state is inside `Locked`; `protocolInstance` and `onCall` are set before
  // the load starts.
  struct Record {
    let call: String
    let onLoadingThread: Bool
    let inLoadingMode: Bool
    let lockFree: Bool
  }

  private struct State {
    var records: [Record] = []
    var responses: [HTTPURLResponse] = []
    var redirects: [URLRequest] = []
    var waiters: [UUID: (ready: @Sendable ([String]) -> Bool, resume: @Sendable () -> Void)] = [:]
  }

  private let state = Locked(State())
  private let loader: LoaderThread
  weak var protocolInstance: DoppelURLProtocol?
  var onCall: @Sendable (String) -> Void = { _ in }

  init(loader: LoaderThread) { self.loader = loader }

  var records: [Record] { state.withLock { $0.records } }
  var calls: [String] { records.map(\.call) }
  var responses: [HTTPURLResponse] { state.withLock { $0.responses } }
  var redirects: [URLRequest] { state.withLock { $0.redirects } }

  /// Waits (bounded) until the calls so far satisfy `ready`; `false` on timeout.
  func wait(until ready: @escaping @Sendable ([String]) -> Bool) async -> Bool {
    await bounded { resume in
      let id = UUID()
      let now = self.state.withLock { state -> Bool in
        if ready(state.records.map(\.call)) { return true }
        state.waiters[id] = (ready, resume)
        return false
      }
      if now { resume() }
    }
  }

  private func record(_ call: String, _ change: (inout State) -> Void = { _ in }) {
    // Taking the protocol's lock here deadlocks if the protocol called while holding it (and the
    // test's bounded wait fails).
    let lockFree =
      protocolInstance.map {
        _ = $0.isStopped
        return true
      } ?? false
    let entry = Record(
      call: call, onLoadingThread: loader.loading.isCurrent,
      inLoadingMode: RunLoop.current.currentMode == loader.mode, lockFree: lockFree)
    let ready = state.withLock { state -> [@Sendable () -> Void] in
      state.records.append(entry)
      change(&state)
      let calls = state.records.map(\.call)
      let done = state.waiters.filter { $0.value.ready(calls) }
      for id in done.keys { state.waiters[id] = nil }
      return done.values.map(\.resume)
    }
    for resume in ready { resume() }
    onCall(call)
  }

  func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
    let status = (redirectResponse as? HTTPURLResponse)?.statusCode ?? 0
    record("redirect \(status) to \(request.url?.absoluteString ?? "")") { $0.redirects.append(request) }
  }

  func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
    record("cached")
  }

  func urlProtocol(
    _ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy
  ) {
    let http = response as? HTTPURLResponse
    record("response \(http?.statusCode ?? 0)") { state in http.map { state.responses.append($0) } }
  }

  func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
    record("data \(String(decoding: data, as: UTF8.self))")
  }

  func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { record("finish") }

  func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) {
    record("fail \((error as? URLError)?.code.rawValue ?? 0)")
  }

  func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
    record("challenge")
  }

  func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
    record("challenge cancelled")
  }
}

/// Runs `start`, which must call the function it is given once, and returns `true` when it was
/// called within 10 seconds, `false` otherwise: a wait that always ends.
private func bounded(_ start: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) async -> Bool {
  let outcome = Locked<CheckedContinuation<Bool, Never>?>(nil)
  let finish: @Sendable (Bool) -> Void = { value in
    outcome.withLock { continuation in
      continuation?.resume(returning: value)
      continuation = nil
    }
  }
  return await withCheckedContinuation { continuation in
    outcome.withLock { $0 = continuation }
    let timeout = Task {
      guard (try? await Task.sleep(for: .seconds(10))) != nil else { return }  // cancelled: it ended in time
      finish(false)
    }
    start {
      finish(true)
      timeout.cancel()
    }
  }
}
