@_spi(DoppelInternals) import DoppelToolkit
import Foundation

extension Backend {
  /// What a front door passes along with a request.
  struct Context: Sendable {
    /// Follow redirects (URLSession and in-memory doors do; a server door leaves that to its client).
    var followRedirects = true
    /// The caller's cookie storage: stored cookies are sent, `Set-Cookie` is stored.
    var cookies: CookieJar?
    /// Whether the first request still needs the stored cookies added (on Linux URLSession has
    /// added them already; redirected requests always need them).
    var addCookiesToFirstRequest = true
    /// Whether the front door sends a large file body from disk as its client reads it (the stub
    /// server does), rather than needing the bytes in memory (see ``Delivery/make(_:for:streamingFiles:)``).
    var streamsFiles = false
    /// The status a front door answers an unmatched request with, when it answers one (the stub
    /// server); `nil` where an unmatched request fails (URLSession, in memory). Shapers (see
    /// ``Backend/shapeUnmatchedAnswers(_:)``) may then give the answer a body of their own.
    var unmatchedStatus: Int?
  }

  /// What a front door plays back, now or after some work.
  enum Plan: Sendable {
    case now(Playback)
    case later(@Sendable () async -> Playback)

    func value() async -> Playback {
      switch self {
      case .now(let playback): return playback
      case .later(let work): return await work()
      }
    }
  }

  /// The stub a request went to, the answer taken from it and the path captures.
  typealias Found = (stub: StubHandle, claim: StubHandle.Claim, captures: [String: String])

  /// Resolves a request, following redirects when the context says so.
  func plan(for request: Request, context: Context) -> Plan {
    plan(request, context, hops: 0)
  }

  /// `plan(for:context:)` for a request whose stub was looked up already (`nil`: none matched).
  func plan(for request: Request, found: Found?, context: Context) -> Plan {
    plan(request, context, hops: 0, found: .some(found))
  }

  private func plan(_ request: Request, _ context: Context, hops: Int, found: Found?? = nil) -> Plan {
    let first: Plan
    if let found {
      first = resolved(request, found, context)
    } else {
      first = resolveOnce(request, context, addCookies: hops > 0 || context.addCookiesToFirstRequest)
    }
    guard context.followRedirects else { return first }
    switch first {
    case .now(let playback):
      return follow(playback, from: request, context, hops)
    case .later(let work):
      return .later { [self] in
        await follow(await work(), from: request, context, hops).value()
      }
    }
  }

  private func follow(_ playback: Playback, from request: Request, _ context: Context, _ hops: Int) -> Plan {
    // The backend's setting (a lock) is read only for an answer that is a redirect.
    guard playback.timing.followRedirects, case .success(let answer) = playback.delivery,
      let next = Redirect.next(after: request, answer: answer), followsRedirects
    else { return .now(playback) }
    guard hops < Redirect.limit else {
      let error = URLError.described(
        .httpTooManyRedirects,
        "\(request) redirected more than \(Redirect.limit) times. Check the stubs' Location headers for a loop.",
        url: request.url)
      return .now(Playback(delivery: .failure(error), timing: playback.timing))
    }
    // The redirect's own latency comes before the next answer's.
    let latency = playback.timing.delay
    switch plan(next, context, hops: hops + 1) {
    case .now(let final): return .now(final.delayed(by: latency))
    case .later(let work): return .later { await work().delayed(by: latency) }
    }
  }

  /// Finds the stub for one request (no redirects), journals it, and returns how to answer it.
  private func resolveOnce(_ incoming: Request, _ context: Context, addCookies: Bool) -> Plan {
    let incoming = addCookies ? context.cookies?.addingCookies(to: incoming) ?? incoming : incoming
    // One step budget for every pattern the request meets: the stubs tried and the near-miss report.
    return SearchBudget.measure { resolved(incoming, findStub(for: incoming), context) }.result
  }

  /// The stub that answers `request`, with the answer taken from it and the path captures.
  ///
  /// A `HEAD` that no stub matches is answered as a server answers it wherever it answers `GET`
  /// (RFC 9110 §9.3.2): by the stub the same request as a `GET` would go to, with the head of its
  /// answer (the delivery drops the body). That stub is only looked at, not used: its call
  /// count, `times` limit, sequence step and the backend's state stay as they are, so the next
  /// `GET` gets what it would have got without the `HEAD`.
  func findStub(for request: Request) -> Found? {
    if let found = router.resolve(request, machine: machine) { return found }
    guard request.method == .head else { return nil }
    return router.resolve(request.with(method: .get), machine: machine, claiming: false)
  }

  /// How to answer a request whose stub (or its absence) is known.
  private func resolved(_ incoming: Request, _ found: Found?, _ context: Context) -> Plan {
    guard let (stub, claim, captures) = found else {
      return unmatched(incoming, context)
    }
    let request = incoming.with(pathParameters: captures)
    // The common case first: a stub that always gives the same answer, already built for this URL.
    if let answer = claim.lastAnswer, answer.serves(request) {
      context.cookies?.store(from: answer)
      recordReused(answer, for: request, stub: stub)
      return .now(Playback(delivery: .success(answer), timing: stub.reusableTiming, stub: stub))
    }
    if let response = stub.responder.immediate(call: claim.call, stub: stub) {
      return .now(finish(response, for: request, stub: stub, entry: nil, context, peek: claim.isPeek))
    }
    if case .proxy(let proxy) = stub.responder.kind {
      let entry = journal(JournalEntry(request: request, stub: stub))
      let session = passthroughSession
      return .later { [self] in
        let (response, problem) = await proxy.forward(request, session: session)
        if let problem { issueReporter.report(DoppelIssue(problem.message, location: stub.location)) }
        return finish(response, for: request, stub: stub, entry: entry, context, peek: claim.isPeek)
      }
    }
    guard case .handler(let handler) = stub.responder.kind else {
      return .now(
        finish(.error(DoppelError.usage("internal: no response")), for: request, stub: stub, entry: nil, context))
    }
    let entry = journal(JournalEntry(request: request, stub: stub))
    return .later { [self] in
      let response: Response
      do {
        response = try await handler.respond(request)
      } catch {
        response = .error(error)
      }
      return finish(response, for: request, stub: stub, entry: entry, context, peek: claim.isPeek)
    }
  }

  private func unmatched(_ request: Request, _ context: Context) -> Plan {
    let stubs = router.stubs
    let report = NearMissReport.make(for: request, stubs: stubs, state: machine.withLock { $0 })
    let (policy, reporter) = locked.withLock { ($0.unmatchedPolicy, $0.issueReporter) }
    let entry = JournalEntry(request: request, unmatchedReport: report)
    switch policy.kind {
    case .fail:
      // Reported where the fix most likely goes: the closest stub's declaration.
      let closest = NearMissReport.closestStub(to: request, among: stubs, state: machine.withLock { $0 })?.location
      reporter.report(DoppelIssue(report, location: closest, isUnmatchedRequest: true))
      if let status = context.unmatchedStatus {
        let shapers = locked.withLock { $0.unmatchedShapers }
        if let shaped = shapers.lazy.compactMap({ $0(request, report, status) }).first {
          return .now(finish(shaped, for: request, stub: nil, entry: nil, context, unmatchedReport: report))
        }
      }
      let error = URLError.described(
        .resourceUnavailable, report, url: request.url, userInfo: [DoppelIssue.unmatchedReportKey: report])
      return .now(finish(.error(error), for: request, stub: nil, entry: nil, context, unmatchedReport: report))
    case .respond(let response):
      return .now(finish(response, for: request, stub: nil, entry: nil, context, unmatchedReport: report))
    case .passthrough:
      let session = passthroughSession
      let index = journal(entry)
      return .later { [self] in
        let response: Response
        do {
          // A piece at a time: a large answer goes to disk, not into memory.
          let (urlResponse, body) = try await UpstreamFetch.fetch(request.urlRequest, through: session)
          let http = urlResponse as? HTTPURLResponse
          var headers = HTTPHeaders()
          for (name, value) in (http?.allHeaderFields ?? [:]) {
            headers.add("\(name)", "\(value)")
          }
          response = Response(status: http?.statusCode ?? 200, headers: headers, body: body)
        } catch {
          response = .error(error)
        }
        return finish(response, for: request, stub: nil, entry: index, context)
      }
    }
  }

  /// Appends an entry to the journal; returns a reference to update it later.
  private func journal(_ entry: JournalEntry) -> JournalSlot {
    let entry = bounded(entry)
    return locked.withLock { $0.journal.append(entry) }
  }

  /// `entry` with its bodies over ``journalBodyLimit`` digested; an entry without a body of its
  /// own (most) is returned as it is without reading the limit.
  private func bounded(_ entry: JournalEntry) -> JournalEntry {
    entry.bodyBytes == 0 && !entry.holdsSpool ? entry : entry.keepingBodies(upTo: journalBodyLimit)
  }

  /// Turns a response into a playback, stores its cookies, and journals it: appending a new entry
  /// (`entry == nil`) or completing the one made when the request arrived. With `peek`, the stub was
  /// only looked at (see ``StubHandle/peek(machine:)``) and its random draws stay where they were.
  private func finish(
    _ response: Response, for request: Request, stub: StubHandle?, entry slot: JournalSlot?, _ context: Context,
    unmatchedReport: String? = nil, peek: Bool = false
  ) -> Playback {
    var response = response
    if let template = response.template { response = template.render(response, for: request, now: templateNow) }
    if let stub, response.problem == ResponseTemplate.tooLarge {
      response.body.source = .problem(ResponseTemplate.tooLarge(stub: "declared at \(stub.location) (\(stub.matcher))"))
    }
    if response.chance != nil { response = decide(response, stub: stub, advancing: !peek) }
    var delivery = Delivery.make(
      response, for: request,
      streamingFiles: context.streamsFiles && response.timing.isImmediate && response.webSocket == nil)
    // A stub that cannot answer (a value that did not encode, a status out of range) is where
    // the caller's error points.
    if case .failure(let problem as DoppelError) = delivery, let stub {
      delivery = .failure(problem.locatedIfUnknown(at: stub.location))
    }
    let outcome: JournalEntry.Outcome
    switch delivery {
    case .success(let answer):
      context.cookies?.store(from: answer)
      stub?.keep(answer, for: request)
      // A WebSocket endpoint is journaled as itself (status 101), whoever asked.
      outcome = .answered(response, headers: response.webSocket == nil ? answer.headers : response.headers)
    case .failure(let error):
      outcome = .failed(error)
    }
    let observer = record(
      JournalEntry(request: request, stub: stub, outcome: outcome, unmatchedReport: unmatchedReport), in: slot)
    if let observer {
      switch delivery {
      case .success(let answer):
        // A validator needs the body: a file sent from disk is read for it (within the limit).
        // An upstream's answer spooled to disk is too large to read (its length and digest are
        // journaled).
        let body =
          answer.file.map { $0.spool != nil ? Data() : (try? Response.readFile($0.url)) ?? Data() } ?? answer.body
        observer(Exchange(request: request, status: answer.status, headers: answer.headers, body: body, stub: stub))
      case .failure:
        observer(Exchange(request: request, status: nil, headers: HTTPHeaders(), body: Data(), stub: stub))
      }
    }
    if case .failure(let error) = delivery, let problem = error as? DoppelError {
      issueReporter.report(DoppelIssue(problem.message, location: stub?.location))
    }
    return Playback(
      delivery: delivery, timing: response.timing, stub: stub, unmatchedReport: unmatchedReport,
      webSocket: response.webSocket == nil ? nil : response)
  }

  /// `response` as decided for one request, with the stub's generator (or for an unmatched
  /// request, the backend's own), moved on unless `advancing` is false.
  private func decide(_ response: Response, stub: StubHandle?, advancing: Bool) -> Response {
    let (seed, epoch) = locked.withLock { ($0.seed, $0.seedEpoch) }
    if let stub { return stub.decide(response, seed: seed, epoch: epoch, advancing: advancing) }
    return locked.withLock { state in
      var generator =
        state.unmatchedRandom.flatMap { $0.epoch == epoch ? $0.generator : nil }
        ?? SplitMix64(seed: StubHandle.seed(backend: seed, order: -1))
      let decided = response.decided(&generator)
      state.unmatchedRandom = (epoch, generator)
      return decided
    }
  }

  /// Journals a request answered with an answer its stub built before for the same URL.
  func recordReused(_ answer: Delivery.Answer, for request: Request, stub: StubHandle) {
    // The entry is made under the lock, straight into its place in the journal (unless its body
    // is to be digested, which happens outside it).
    let observer: (@Sendable (Exchange) -> Void)?
    if request.body?.isEmpty == false {
      let digested = bounded(JournalEntry(request: request, stub: stub, outcome: .reused(answer)))
      observer = locked.withLock { state in
        _ = state.journal.append(digested)
        return state.exchangeObserver
      }
    } else {
      // Not `digested ?? JournalEntry(…)`, which builds an optional entry and copies it out.
      observer = locked.withLock { state in
        _ = state.journal.append(JournalEntry(request: request, stub: stub, outcome: .reused(answer)))
        return state.exchangeObserver
      }
    }
    if let observer {
      observer(
        Exchange(request: request, status: answer.status, headers: answer.headers, body: answer.body, stub: stub))
    }
  }

  /// Completes the journal entry in `slot`, or appends `entry` when there is no slot. Returns the
  /// exchange observer, read under the same lock, for the caller to call outside it.
  private func record(_ entry: JournalEntry, in slot: JournalSlot?) -> (@Sendable (Exchange) -> Void)? {
    let entry = bounded(entry)
    return locked.withLock { state in
      if let slot {
        state.journal.update(slot, with: entry)
      } else {
        _ = state.journal.append(entry)
      }
      return state.exchangeObserver
    }
  }

  /// The session stored in the backend, made by `make` on first use.
  func cachedSession(_ make: () -> URLSession) -> URLSession {
    locked.withLock { state in
      if let session = state.session { return session }
      let session = make()
      state.session = session
      return session
    }
  }

  /// The session unmatched requests go through under ``UnmatchedPolicy/passthrough``, and proxying
  /// stubs' requests (``Responder/proxy(to:recordingTo:redaction:)``). It does not
  /// follow redirects: a redirect comes back as it is and the backend follows it as it follows a
  /// stub's (or leaves it to the client, through the stub server), so each hop is journaled, and
  /// recorded, on its own.
  private var passthroughSession: URLSession {
    locked.withLock { state in
      if let session = state.passthroughSession { return session }
      let session = UpstreamFetch.makeSession()
      state.passthroughSession = session
      return session
    }
  }
}

/// Where a journal entry made before its answer was known lives, so it can be completed: its number
/// since the journal was last cleared. The generation changes when the journal is cleared, so a
/// stale slot is ignored.
struct JournalSlot: Sendable {
  let index: Int
  let generation: Int
}

/// A session delegate that refuses every redirect, so the task completes with the redirect itself.
/// `package`: `doppel drift` sends its requests through one too.
final class RefusingRedirects: NSObject, URLSessionTaskDelegate, Sendable {
  package func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(nil)
  }
}
