import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The URLSession front door: turns a `URLRequest` into a ``Request``, asks the backend, and plays
/// the answer back through the `URLProtocolClient`.
///
/// Delivery rules (see the Linux notes in the README):
/// - An answer known at once is delivered synchronously inside `startLoading`, on the session's
///   own queue. On Linux, calling the client from any other thread crashes URLSession once two
///   requests are in flight.
/// - An answer that needs time (a closure responder, a passthrough request) is computed in a task;
///   when it is ready, on Linux, the protocol suspends and resumes its own URLSession task so that
///   URLSession calls `startLoading` again on its queue, where the answer is delivered ("the hop").
///   The `stopLoading` caused by that suspend is ignored.
/// - Delivery and `stopLoading` share one lock, so nothing is delivered once the task is stopped.
class DoppelURLProtocol: URLProtocol {
  /// The backend this class routes to; 0 means none.
  class var backendID: UInt32 { 0 }

  private struct Loading {
    var stopped = false
    var finished = false
    var hopping = false
    var pending: Delivery?
    var work: Task<Void, Never>?
  }

  private let loading = Locked(Loading())

  override class func canInit(with request: URLRequest) -> Bool { true }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override class func requestIsCacheEquivalent(_ a: URLRequest, to b: URLRequest) -> Bool { false }

  override func startLoading() {
    let returning = loading.withLock { state -> Delivery? in
      guard state.hopping, let pending = state.pending else {
        // A first start, or a restart after the user's own suspend/resume: start over.
        state = Loading()
        return nil
      }
      state.pending = nil
      state.hopping = false
      return pending
    }
    if let returning {
      deliver(returning)
      return
    }
    let id = Self.backendID
    guard let backend = BackendRegistry.shared.backend(id) else {
      deliver(.failure(DoppelError(Self.missingBackendMessage(id: id, request: request))))
      return
    }
    switch backend.resolve(Request(request)) {
    case .now(let delivery):
      deliver(delivery)
    case .later(let work):
      let this = UncheckedSendable(self)
      let task = Task {
        let delivery = await work()
        this.value.deliverLater(delivery)
      }
      let cancelNow = loading.withLock { state -> Bool in
        state.work = task
        return state.stopped
      }
      if cancelNow { task.cancel() }
    }
  }

  override func stopLoading() {
    let work = loading.withLock { state -> Task<Void, Never>? in
      if state.hopping { return nil }  // the stop our own suspend/resume hop causes
      state.stopped = true
      defer { state.work = nil }
      return state.work
    }
    work?.cancel()
  }

  private func deliverLater(_ delivery: Delivery) {
    #if canImport(FoundationNetworking)
      let hop = loading.withLock { state -> Bool in
        guard !state.stopped, !state.finished else { return false }
        state.pending = delivery
        state.hopping = true
        return true
      }
      guard hop, let task else { return }
      task.suspend()
      task.resume()
    #else
      deliver(delivery)
    #endif
  }

  private func deliver(_ delivery: Delivery) {
    loading.withLock { state in
      guard !state.stopped, !state.finished, let client else { return }
      state.finished = true
      switch delivery {
      case .success(let answer):
        client.urlProtocol(self, didReceive: answer.httpURLResponse, cacheStoragePolicy: .notAllowed)
        if !answer.body.isEmpty { client.urlProtocol(self, didLoad: answer.body) }
        client.urlProtocolDidFinishLoading(self)
      case .failure(let error):
        client.urlProtocol(self, didFailWithError: Self.callerError(error, url: request.url))
      }
    }
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

/// Carries a non-Sendable value into a task.
struct UncheckedSendable<Value>: @unchecked Sendable {
  // Safe where used: a URLProtocol instance is only touched through `Locked` state, the
  // thread-safe `task.suspend()`/`resume()`, and client calls made under that lock.
  let value: Value
  init(_ value: Value) { self.value = value }
}
