@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// The URLSession front door: turns a `URLRequest` into a ``Request``, asks the backend, and plays
/// the answer back through the `URLProtocolClient`, following the contract of the platform's
/// URLSession (``Platform/delivery``):
///
/// - **Apple platforms** (``Platform/Delivery/loadingThread``): every client call happens on the
///   thread that called `startLoading`, in the run-loop modes it was running then, and never while
///   a lock is held; an answer that takes time is handed to that thread's run loop when it is
///   ready (``LoadingThread``). A `stopLoading` (or cancellation) arriving from inside a client
///   call takes effect before the next one. Redirects go to the client
///   (`urlProtocol(_:wasRedirectedTo:redirectResponse:)`), so the session's delegate decides, as
///   with a real server; the redirect's own response follows, for a session that declines it.
/// - **Linux** (``Platform/Delivery/sessionQueue``): an answer known at once, with no timing, is
///   delivered synchronously inside `startLoading`, on the session's own queue. Anything that takes
///   time (latency, paced bodies, closure responders, passthrough) runs in a driver task on the
///   backend's clock, and each time something is ready the pending steps are delivered on the
///   task's own work queue, the queue URLSession calls `startLoading` on ("the hop"): one `async`
///   onto that queue, read from FoundationNetworking's internals. When that queue cannot be read,
///   the protocol suspends and resumes its own task instead, so that URLSession calls
///   `startLoading` again on that queue; the `stopLoading` that causes is ignored. Delivery and
///   `stopLoading` share one lock, held during client calls, so nothing is delivered once the task
///   is stopped (FoundationNetworking calls `stopLoading` from another thread). Redirects are
///   followed by Doppel, which URLSession there cannot do for a protocol.
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
    /// A suspend/resume hop is on its way to `startLoading` (Linux).
    var hopping = false
    var pending: [Playback.Step] = []
    var driver: Task<Void, Never>?
    /// Whose URLSession contract this load follows.
    var platform = Platform.current
    /// Where client calls go under ``Platform/Delivery/loadingThread``; `nil` when the thread that
    /// called `startLoading` ran no run loop (then later steps are delivered from the driver).
    var loadingThread: LoadingThread?
    /// A block that delivers ``pending`` is on its way to the loading thread.
    var drainScheduled = false
    /// The request a redirect answer is followed from, when redirects go to the client and the
    /// answer is to be followed.
    var redirectFrom: Request?
  }

  private let loading = Locked(Loading())

  override class func canInit(with request: URLRequest) -> Bool { true }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override class func requestIsCacheEquivalent(_ a: URLRequest, to b: URLRequest) -> Bool { false }

  override func startLoading() {
    enum Start {
      case fresh(generation: Int)
      case deliverPending(generation: Int, Platform.Delivery)
    }
    let start = loading.withLock { state -> Start in
      if state.hopping || (state.pausedByUser && !state.stopped) {
        state.hopping = false
        state.pausedByUser = false
        return .deliverPending(generation: state.generation, state.platform.delivery)
      }
      // A first start, or a restart after the user's suspend/resume before any response: start over.
      state.driver?.cancel()
      let next = state.generation + 1
      state = Loading(generation: next)
      return .fresh(generation: next)
    }
    switch start {
    case .deliverPending(_, .sessionQueue):
      loading.withLock { state in
        let steps = state.pending
        state.pending = []
        perform(steps, &state)
      }
    case .deliverPending(let generation, .loadingThread):
      // Resumed by its user: this thread is where the client is called from now on.
      let thread = LoadingThread.current()
      loading.withLock { $0.loadingThread = thread ?? $0.loadingThread }
      drain(generation: generation)
    case .fresh(let generation):
      begin(generation: generation)
    }
  }

  private func begin(generation: Int) {
    let routeID = Self.routeID
    let route = BackendRegistry.shared.route(routeID)
    let platform = route?.platform ?? .current
    if platform.delivery == .loadingThread {
      let thread = LoadingThread.current()
      loading.withLock { state in
        state.platform = platform
        state.loadingThread = thread
      }
    }
    guard let route, let backend = route.backend.object else {
      let failure = DoppelError.usage(Self.missingBackendMessage(id: routeID, request: request))
      deliverNow([.fail(failure)], generation: generation)
      return
    }
    if platform.refusesDownloadTasks, task is URLSessionDownloadTask {
      let failure = DoppelError.usage(Self.nativeDownloadMessage(request))
      backend.issueReporter.report(DoppelIssue(failure.message))
      deliverNow([.fail(failure)], generation: generation)
      return
    }
    if platform.refusesWebSocketTasks, task is URLSessionWebSocketTask {
      // Reached only with a WebSocket-capable libcurl; the session reported it when the task was made.
      let failure = URLError.described(.unsupportedURL, Self.webSocketProblem(for: request.url), url: request.url)
      deliverNow([.fail(failure)], generation: generation)
      return
    }
    // The body: on the request the protocol was given (`httpBody`, or on Apple platforms usually
    // `httpBodyStream`); for an upload task, else on the task's original request, else (Linux)
    // inside the task.
    var incoming = Request(request)
    if incoming.body == nil, let upload = task as? URLSessionUploadTask,
      let body = upload.originalRequest?.httpBody.flatMap({ $0.isEmpty ? nil : $0 })
        ?? FoundationNetworkingInternals.uploadBody(of: upload)
    {
      incoming = Request(method: incoming.method, url: incoming.url, headers: incoming.headers, body: body)
    }
    if incoming.body == nil, task is URLSessionUploadTask {
      // The task holds a body the protocol was not given: answering without it would let body
      // matchers and the journal see a request that was never sent.
      let failure = DoppelError.usage(Self.unseenUploadBodyMessage(request))
      backend.issueReporter.report(DoppelIssue(failure.message))
      deliverNow([.fail(failure)], generation: generation)
      return
    }
    if let refusal = incoming.refusedBodyOnGet {
      deliverNow([.fail(refusal)], generation: generation)
      return
    }
    if platform.reportsUploadProgress, let task, let body = incoming.body {
      FoundationNetworkingInternals.reportUploadProgress(
        of: task, bodyLength: body.count, lengthKnown: request.httpBodyStream == nil || request.httpBody != nil)
    }
    let settings = SessionSettings(route.configuration?.value)
    var context = Backend.Context(followRedirects: !platform.redirectsThroughClient, cookies: settings.cookies)
    context.addCookiesToFirstRequest = !platform.sessionAddsStoredCookies
    if platform.redirectsThroughClient, backend.followsRedirects {
      loading.withLock { state in
        if state.generation == generation { state.redirectFrom = incoming }
      }
    }
    let plan = backend.plan(for: incoming, context: context)
    if case .now(let playback) = plan, playback.timing.isImmediate {
      if !playback.timing.followRedirects { declineRedirect(generation: generation) }
      deliverNow(playback.immediateSteps, generation: generation)
      return
    }
    // Whether body pieces stream to a delegate only matters for a paced body, and finding out
    // reads the session's task registry. With the task's work queue at hand, the driver asks there
    // once it knows the playback is paced; otherwise it is read now, on the session's queue.
    let queue = platform.delivery == .sessionQueue ? task.flatMap(FoundationNetworkingInternals.workQueue) : nil
    let streaming: Bool? =
      platform.accumulatesBodyPieces
      ? true : queue == nil ? (task.map(FoundationNetworkingInternals.streamsToDelegate) ?? false) : nil
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

  /// The answer says not to follow its redirect (``Response/notFollowed()``):
  /// the client gets it as a response.
  private func declineRedirect(generation: Int) {
    loading.withLock { state in
      if state.generation == generation { state.redirectFrom = nil }
    }
  }

  /// Plays a playback back in time: waits on the clock, then hands each beat's steps over.
  /// `queue` is the task's work queue on Linux (see ``hand(_:generation:queue:)``); `streaming` is
  /// `nil` when it is to be read on that queue, only if the playback is paced.
  private func drive(
    _ plan: Backend.Plan, clock: ClockBox, timeouts: Playback.Timeouts, streaming: Bool?, generation: Int,
    queue: DispatchQueue?
  ) async {
    let playback = await plan.value()
    if !playback.timing.followRedirects { declineRedirect(generation: generation) }
    var streams = streaming ?? false
    if streaming == nil, playback.timing.pacing != nil, let queue, let task {
      let read = UncheckedSendable(task)
      streams = await withCheckedContinuation { continuation in
        queue.async { continuation.resume(returning: FoundationNetworkingInternals.streamsToDelegate(read.value)) }
      }
    }
    _ = await playback.play(streaming: streams, clock: clock, timeouts: timeouts, url: request.url) { steps in
      await hand(steps, generation: generation, queue: queue)
    }
  }

  /// Delivers steps known while `startLoading` runs, on the thread that called it.
  private func deliverNow(_ steps: [Playback.Step], generation: Int) {
    let drains = loading.withLock { state -> Bool in
      guard state.platform.delivery == .loadingThread else {
        perform(steps, &state)
        return false
      }
      guard state.generation == generation, !state.stopped, !state.finished else { return false }
      state.pending += steps
      return true
    }
    if drains { drain(generation: generation) }
  }

  /// Hands steps to the session, as its platform wants them (``Platform/Delivery``).
  ///
  /// On the loading thread (Apple platforms): the steps join the pending ones, and one block that
  /// delivers them goes to the loading thread's run loop unless one is on its way already.
  ///
  /// Through the hop (Linux): one `async` onto `queue`, the task's work queue, when it could be
  /// read; otherwise the task's own suspend and resume, which make URLSession call `startLoading`
  /// on that queue. Steps handed while a hop is on its way go with it. Through the work queue, the
  /// driver waits for the delivery before going on (without holding a thread), so a clock advanced
  /// by a test finds the steps of that beat handed to URLSession once the driver sleeps again.
  private func hand(_ steps: [Playback.Step], generation: Int, queue: DispatchQueue?) async {
    guard !steps.isEmpty else { return }
    enum Next {
      case nothing
      case hop
      case schedule(LoadingThread)
      case drainHere
    }
    let next = loading.withLock { state -> Next in
      guard state.generation == generation, !state.stopped, !state.finished else { return .nothing }
      state.pending += steps
      switch state.platform.delivery {
      case .sessionQueue:
        if state.hopping { return .nothing }  // a hop is on its way and delivers these too
        state.hopping = true
        return .hop
      case .loadingThread:
        guard let thread = state.loadingThread else { return .drainHere }
        if state.drainScheduled { return .nothing }
        state.drainScheduled = true
        return .schedule(thread)
      }
    }
    switch next {
    case .nothing:
      return
    case .drainHere:
      Self.deliveriesOffTheLoadingThread.withLock { $0 += 1 }
      drain(generation: generation)
    case .schedule(let thread):
      let this = UncheckedSendable(self)
      thread.perform { this.value.drain(generation: generation) }
    case .hop:
      guard let task else { return }
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
    }
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
      state.pending = []
      defer { state.driver = nil }
      return state.driver
    }
    driver?.cancel()
  }

  /// Calls the client for each step, unless the task was stopped or is finished, with the lock
  /// held (``Platform/Delivery/sessionQueue``).
  private func perform(_ steps: [Playback.Step], _ state: inout Loading) {
    guard let client else { return }
    for step in steps {
      guard !state.stopped, !state.finished else { return }
      switch step {
      case .head(let answer):
        state.headSent = true
        client.urlProtocol(
          self, didReceive: Self.urlResponse(for: answer, platform: state.platform), cacheStoragePolicy: .notAllowed)
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

  /// One client call, taken from the pending steps under the lock and made without it
  /// (``Platform/Delivery/loadingThread``).
  private struct ClientCall {
    let client: any URLProtocolClient
    let step: Playback.Step
    let platform: Platform
    /// For a head that redirects: the request the session is to follow it with.
    let redirect: Request?
  }

  /// Delivers the pending steps one client call at a time, never holding the lock during a call,
  /// and stops as soon as the load is stopped or finished, also by a call made from inside the
  /// client (a re-entrant `stopLoading`, a cancellation).
  private func drain(generation: Int) {
    while let call = nextCall(generation: generation) {
      switch call.step {
      case .head(let answer):
        let response = Self.urlResponse(for: answer, platform: call.platform)
        if let redirect = call.redirect {
          call.client.urlProtocol(self, wasRedirectedTo: redirect.urlRequest, redirectResponse: response)
          // A session that follows the redirect stops this load; one that declines it gets the
          // redirect's own response, as from a real server.
          guard isLoading(generation: generation) else { return }
        }
        call.client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
      case .data(let data):
        call.client.urlProtocol(self, didLoad: data)
      case .finish:
        call.client.urlProtocolDidFinishLoading(self)
      case .fail(let error):
        call.client.urlProtocol(self, didFailWithError: Self.callerError(error, url: request.url))
      }
    }
  }

  /// The next pending step to deliver, marked as delivered; `nil` when there is none or the load
  /// stopped or finished.
  private func nextCall(generation: Int) -> ClientCall? {
    loading.withLock { state -> ClientCall? in
      // While its user has the task suspended, steps wait for the `startLoading` of its resume.
      guard state.generation == generation, !state.stopped, !state.finished, !state.pausedByUser, let client,
        !state.pending.isEmpty
      else {
        state.drainScheduled = false
        return nil
      }
      let step = state.pending.removeFirst()
      var redirect: Request?
      switch step {
      case .head(let answer):
        state.headSent = true
        redirect = state.redirectFrom.flatMap { Redirect.next(after: $0, answer: answer) }
      case .data:
        break
      case .finish, .fail:
        state.finished = true
        state.pending = []
      }
      return ClientCall(client: client, step: step, platform: state.platform, redirect: redirect)
    }
  }

  /// How many times steps were delivered from the clock's task because the thread that called
  /// `startLoading` ran no run loop (``LoadingThread/current()`` was `nil`). URLSession's loader
  /// thread on Apple platforms runs one, so this stays 0 there; a test on a Mac checks it.
  static let deliveriesOffTheLoadingThread = Locked(0)

  /// Whether the load was stopped, read under the lock (tests read it from inside client calls to
  /// show that none is made with the lock held).
  var isStopped: Bool { loading.withLock { $0.stopped } }

  /// Whether this load is still on: not stopped, not finished, not replaced by a fresh start.
  private func isLoading(generation: Int) -> Bool {
    loading.withLock { $0.generation == generation && !$0.stopped && !$0.finished }
  }

  /// The response as URLSession receives it.
  ///
  /// On Linux, FoundationNetworking never completes a 401 that carries `WWW-Authenticate` (it starts
  /// an authentication it cannot finish, and crashes parsing a challenge without a realm), and it
  /// finds the header under any spelling. The challenge is therefore delivered there as
  /// `X-Doppel-WWW-Authenticate`; status, body and other headers are unchanged, and the journal keeps
  /// the original header.
  static func urlResponse(for answer: Delivery.Answer, platform: Platform = .current) -> HTTPURLResponse {
    if platform.renamesAuthenticationChallenge, answer.status == 401, answer.headers.contains("WWW-Authenticate") {
      var headers = answer.headers
      let values = headers.values(for: "WWW-Authenticate")
      headers.remove("WWW-Authenticate")
      for value in values { headers.add("X-Doppel-WWW-Authenticate", value) }
      return Delivery.Answer(url: answer.url, status: answer.status, headers: headers, body: answer.body)
        .httpURLResponse
    }
    return answer.httpURLResponse
  }

  /// Doppel's own errors reach URLSession callers as `URLError(.resourceUnavailable)` whose
  /// description is the message, so `catch let error as URLError` code paths see them; the
  /// ``DoppelError`` is kept under `NSUnderlyingErrorKey`. Other errors pass through unchanged.
  static func callerError(_ error: any Error, url: URL?) -> any Error {
    guard let problem = error as? DoppelError else { return error }
    return URLError.described(
      .resourceUnavailable, problem.message, url: url, userInfo: [NSUnderlyingErrorKey: problem])
  }

  static func nativeDownloadMessage(_ request: URLRequest) -> String {
    let what = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "(no URL)")"
    return
      "FoundationNetworking on Linux cannot complete a download task through a URLProtocol (async download(for:) and download(from:) crash, and a delegate gets no file), so Doppel failed \(what) instead. Use downloadTask(with:completionHandler:) or a delegate on a session made by the backend (backend.session or backend.makeSession(...)), which Doppel routes through a data task, or data(for:) and write the file yourself."
  }

  /// Why a WebSocket task on a backend's session is not stubbed, and what to do instead.
  static func webSocketProblem(for url: URL?) -> String {
    "A WebSocket task (\(url?.absoluteString ?? "no URL")) cannot be stubbed through a backend's URLSession: URLSession never passes WebSocket tasks to a URLProtocol (on Linux nor on Apple platforms). Serve the backend with the stub server (DoppelServer: withStubServer(backend) { server in … }), stub the endpoint with .webSocket(onConnect:on:), and open the task on a plain URLSession to ws://127.0.0.1:<port>/<path>."
  }

  static func unseenUploadBodyMessage(_ request: URLRequest) -> String {
    let what = "\(request.httpMethod ?? "POST") \(request.url?.absoluteString ?? "(no URL)")"
    return
      "The upload task for \(what) carries a body URLSession did not hand to Doppel's URLProtocol, so Doppel failed it instead of answering a request without its body. Send the body on the request (request.httpBody or request.httpBodyStream) with data(for:) or dataTask(with:), or on Linux use a session the backend made (backend.session or backend.makeSession(...)), which puts upload bodies on the request."
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
