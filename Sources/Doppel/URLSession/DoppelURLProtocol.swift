import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The URLSession front door: turns a `URLRequest` into a ``Request``, asks the backend, and plays
/// the answer back through the `URLProtocolClient`.
///
/// Delivery rules (see the Linux notes in the README):
/// - An answer known at once, with no timing, is delivered synchronously inside `startLoading`, on
///   the session's own queue. On Linux, calling the client from any other thread crashes URLSession
///   once two requests are in flight.
/// - Anything that takes time (latency, paced bodies, closure responders, passthrough) runs in a
///   driver task on the backend's clock. On Linux, each time something is ready the pending steps
///   are delivered on the task's own work queue, the queue URLSession calls `startLoading` on ("the
///   hop"): one `async` onto that queue, read from FoundationNetworking's internals. When that queue
///   cannot be read, the protocol suspends and resumes its own task instead, so that URLSession
///   calls `startLoading` again on that queue; the `stopLoading` that causes is ignored.
/// - Delivery and `stopLoading` share one lock, so nothing is delivered once the task is stopped.
/// - Cancellation stops the driver; the caller gets `URLError(.cancelled)` from URLSession.
/// - A user's own `suspend()` pauses delivery once the response has started, and restarts the
///   request on `resume()` when it was still waiting for its head.
class DoppelURLProtocol: URLProtocol {
  /// The route (backend and session configuration) this class serves; 0 means none.
  class var routeID: UInt32 { 0 }

  private struct Loading {
    /// Bumped on every fresh start, so a driver from an abandoned start delivers nothing.
    var generation = 0
    var stopped = false
    var finished = false
    var headSent = false
    var pausedByUser = false
    /// A suspend/resume hop is on its way to `startLoading`.
    var hopping = false
    var pending: [Playback.Step] = []
    var driver: Task<Void, Never>?
  }

  private let loading = Locked(Loading())

  override class func canInit(with request: URLRequest) -> Bool { true }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override class func requestIsCacheEquivalent(_ a: URLRequest, to b: URLRequest) -> Bool { false }

  override func startLoading() {
    enum Start {
      case fresh(generation: Int)
      case deliverPending
    }
    let start = loading.withLock { state -> Start in
      if state.hopping || (state.pausedByUser && !state.stopped) {
        state.hopping = false
        state.pausedByUser = false
        return .deliverPending
      }
      // A first start, or a restart after the user's suspend/resume before any response: start over.
      state.driver?.cancel()
      let next = state.generation + 1
      state = Loading(generation: next)
      return .fresh(generation: next)
    }
    switch start {
    case .deliverPending:
      loading.withLock { state in
        let steps = state.pending
        state.pending = []
        perform(steps, &state)
      }
    case .fresh(let generation):
      begin(generation: generation)
    }
  }

  private func begin(generation: Int) {
    let routeID = Self.routeID
    guard let route = BackendRegistry.shared.route(routeID), let backend = route.backend.object else {
      let failure = DoppelError(Self.missingBackendMessage(id: routeID, request: request))
      loading.withLock { perform([.fail(failure)], &$0) }
      return
    }
    #if canImport(FoundationNetworking)
      if task is URLSessionDownloadTask {
        let failure = DoppelError(Self.nativeDownloadMessage(request))
        backend.issueReporter.report(DoppelIssue(failure.message))
        loading.withLock { perform([.fail(failure)], &$0) }
        return
      }
      if task is URLSessionWebSocketTask {
        // Reached only with a WebSocket-capable libcurl; the session reported it when the task was made.
        let failure = URLError(
          .unsupportedURL,
          userInfo: [
            NSLocalizedDescriptionKey: DoppelSession.webSocketProblem(for: request.url),
            NSURLErrorFailingURLErrorKey: request.url as Any,
          ])
        loading.withLock { perform([.fail(failure)], &$0) }
        return
      }
    #endif
    var incoming = Request(request)
    if incoming.body == nil, let task, let body = SessionInternals.uploadBody(of: task) {
      incoming = Request(method: incoming.method, url: incoming.url, headers: incoming.headers, body: body)
    }
    if let refusal = incoming.refusedBodyOnGet {
      loading.withLock { perform([.fail(refusal)], &$0) }
      return
    }
    if let task, let body = incoming.body {
      SessionInternals.reportUploadProgress(
        of: task, bodyLength: body.count, lengthKnown: request.httpBodyStream == nil || request.httpBody != nil)
    }
    let settings = SessionSettings(route.configuration?.value)
    var context = Backend.Context(followRedirects: true, cookies: settings.cookies)
    #if canImport(FoundationNetworking)
      context.addCookiesToFirstRequest = false  // URLSession on Linux sends stored cookies itself
    #endif
    let plan = backend.plan(for: incoming, context: context)
    if case .now(let playback) = plan, playback.timing.isImmediate {
      let steps = playback.immediateSteps
      loading.withLock { perform(steps, &$0) }
      return
    }
    // Whether body pieces stream to a delegate only matters for a paced body, and finding out
    // reads the session's task registry. With the task's work queue at hand, the driver asks there
    // once it knows the playback is paced; otherwise it is read now, on the session's queue.
    let queue = task.flatMap(SessionInternals.workQueue)
    let streaming = queue == nil ? (task.map(SessionInternals.streamsToDelegate) ?? false) : nil
    let timeouts = settings.timeouts(for: request)
    let clock = backend.clockBox
    let this = UncheckedSendable(self)
    let driver = Task {
      await this.value.drive(
        plan, clock: clock, timeouts: timeouts, streaming: streaming, generation: generation, queue: queue)
    }
    let cancelNow = loading.withLock { state -> Bool in
      guard state.generation == generation else { return true }
      state.driver = driver
      return state.stopped
    }
    if cancelNow { driver.cancel() }
  }

  /// Plays a playback back in time: waits on the clock, then hands each beat's steps over.
  /// `queue` is the task's work queue on Linux (see ``hand(_:generation:queue:)``); `streaming` is
  /// `nil` when it is to be read on that queue, only if the playback is paced.
  private func drive(
    _ plan: Backend.Plan, clock: ClockBox, timeouts: Playback.Timeouts, streaming: Bool?, generation: Int,
    queue: DispatchQueue?
  ) async {
    let playback = await plan.value()
    var streams = streaming ?? false
    if streaming == nil, playback.timing.pacing != nil, let queue, let task {
      let read = UncheckedSendable(task)
      streams = await withCheckedContinuation { continuation in
        queue.async { continuation.resume(returning: SessionInternals.streamsToDelegate(read.value)) }
      }
    }
    _ = await playback.play(streaming: streams, clock: clock, timeouts: timeouts, url: request.url) { steps in
      await hand(steps, generation: generation, queue: queue)
    }
  }

  /// Hands steps to the session: through the hop on Linux, directly elsewhere. On Linux the hop is
  /// one `async` onto `queue`, the task's work queue, when it could be read; otherwise the task's own
  /// suspend and resume, which make URLSession call `startLoading` on that queue. Steps handed while
  /// a hop is on its way go with it. Through the work queue, the driver waits for the delivery
  /// before going on (without holding a thread), so a clock advanced by a test finds the steps of
  /// that beat handed to URLSession once the driver sleeps again.
  private func hand(_ steps: [Playback.Step], generation: Int, queue: DispatchQueue?) async {
    guard !steps.isEmpty else { return }
    #if canImport(FoundationNetworking)
      let hop = loading.withLock { state -> Bool in
        guard state.generation == generation, !state.stopped, !state.finished else { return false }
        state.pending += steps
        if state.hopping { return false }  // a hop is on its way and delivers these too
        state.hopping = true
        return true
      }
      guard hop, let task else { return }
      if let queue {
        let this = UncheckedSendable(self)
        if steps.last?.ends == true {
          // Nothing follows the last steps, so the driver need not wait to see them delivered: it
          // ends now, and saves waking a thread of the cooperative pool for the resumption.
          queue.async { this.value.deliverHopped() }
          return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          queue.async {
            this.value.deliverHopped()
            continuation.resume()
          }
        }
        return
      }
      task.suspend()
      task.resume()
      if task.state == .canceling || task.state == .completed {
        loading.withLock { state in
          state.stopped = true
          state.hopping = false
          state.pending = []
        }
      }
    #else
      loading.withLock { state in
        guard state.generation == generation else { return }
        perform(steps, &state)
      }
    #endif
  }

  /// The end of a hop onto the task's work queue: delivers the pending steps there, as
  /// `startLoading` would. While the task is suspended by its user, the steps wait for the
  /// `startLoading` its resume brings (the hop stays marked, so the `stopLoading` of that suspend
  /// keeps the response going); once the task is cancelled or complete, they are dropped.
  private func deliverHopped() {
    loading.withLock { state in
      guard state.hopping else { return }  // a startLoading delivered them already
      switch task?.state {
      case .running?:
        state.hopping = false
        let steps = state.pending
        state.pending = []
        perform(steps, &state)
      case .suspended?:
        return
      default:
        state.stopped = true
        state.hopping = false
        state.pending = []
      }
    }
  }

  override func stopLoading() {
    let driver = loading.withLock { state -> Task<Void, Never>? in
      let taskState = task?.state
      let cancelled = taskState == .canceling || taskState == .completed
      if state.hopping && !cancelled { return nil }  // the stop our own suspend/resume hop causes
      if taskState == .suspended && state.headSent && !state.finished {
        state.pausedByUser = true  // the user's own suspend mid-response: keep going on resume
        return nil
      }
      state.stopped = true
      defer { state.driver = nil }
      return state.driver
    }
    driver?.cancel()
  }

  /// Calls the client for each step, unless the task was stopped or is finished.
  private func perform(_ steps: [Playback.Step], _ state: inout Loading) {
    guard let client else { return }
    for step in steps {
      guard !state.stopped, !state.finished else { return }
      switch step {
      case .head(let answer):
        state.headSent = true
        client.urlProtocol(self, didReceive: Self.urlResponse(for: answer), cacheStoragePolicy: .notAllowed)
      case .data(let data):
        client.urlProtocol(self, didLoad: data)
      case .finish:
        state.finished = true
        client.urlProtocolDidFinishLoading(self)
      case .fail(let error):
        state.finished = true
        client.urlProtocol(self, didFailWithError: Self.callerError(error, url: request.url))
      }
    }
  }

  /// The response as URLSession receives it.
  ///
  /// On Linux, FoundationNetworking never completes a 401 that carries `WWW-Authenticate` (it starts
  /// an authentication it cannot finish, and crashes parsing a challenge without a realm), and it
  /// finds the header under any spelling. The challenge is therefore delivered there as
  /// `X-Doppel-WWW-Authenticate`; status, body and other headers are unchanged, and the journal keeps
  /// the original header.
  static func urlResponse(for answer: Delivery.Answer) -> HTTPURLResponse {
    #if canImport(FoundationNetworking)
      if answer.status == 401, answer.headers.contains("WWW-Authenticate") {
        var headers = answer.headers
        let values = headers.values(for: "WWW-Authenticate")
        headers.remove("WWW-Authenticate")
        for value in values { headers.add("X-Doppel-WWW-Authenticate", value) }
        return Delivery.Answer(url: answer.url, status: answer.status, headers: headers, body: answer.body)
          .httpURLResponse
      }
    #endif
    return answer.httpURLResponse
  }

  /// Doppel's own errors reach URLSession callers as `URLError(.resourceUnavailable)` whose
  /// description is the message, so `catch let error as URLError` code paths see them; the
  /// ``DoppelError`` is kept under `NSUnderlyingErrorKey`. Other errors pass through unchanged.
  static func callerError(_ error: any Error, url: URL?) -> any Error {
    guard let problem = error as? DoppelError else { return error }
    var userInfo: [String: Any] = [NSLocalizedDescriptionKey: problem.message, NSUnderlyingErrorKey: problem]
    if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
    return URLError(.resourceUnavailable, userInfo: userInfo)
  }

  static func nativeDownloadMessage(_ request: URLRequest) -> String {
    let what = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "(no URL)")"
    return
      "FoundationNetworking on Linux cannot complete a download task through a URLProtocol (async download(for:) and download(from:) crash, and a delegate gets no file), so Doppel failed \(what) instead. Use downloadTask(with:completionHandler:) or a delegate on a session made by the backend (backend.session or backend.makeSession(...)), which Doppel routes through a data task, or data(for:) and write the file yourself."
  }

  static func missingBackendMessage(id: UInt32, request: URLRequest) -> String {
    let what = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "(no URL)")"
    if id == 0 {
      return
        "No Doppel backend intercepts process-wide any more, but a session still routed \(what) to it. Keep the backend intercepting until its requests are done."
    }
    return
      "The Doppel backend that made this session no longer exists, so \(what) cannot be answered. Keep a reference to the Backend for as long as its sessions are used."
  }
}

/// Carries a non-Sendable value into a task or a Sendable type.
struct UncheckedSendable<Value>: @unchecked Sendable {
  // Safe where used: a URLProtocol instance is only touched through `Locked` state, the
  // thread-safe `task.suspend()`/`resume()`, and client calls made under that lock; a
  // URLSessionConfiguration is only read; a URLSessionTask carried to its work queue is only read
  // there, where FoundationNetworking itself reads it.
  let value: Value
  init(_ value: Value) { self.value = value }
}
