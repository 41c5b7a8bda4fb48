#if Server
  import Doppel
  import Foundation
  import NIOCore
  import NIOHTTP1

  extension StubHTTPHandler {
    /// Starts playing `playback`: its beats in order, each after its wait on the backend's clock.
    func play(_ playback: FrontDoorPlayback, request: Request, target: String, context: ChannelHandlerContext) {
      if let report = core.configuration.onRequest {
        report(served(playback, request: request, target: target))
      }
      guard !playback.never else {
        state = .silent
        return
      }
      if let whole = playback.wholeAnswer, whole.status >= 200, !playback.isPassthrough {
        // The common case: head, body and end at once, from what was made of the answer before.
        let prepared = whole.prepared { PreparedAnswer(whole) }
        if let problem = prepared.problem {
          respond(500, problem, context: context)
          return
        }
        writeHead(prepared.status, prepared.headers, closes: prepared.closes, context: context)
        if let file = whole.file {
          // A large file body goes out from disk, a piece at a time, as the client takes them.
          writeFileThenEnd(file, context: context)
          return
        } else if let body = prepared.body {
          context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        } else if !whole.body.isEmpty {
          // A large body goes out in pieces, as the client takes them.
          writeBodyThenEnd(whole.body, context: context)
          return
        }
        end(context)
        return
      }
      if playback.isPassthrough, let whole = playback.wholeAnswer, whole.status >= 200, let file = whole.file {
        // An upstream's answer too large to hold, spooled to disk as it came: sent from there.
        let fields = FrontDoorPlayback.reframed(
          whole.headers, status: whole.status, bodyLength: file.length, isHead: false)
        if let problem = fields.unsendableField {
          respond(500, problem, context: context)
          return
        }
        var headers = NIOHTTP1.HTTPHeaders()
        for field in fields { headers.add(name: field.name, value: field.value) }
        writeHead(whole.status, headers, context: context)
        writeFileThenEnd(file, context: context)
        return
      }
      beats = playback.isPassthrough ? playback.reframedBeats(forHead: request.method == .head) : playback.beats
      nextBeat = 0
      remainingSteps = []
      waitedForNextBeat = false
      advance(context)
    }

    /// Writes `body` (in pieces, as the channel can take them; see ``writeUnsentBody(_:)``), then
    /// ends the response.
    func writeBodyThenEnd(_ body: Data, context: ChannelHandlerContext) {
      beats = []
      nextBeat = 0
      remainingSteps = [.body(body), .end]
      advance(context)
    }

    /// Performs beats until one needs a wait (scheduled), the channel cannot take more bytes (the
    /// rest waits for `channelWritabilityChanged`), or the response is over.
    func advance(_ context: ChannelHandlerContext) {
      while true {
        if unsentBody != nil {
          guard writeUnsentBody(context) else { return }
        }
        if unsentFile != nil {
          guard sendUnsentFile(context) else { return }
        }
        if let step = remainingSteps.popFirst() {
          guard perform(step, context: context) else { return }
          continue
        }
        context.flush()
        guard nextBeat < beats.count else { return }
        let beat = beats[nextBeat]
        if beat.wait > .zero && !waitedForNextBeat {
          waitedForNextBeat = true
          schedule(after: beat.wait, context: context)
          return
        }
        waitedForNextBeat = false
        nextBeat += 1
        remainingSteps = beat.steps[...]
      }
    }

    /// Writes the body bytes not yet written, ``bodyChunkSize`` at a time, while the channel is
    /// writable: `true` when all are written, `false` when the rest waits for the client to read
    /// (``StubHTTPHandler/channelWritabilityChanged(context:)`` resumes). So a client that does not
    /// read holds at most the channel's high water mark and one piece, not the whole body.
    private func writeUnsentBody(_ context: ChannelHandlerContext) -> Bool {
      guard let body = unsentBody else { return true }
      while unsentOffset < body.count {
        guard context.channel.isWritable else {
          awaitingWritability = true
          context.flush()
          return false
        }
        let start = body.startIndex + unsentOffset
        let end = body.startIndex + min(body.count, unsentOffset + Self.bodyChunkSize)
        let buffer = context.channel.allocator.buffer(bytes: body[start..<end])
        unsentOffset = end - body.startIndex
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
      }
      unsentBody = nil
      unsentOffset = 0
      return true
    }

    /// Continues after a wait, unless the connection or the answer moved on.
    private func resume(expected: Int, context: ChannelHandlerContext) {
      guard isActive, generation == expected, case .answering = state else { return }
      pending = nil
      advance(context)
    }

    /// Waits on the event loop's timer when the backend runs on the continuous clock (no task, no
    /// thread hop), otherwise in a task sleeping on the backend's clock (a `ManualClock` in tests).
    private func schedule(after wait: Duration, context: ChannelHandlerContext) {
      let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
      let boundContext = context.loopBound
      let expected = generation
      let eventLoop = context.eventLoop
      guard let backend, !(backend.clock is ContinuousClock) else {
        let (seconds, attoseconds) = wait.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let amount = TimeAmount.nanoseconds(
          nanoseconds.overflow ? .max : nanoseconds.partialValue &+ attoseconds / 1_000_000_000)
        pending = .scheduled(
          eventLoop.scheduleTask(in: amount) {
            handler.value.resume(expected: expected, context: boundContext.value)
          })
        return
      }
      pending = .task(
        Task {
          guard await backend.sleepOnClock(for: wait) else { return }
          eventLoop.execute {
            handler.value.resume(expected: expected, context: boundContext.value)
          }
        })
    }

    /// Performs one step; `false` when the response is over (ended or failed).
    private func perform(_ step: FrontDoorPlayback.Step, context: ChannelHandlerContext) -> Bool {
      switch step {
      case .head(let status, _) where status < 200:
        respond(
          500,
          "A stub answered with status \(status), an interim (1xx) status that cannot end an HTTP exchange. Use a status from 200 to 599.",
          context: context)
        return false
      case .head(let status, let fields):
        if let problem = fields.unsendableField {
          respond(500, problem, context: context)
          return false
        }
        var headers = NIOHTTP1.HTTPHeaders()
        headers.reserveCapacity(fields.count + 1)
        for field in fields { headers.add(name: field.name, value: field.value) }
        writeHead(status, headers, context: context)
        return true
      case .body(let data):
        guard !data.isEmpty else { return true }
        // Written by `advance`, in pieces.
        unsentBody = data
        unsentOffset = 0
        return true
      case .end:
        end(context)
        return false
      case .fail(let failure):
        fail(failure, context: context)
        return false
      }
    }

    /// Plays a failure: an error response when nothing was sent yet and HTTP can say it, otherwise
    /// a fault on the connection.
    private func fail(_ failure: FrontDoorFailure, context: ChannelHandlerContext) {
      guard !headSent else {
        // The body is cut off: the client gets less than the head announced.
        context.flush()
        if case .reset = failure { reset(context) } else { close(context) }
        return
      }
      switch failure {
      case .unmatched(let report):
        respond(
          core.configuration.unmatchedStatus, report, extraHeaders: [("X-Doppel-Unmatched", "1")], context: context)
      case .reset:
        reset(context)
      case .connectionLost, .emptyResponse:
        close(context)
      case .malformedChunk(let bytes), .randomBytes(let bytes):
        state = .closing
        timeouts.sendRawThenClose(bytes)
      case .timedOut:
        state = .silent
      case .problem(let message):
        respond(500, "Doppel could not answer with the stub: \(message)", context: context)
      case .error(let error):
        if error is URLError {
          reset(context)
        } else {
          respond(500, "The stub failed with an error: \(error)", context: context)
        }
      }
    }

    // MARK: Reporting

    /// What the log line says about this answer.
    private func served(_ playback: FrontDoorPlayback, request: Request, target: String) -> ServedRequest {
      var status: Int?
      var notes: [String] = []
      var bodyBytes = 0
      var headSeen = false
      if let first = playback.beats.first, first.wait > .zero { notes.append("after \(Self.format(first.wait))") }
      if playback.never { notes.append("no response (it never comes)") }
      steps: for beat in playback.beats {
        for step in beat.steps {
          switch step {
          case .head(let code, _) where code < 200:
            status = 500
            notes.append("the stub's status \(code) is interim")
            break steps
          case .head(_, let fields) where fields.unsendableField != nil:
            status = 500
            notes.append("a header of the stub cannot be sent")
            break steps
          case .head(let code, _):
            status = code
            headSeen = true
          case .body(let data):
            bodyBytes += data.count
          case .end:
            break steps
          case .fail(let failure):
            if headSeen {
              notes.append(
                failure.isReset
                  ? "connection reset after \(bodyBytes) body bytes"
                  : "connection dropped after \(bodyBytes) body bytes")
            } else {
              describe(failure, request: request, status: &status, notes: &notes)
            }
            break steps
          }
        }
      }
      if playback.stub == nil && playback.unmatchedReport != nil && status != nil && notes.isEmpty {
        notes.append("no stub matched; answered by the unmatched policy")
      } else if playback.stub == nil && playback.unmatchedReport == nil {
        notes.append("passed through to the network")
      }
      return ServedRequest(
        request: request, target: target, stub: playback.stub, status: status, outcome: notes.joined(separator: ", "))
    }

    private func describe(_ failure: FrontDoorFailure, request: Request, status: inout Int?, notes: inout [String]) {
      switch failure {
      case .unmatched:
        status = core.configuration.unmatchedStatus
        var note = "no stub matched"
        if let backend, let (stub, differences) = backend.closestStub(to: request) {
          let what =
            differences.isEmpty
            ? "" : "; \(differences.joined(separator: ", ")) \(differences.count == 1 ? "differs" : "differ")"
          note += " (closest: \(NearMissReport.described(stub.matcher))\(what))"
        }
        if let origin = NearMissReport.preflightOrigin(request) {
          note += "; a browser's CORS preflight from \(origin): --cors \(origin) answers it"
        } else {
          note += "; a stub for it: \(NearMissReport.manifestStub(request))"
        }
        notes.append(note)
      case .reset:
        notes.append("connection reset")
      case .connectionLost:
        notes.append("connection closed without a response")
      case .emptyResponse:
        notes.append("fault: empty response (connection closed before any byte)")
      case .malformedChunk:
        notes.append("fault: malformed chunk, then connection closed")
      case .randomBytes(let bytes):
        notes.append("fault: \(bytes.count) random bytes, then connection closed")
      case .timedOut:
        notes.append("no response (timed out)")
      case .problem(let message):
        status = 500
        notes.append(message)
      case .error(let error):
        if error is URLError {
          notes.append("connection reset (\(error))")
        } else {
          status = 500
          notes.append("the stub failed: \(error)")
        }
      }
    }

    private static func format(_ duration: Duration) -> String {
      let (seconds, attoseconds) = duration.components
      let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
      return milliseconds >= 1000 ? "\(milliseconds / 1000) s" : "\(Int(milliseconds.rounded())) ms"
    }
  }

  extension FrontDoorFailure {
    fileprivate var isReset: Bool {
      if case .reset = self { return true }
      return false
    }
  }
#endif
