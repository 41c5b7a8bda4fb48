import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import TestHTTPServer
import Testing

/// A session delegate's `didSendBodyData` for stubbed uploads: the totals a real server produces.
@Suite(.timeLimit(.minutes(1))) struct UploadProgressTests {
  /// Records what a session delegate is told, in order.
  final class ProgressDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Why `@unchecked` is safe: `events` and `done` are only touched while `lock` is held.
    private let lock = NSLock()
    private var events: [String] = []
    private var done: CheckedContinuation<Void, Never>?

    var log: [String] { lock.withLock { events } }
    /// The `didSendBodyData` calls, as `bytesSent/totalBytesSent/totalBytesExpectedToSend`.
    var progress: [String] { log.filter { !$0.hasPrefix("response") && !$0.hasPrefix("complete") } }

    func run(_ start: () -> Void) async {
      await withCheckedContinuation { continuation in
        lock.withLock { done = continuation }
        start()
      }
    }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
      totalBytesExpectedToSend: Int64
    ) {
      lock.withLock { events.append("\(bytesSent)/\(totalBytesSent)/\(totalBytesExpectedToSend)") }
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
      lock.withLock { events.append("response") }
      completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
      let continuation = lock.withLock {
        events.append("complete")
        return done
      }
      continuation?.resume()
    }
  }

  enum Kind: String, CaseIterable, Sendable {
    case uploadTask, dataTaskWithBody, dataTaskWithBodyStream
  }

  static func start(_ kind: Kind, session: URLSession, url: URL, body: Data) {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    switch kind {
    case .uploadTask:
      session.uploadTask(with: request, from: body).resume()
    case .dataTaskWithBody:
      request.httpBody = body
      session.dataTask(with: request).resume()
    case .dataTaskWithBodyStream:
      request.httpBodyStream = InputStream(data: body)
      session.dataTask(with: request).resume()
    }
  }

  /// 64 KiB pieces with running totals, as FoundationNetworking reports a body sent to a server
  /// (a streamed body goes out chunked: 12 bytes of each piece are framing, and the length is 0).
  static func expected(_ size: Int, _ kind: Kind) -> [String] {
    let streamed = kind == .dataTaskWithBodyStream
    let pieceSize = streamed ? 65_524 : 65_536
    return stride(from: 0, to: size, by: pieceSize).map { start in
      let piece = min(pieceSize, size - start)
      return "\(piece)/\(start + piece)/\(streamed ? 0 : size)"
    }
  }

  /// Linux only: FoundationNetworking reports no progress for a body a `URLProtocol` consumes, so
  /// Doppel reports it in libcurl's pieces (``expected(_:_:)``). On Apple platforms Doppel adds
  /// none: whatever CFNetwork reports for a protocol's upload is what the delegate sees, and only a
  /// Mac run can say what that is (the project notes list it).
  @Test(
    .enabled(if: onCorelibsFoundation, "libcurl's 64 KiB pieces; Apple platforms report their own progress"),
    arguments: Kind.allCases, [10, 100_000, 1_000_000])
  func theDelegateSeesTheBodySentInPiecesBeforeTheResponse(kind: Kind, size: Int) async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.post("https://api.example.com/upload"), .text("stored", status: 201))
    let delegate = ProgressDelegate()
    let session = backend.makeSession(delegate: delegate)
    let body = Data(repeating: 7, count: size)
    await delegate.run {
      Self.start(kind, session: session, url: URL(string: "https://api.example.com/upload")!, body: body)
    }
    #expect(delegate.progress == Self.expected(size, kind))
    #expect(delegate.log.suffix(2) == ["response", "complete"])
    #expect(backend.requests.first?.body?.count == size)
  }

  /// The same upload to a real loopback server: the pieces add up to the same totals (the real
  /// stack reads the running total when the call is delivered, so its intermediate totals may lag).
  /// On Linux they come in libcurl's 64 KiB pieces; on Apple platforms CFNetwork picks its own
  /// piece sizes, and only the last total (the whole body) is the same.
  @Test(arguments: Kind.allCases) func aRealServerReportsTheSameTotals(kind: Kind) async throws {
    let server = try TestHTTPServer.start { _ in .text("stored", status: 201) }
    defer { server.stop() }
    let delegate = ProgressDelegate()
    let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let size = 100_000
    await delegate.run {
      Self.start(kind, session: session, url: server.baseURL.appendingPathComponent("upload"), body: Data(count: size))
    }
    let calls = delegate.progress.map { $0.split(separator: "/").compactMap { Int($0) } }
    let expected = Self.expected(size, kind).map { $0.split(separator: "/").compactMap { Int($0) } }
    if onCorelibsFoundation {
      #expect(calls.map { $0[0] } == expected.map { $0[0] })
      #expect(calls.last == expected.last)
    } else {
      #expect(calls.last?[1] == size)
    }
  }

  @Test func aCompletionHandlerTaskReportsNoProgressLikeTheRealStack() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.post("https://api.example.com/upload"), .text("stored"))
    let delegate = ProgressDelegate()
    let session = backend.makeSession(delegate: delegate)
    var request = URLRequest(url: URL(string: "https://api.example.com/upload")!)
    request.httpMethod = "POST"
    let (data, _) = try await session.upload(for: request, from: Data(count: 1_000))
    #expect(String(decoding: data, as: UTF8.self) == "stored")
    #expect(delegate.progress.isEmpty)
  }
}
