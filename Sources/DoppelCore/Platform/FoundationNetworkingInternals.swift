import Dispatch
@_spi(DoppelInternals) import DoppelToolkit
import Foundation

/// Reads what FoundationNetworking keeps private, with a safe answer when it cannot: the one place
/// Doppel reads another library's internals. Each read names the stored property it needs;
/// ``selfTest()`` checks every one of them against the running toolchain, and the benchmarks'
/// checks fail with the field's name when a toolchain renames or removes one.
///
/// Compiled on every platform: on Apple platforms `Mirror` finds none of these fields in
/// CFNetwork's Objective-C classes, and every read gives its safe answer (``Platform`` decides
/// whether a read is asked for at all).
package enum FoundationNetworkingInternals {
  /// Whether the task's callbacks go to a session delegate (so body pieces can be streamed to it),
  /// rather than to a completion handler or an `async` caller, which on Linux receive only the last
  /// piece given to URLSession. Must be called on the session's queue (inside `startLoading`, or
  /// in a block on the task's ``workQueue(of:)``).
  /// When the internals cannot be read, `false`: the body is then delivered whole, which is correct
  /// for every caller.
  static func streamsToDelegate(_ task: URLSessionTask) -> Bool {
    guard let session = child("session", of: task),
      let registry = child("taskRegistry", of: session),
      let behaviours = child("behaviours", of: registry) as? [Int: Any],
      let behaviour = behaviours[task.taskIdentifier]
    else { return false }
    return String(describing: behaviour) == "callDelegate"
  }

  /// The body an upload task holds (FoundationNetworking keeps it inside the task, off the
  /// request), or `nil` when there is none or it cannot be read.
  static func uploadBody(of task: URLSessionTask) -> Data? {
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
    // Only here: Apple's `URLSessionTaskDelegate` declares this callback an optional Objective-C
    // requirement (called as `urlSession?(…)`), FoundationNetworking a plain one, so one call
    // cannot compile on both; and only FoundationNetworking needs it (``Platform/reportsUploadProgress``).
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
  package static func workQueue(of task: URLSessionTask) -> DispatchQueue? {
    child("workQueue", of: task) as? DispatchQueue
  }

  /// The private fields read above, checked against the running toolchain: one message for each
  /// that cannot be read, naming the field and what Doppel does without it. Empty when all can be
  /// read, and on Apple platforms, which need none of them.
  package static func selfTest() -> [String] {
    guard Platform.current == .corelibs else { return [] }
    var problems: [String] = []
    func missing(_ path: String, _ consequence: String) {
      problems.append(
        "FoundationNetworking's \(path) cannot be read with this toolchain, so \(consequence). Update FoundationNetworkingInternals (Sources/Doppel/Platform) for the new field."
      )
    }
    let session = URLSession(configuration: .ephemeral)
    defer { session.invalidateAndCancel() }
    let url = URL(string: "http://127.0.0.1:9/doppel-self-test")!
    let task = session.dataTask(with: url)
    if child("workQueue", of: task) as? DispatchQueue == nil {
      missing(
        "URLSessionTask.workQueue",
        "answers that take time are delivered through the task's suspend and resume (half as fast)")
    }
    if let owner = child("session", of: task) {
      if let registry = child("taskRegistry", of: owner) {
        if child("behaviours", of: registry) as? [Int: Any] == nil {
          missing(
            "URLSession.taskRegistry.behaviours",
            "paced bodies are delivered whole, never piece by piece to a session delegate")
        }
      } else {
        missing(
          "URLSession.taskRegistry", "paced bodies are delivered whole, never piece by piece to a session delegate")
      }
    } else {
      missing(
        "URLSessionTask.session",
        "paced bodies are delivered whole and a session delegate gets no upload progress")
    }
    let upload = session.uploadTask(with: URLRequest(url: url), from: Data("x".utf8))
    if uploadBody(of: upload) != Data("x".utf8) {
      missing(
        "URLSessionUploadTask.knownBody",
        "body matchers and the journal see no body for upload tasks on sessions Doppel did not make")
    }
    return problems
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
