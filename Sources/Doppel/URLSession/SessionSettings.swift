import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What the front door reads from the configuration of the session a request came from.
struct SessionSettings {
  private let configuration: URLSessionConfiguration?

  init(_ configuration: URLSessionConfiguration?) { self.configuration = configuration }

  /// The session's cookie storage, when it sends and stores cookies.
  var cookies: CookieJar? {
    guard let configuration, configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage
    else { return nil }
    return CookieJar(storage: storage, acceptPolicy: configuration.httpCookieAcceptPolicy)
  }

  /// The timeouts for `request`: its own `timeoutInterval` when it was set (anything but
  /// URLRequest's default of 60 seconds), else the session's `timeoutIntervalForRequest`; and the
  /// session's `timeoutIntervalForResource`. A custom URLProtocol never sees the session's values
  /// on Linux, which is why Doppel keeps the configuration it made.
  func timeouts(for request: URLRequest) -> Playback.Timeouts {
    let requestDefault: TimeInterval = 60
    var idle = request.timeoutInterval
    if idle == requestDefault, let configured = configuration?.timeoutIntervalForRequest { idle = configured }
    let total = configuration?.timeoutIntervalForResource ?? 7 * 24 * 3600
    return Playback.Timeouts(idle: .timeout(idle), total: .timeout(total))
  }
}

/// Reads what FoundationNetworking keeps private, with a safe answer when it cannot.
enum SessionInternals {
  /// Whether the task's callbacks go to a session delegate (so body pieces can be streamed to it),
  /// rather than to a completion handler or an `async` caller, which on Linux receive only the last
  /// piece given to URLSession. Must be called on the session's queue (inside `startLoading`, or
  /// in a block on the task's ``workQueue(of:)``).
  /// When the internals cannot be read, `false`: the body is then delivered whole, which is correct
  /// for every caller.
  static func streamsToDelegate(_ task: URLSessionTask) -> Bool {
    #if canImport(FoundationNetworking)
      guard let session = child("session", of: task),
        let registry = child("taskRegistry", of: session),
        let behaviours = child("behaviours", of: registry) as? [Int: Any],
        let behaviour = behaviours[task.taskIdentifier]
      else { return false }
      return String(describing: behaviour) == "callDelegate"
    #else
      return true
    #endif
  }

  /// The body an upload task holds (FoundationNetworking keeps it inside the task, off the
  /// request), or `nil` when there is none or it cannot be read.
  static func uploadBody(of task: URLSessionTask) -> Data? {
    #if canImport(FoundationNetworking)
      guard task is URLSessionUploadTask, let body = child("knownBody", of: task),
        let (kind, payload) = Mirror(reflecting: body).children.first.map({ ($0.label, $0.value) })
      else { return nil }
      switch kind {
      case "data":
        if let data = payload as? DispatchData { return Data(data) }
        return payload as? Data
      case "file":
        return (payload as? URL).flatMap { try? Data(contentsOf: $0) }
      default:
        return nil  // a stream stays on the request, where Request(_:) reads it
      }
    #else
      return nil
    #endif
  }

  /// How many body bytes FoundationNetworking's libcurl hands over at a time: a real upload
  /// reports its progress in pieces of this size (of 12 bytes less for a streamed body, which goes
  /// out chunked and shares the buffer with the chunk framing).
  static let uploadPieceSize = 65_536

  /// Tells the session delegate that the body of `task` was sent, as the real HTTP stack on Linux
  /// does for a body sent to a server: one `urlSession(_:task:didSendBodyData:…)` call per piece
  /// (see ``uploadPieceSize``) with the running total and the body's length (0 for a streamed
  /// body, as FoundationNetworking reports it). Only for a task whose callbacks go to a session
  /// delegate (the real stack calls no one else either). Enqueued on the delegate queue before the
  /// response, so the delegate sees the upload finish before the answer starts.
  /// `task.countOfBytesSent` stays 0: FoundationNetworking lets no one else set it.
  static func reportUploadProgress(of task: URLSessionTask, bodyLength: Int, lengthKnown: Bool) {
    #if canImport(FoundationNetworking)
      guard bodyLength > 0, streamsToDelegate(task), let session = child("session", of: task) as? URLSession,
        let delegate = session.delegate as? URLSessionTaskDelegate
      else { return }
      var pieces: [(sent: Int64, total: Int64)] = []
      var total = 0
      let size = lengthKnown ? uploadPieceSize : uploadPieceSize - 12
      while total < bodyLength {
        let piece = min(size, bodyLength - total)
        total += piece
        pieces.append((Int64(piece), Int64(total)))
      }
      let expected = lengthKnown ? Int64(bodyLength) : 0
      // Safe: the session, its delegate and the task are used on the session's delegate queue,
      // as URLSession itself uses them.
      let parts = UncheckedSendable((session, delegate, task))
      let reports = pieces
      session.delegateQueue.addOperation {
        let (session, delegate, task) = parts.value
        for piece in reports {
          delegate.urlSession(
            session, task: task, didSendBodyData: piece.sent, totalBytesSent: piece.total,
            totalBytesExpectedToSend: expected)
        }
      }
    #endif
  }

  /// The task's work queue: the serial queue FoundationNetworking calls `startLoading` and
  /// `stopLoading` on and expects the `URLProtocolClient` to be called on. `nil` when it cannot be
  /// read (elsewhere than Linux, or a FoundationNetworking without it).
  static func workQueue(of task: URLSessionTask) -> DispatchQueue? {
    #if canImport(FoundationNetworking)
      child("workQueue", of: task) as? DispatchQueue
    #else
      nil
    #endif
  }

  /// The stored property `name` of `subject` (or of its superclasses), unwrapped when optional.
  ///
  /// Reading a property through `Mirror` costs a type-name lookup for every property before it,
  /// so the position of each name found is remembered per class and read directly next time;
  /// the label read there is checked, and a mismatch falls back to the search.
  private static func child(_ name: String, of subject: Any) -> Any? {
    var mirror: Mirror? = Mirror(reflecting: subject)
    while let current = mirror {
      let key = FieldKey(type: ObjectIdentifier(current.subjectType), name: name)
      let children = current.children
      let known = fieldPositions.withLock { $0[key] }
      if let known, known < 0 {
        mirror = current.superclassMirror  // not a property of this class
        continue
      }
      if let known, known < children.count {
        let child = children[children.index(children.startIndex, offsetBy: known)]
        if child.label == name { return unwrap(child.value) }
      }
      var position = 0
      for child in children {
        if child.label == name {
          fieldPositions.withLock { $0[key] = position }
          return unwrap(child.value)
        }
        position += 1
      }
      fieldPositions.withLock { $0[key] = -1 }
      mirror = current.superclassMirror
    }
    return nil
  }

  private struct FieldKey: Hashable {
    let type: ObjectIdentifier
    let name: String
  }

  /// Where each property looked up was found, by class and name; -1 when the class has none of
  /// that name (its superclass is searched next). Types are never unloaded, so the keys stay valid.
  private static let fieldPositions = Locked<[FieldKey: Int]>([:])

  private static func unwrap(_ value: Any) -> Any? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return value }
    return mirror.children.first.map { unwrap($0.value) } ?? nil
  }
}
