@_spi(DoppelInternals) import DoppelToolkit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What the passthrough policy and proxying stubs fetch from a real server, taken a piece at a
/// time as the session decodes it (URLSession undoes `gzip`, `deflate` and, on Apple platforms,
/// `br` itself), so that no answer is ever whole in memory beyond ``memoryLimit``.
///
/// The first ``memoryLimit`` bytes are kept in memory; once an answer passes it, everything goes
/// to a file of its own in the temporary folder (readable by this user only), counted as it
/// arrives and digested with SHA-256 once complete, and the answer's body is that file: the stub
/// server sends it from disk as the client reads it, the journal and a cassette keep its length
/// and SHA-256, and the file is deleted when the last of them lets go of it. An answer of more than
/// ``spoolLimit`` bytes is not fetched to the end: the request fails, saying so.
package enum UpstreamFetch {
  /// The most bytes of one answer kept in memory: 16 MiB, the most Doppel decodes to scan a body
  /// for secrets. A larger answer is spooled to disk and recorded as its length and SHA-256.
  package static let memoryLimit = 16 << 20

  /// The most bytes of one answer spooled to disk: 4 GiB.
  static let spoolLimit: Int64 = 4 << 30

  /// Sends `request` through `session` (one made by ``makeSession()``) and returns the head and
  /// the body. Cancelling the calling task cancels the transfer (and deletes what was spooled).
  static func fetch(
    _ request: URLRequest, through session: URLSession, memoryLimit: Int = memoryLimit,
    spoolLimit: Int64 = spoolLimit
  ) async throws -> (response: URLResponse?, body: Response.Body) {
    guard let delegate = session.delegate as? Delegate else {
      // A session of another kind (never the case in Doppel itself): fetched whole.
      let (data, response) = try await session.data(for: request)
      return (response, Response.Body(source: .data(data), contentType: nil))
    }
    let task = session.dataTask(with: request)
    let collector = Collector(url: request.url, memoryLimit: memoryLimit, spoolLimit: spoolLimit)
    let (response, outcome) = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        collector.start(continuation)
        delegate.collectors.withLock { $0[task.taskIdentifier] = collector }
        task.resume()
      }
    } onCancel: {
      task.cancel()
    }
    switch outcome {
    case .memory(let data):
      return (response, Response.Body(source: .data(data), contentType: nil))
    case .spooled(let url, let length):
      // Digested here, after the transfer, rather than as the pieces come: the session hands
      // pieces over as fast as it decodes them and queues those not taken yet, so the delegate
      // only writes them to disk, which keeps up.
      let digest: String
      do {
        digest = try await onAThreadOfItsOwn { isCancelled in try digestOfFile(at: url, isCancelled: isCancelled) }
      } catch {
        SpoolFiles.delete(url)
        throw error
      }
      let spooled = SpooledBody(url: url, length: length, sha256: digest)
      return (response, Response.Body(source: .file(url, path: url.path), contentType: nil, spool: spooled))
    }
  }

  /// The SHA-256 of the file at `url`, read a mebibyte at a time; stops when `isCancelled` says
  /// so.
  private static func digestOfFile(at url: URL, isCancelled: () -> Bool) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hasher = SHA256.Hasher()
    while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
      if isCancelled() { throw CancellationError() }
      hasher.update(piece)
    }
    return hasher.finishHex()
  }

  /// Runs `work` on a thread of its own and returns what it returns; cancelling the calling task
  /// makes `work`'s `isCancelled` return `true`.
  ///
  /// Digesting a spooled answer reads the whole file (seconds for a large one, more in a debug
  /// build). On Swift's cooperative pool, which has one thread a core, that would hold a thread
  /// for as long, and with two such answers on two cores every other task of the process (the
  /// stub server's deferred answers among them) waited until they were done.
  static func onAThreadOfItsOwn<T: Sendable>(
    _ work: @escaping @Sendable (_ isCancelled: @Sendable () -> Bool) throws -> T
  ) async throws -> T {
    let cancelled = Locked(false)
    // The result is handed over under a lock as well as through the continuation, so that
    // ThreadSanitizer sees the thread's writes happen before the caller reads them.
    let outcome = Locked<Result<T, any Error>?>(nil)
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
          let result = Result { try work { cancelled.withLock { $0 } } }
          outcome.withLock { $0 = result }
          continuation.resume()
        }
      }
    } onCancel: {
      cancelled.withLock { $0 = true }
    }
    // Set before the continuation resumed.
    guard let result = outcome.withLock({ $0 }) else { throw CancellationError() }
    return try result.get()
  }

  /// A body as it was taken: in memory, or in a file of `length` bytes.
  enum Outcome: Sendable {
    case memory(Data)
    case spooled(URL, length: Int)
  }

  /// A session for upstream requests: ephemeral (or `configuration`), never following a redirect
  /// (each hop comes back to the caller, and is journaled and recorded on its own), and
  /// delivering bodies in pieces.
  package static func makeSession(configuration: URLSessionConfiguration = .ephemeral) -> URLSession {
    URLSession(configuration: configuration, delegate: Delegate(), delegateQueue: nil)
  }

  /// Sends `request` through `session` (one made by ``makeSession(configuration:)``) and returns
  /// the head and the whole body, which must be at most `limit` bytes once decoded: a larger
  /// answer is not fetched to the end, and the request fails saying so (`doppel drift`, which
  /// compares bodies in memory).
  package static func data(
    for request: URLRequest, through session: URLSession, limit: Int = memoryLimit
  ) async throws -> (response: URLResponse?, data: Data) {
    let (response, body) = try await fetch(request, through: session, memoryLimit: limit, spoolLimit: 0)
    guard case .data(let data) = body.source else { return (response, Data()) }
    return (response, data)
  }

  /// The session's delegate: refuses redirects, and hands each task's pieces to its collector.
  final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
    let collectors = Locked<[Int: Collector]>([:])

    func urlSession(
      _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
      newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      completionHandler(nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      guard let collector = collectors.withLock({ $0[dataTask.taskIdentifier] }) else { return }
      if !collector.append(data) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
      guard let collector = collectors.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
      collector.finish(response: task.response, error: error)
    }
  }

  /// One answer's body as it arrives.
  final class Collector: Sendable {
    private struct State {
      var continuation: CheckedContinuation<(URLResponse?, Outcome), any Error>?
      var memory = Data()
      var spool: (url: URL, handle: FileHandle)?
      var length: Int64 = 0
      var failure: (any Error)?
    }

    private let url: URL?
    private let memoryLimit: Int
    private let spoolLimit: Int64
    private let state = Locked(State())

    init(url: URL?, memoryLimit: Int, spoolLimit: Int64) {
      self.url = url
      self.memoryLimit = memoryLimit
      self.spoolLimit = spoolLimit
    }

    func start(_ continuation: CheckedContinuation<(URLResponse?, Outcome), any Error>) {
      state.withLock { $0.continuation = continuation }
    }

    /// Takes a piece; `false` when the transfer must stop (the answer is too large, or the spool
    /// cannot be written).
    func append(_ data: Data) -> Bool {
      state.withLock { state in
        guard state.failure == nil else { return false }
        state.length += Int64(data.count)
        if state.spool == nil && state.memory.count + data.count <= memoryLimit {
          state.memory.append(data)
          return true
        }
        guard spoolLimit > 0 else {
          state.failure = DoppelError.usage(
            "The answer to \(url?.absoluteString ?? "the request") is more than \(memoryLimit >> 20) MiB once decoded, more than Doppel compares in memory; it was not fetched to the end."
          )
          return false
        }
        guard state.length <= spoolLimit else {
          state.failure = DoppelError.usage(
            "The upstream's answer to \(url?.absoluteString ?? "the request") is more than \(spoolLimit >> 30) GiB once decoded, more than Doppel spools to disk for one answer; it was not fetched to the end. Fetch it without Doppel in between."
          )
          return false
        }
        do {
          if state.spool == nil {
            state.spool = try Self.makeSpool()
            try state.spool?.handle.write(contentsOf: state.memory)
            state.memory = Data()
          }
          try state.spool?.handle.write(contentsOf: data)
          return true
        } catch {
          state.failure = DoppelError.file(
            "Could not keep the upstream's answer to \(url?.absoluteString ?? "the request") on disk (it is more than \(memoryLimit >> 20) MiB, which Doppel does not hold in memory): \(error.localizedDescription). Free some space in \(FileManager.default.temporaryDirectory.path)."
          )
          return false
        }
      }
    }

    func finish(response: URLResponse?, error: (any Error)?) {
      let (continuation, result) = state.withLock {
        state -> (CheckedContinuation<(URLResponse?, Outcome), any Error>?, Result<Outcome, any Error>) in
        defer {
          state.continuation = nil
          state.memory = Data()
        }
        let spool = state.spool
        state.spool = nil
        try? spool?.handle.close()
        if let failure = state.failure ?? error {
          if let spool { SpoolFiles.delete(spool.url) }
          return (state.continuation, .failure(failure))
        }
        guard let spool else { return (state.continuation, .success(.memory(state.memory))) }
        return (state.continuation, .success(.spooled(spool.url, length: Int(state.length))))
      }
      switch result {
      case .success(let outcome): continuation?.resume(returning: (response, outcome))
      case .failure(let error): continuation?.resume(throwing: error)
      }
    }

    /// A new file for one answer, readable and writable by this user only (listed in
    /// ``SpoolFiles`` until it is deleted).
    private static func makeSpool() throws -> (url: URL, handle: FileHandle) {
      let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "doppel-upstream-\(UUID().uuidString).body")
      guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
      else {
        throw DoppelError.file("Could not create \(url.path).")
      }
      SpoolFiles.added(url)
      do {
        return (url, try FileHandle(forWritingTo: url))
      } catch {
        SpoolFiles.delete(url)
        throw error
      }
    }
  }
}

/// An upstream's answer kept on disk (see ``UpstreamFetch``): the file, its length and its
/// SHA-256. The file is deleted when the last value holding this goes away; a front door that
/// sends it opens it first, and an open file stays readable after it is deleted.
final package class SpooledBody: Sendable {
  let url: URL
  package let length: Int
  /// Lower-case hexadecimal.
  package let sha256: String

  init(url: URL, length: Int, sha256: String) {
    self.url = url
    self.length = length
    self.sha256 = sha256
  }

  deinit { SpoolFiles.delete(url) }
}

/// The spool files of this process not deleted yet. Each is deleted when the last value holding
/// it goes away, but a tool that ends first (Ctrl-C while an answer is sent from one) would leave
/// it in the temporary folder, up to the size of the answer: such a tool calls ``deleteAll()``
/// before it exits.
package enum SpoolFiles {
  private static let live = Locked(Set<URL>())

  static func added(_ url: URL) { live.withLock { _ = $0.insert(url) } }

  /// Deletes the file and forgets it.
  static func delete(_ url: URL) {
    live.withLock { _ = $0.remove(url) }
    try? FileManager.default.removeItem(at: url)
  }

  /// Deletes every spool file this process still has. A front door still sending one has it open,
  /// and an open file stays readable after it is deleted.
  package static func deleteAll() {
    for url in live.withLock({ live in
      defer { live.removeAll() }
      return live
    }) {
      try? FileManager.default.removeItem(at: url)
    }
  }
}
