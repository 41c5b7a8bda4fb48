@_spi(DoppelInternals) import DoppelToolkit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking

  /// The `URLSession` a backend vends on Linux, where FoundationNetworking cannot serve some task
  /// types through a `URLProtocol`: it routes them through data tasks, which work.
  ///
  /// - Upload tasks (from data, from a file, streamed): FoundationNetworking keeps the body inside
  ///   the task, so the protocol would never see it. The body is put on the request as well, so
  ///   matchers and the journal see it.
  /// - Download tasks (completion handler, session delegate, `async`): FoundationNetworking gives no
  ///   file, or crashes. They run as data tasks whose body is written to a temporary file, handed to
  ///   the caller as a real download would be, and removed afterwards.
  ///
  /// On Apple platforms the plain `URLSession` already does all this, so it is used as is.
  final class DoppelSession: URLSession, @unchecked Sendable {
    // Safe: the subclass adds no stored state; URLSession itself is thread-safe.

    // MARK: Uploads

    override func uploadTask(with request: URLRequest, from bodyData: Data) -> URLSessionUploadTask {
      super.uploadTask(with: Self.request(request, body: bodyData), from: bodyData)
    }

    override func uploadTask(
      with request: URLRequest, from bodyData: Data?,
      completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionUploadTask {
      super.uploadTask(
        with: Self.request(request, body: bodyData), from: bodyData, completionHandler: completionHandler)
    }

    override func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
      super.uploadTask(with: Self.request(request, file: fileURL), fromFile: fileURL)
    }

    override func uploadTask(
      with request: URLRequest, fromFile fileURL: URL,
      completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionUploadTask {
      super.uploadTask(
        with: Self.request(request, file: fileURL), fromFile: fileURL, completionHandler: completionHandler)
    }

    private static func request(_ request: URLRequest, body: Data?) -> URLRequest {
      var copy = request
      if let body { copy.httpBody = body }
      return copy
    }

    private static func request(_ request: URLRequest, file: URL) -> URLRequest {
      // An unreadable file is left to URLSession, which fails the task as it would anyway.
      Self.request(request, body: try? Data(contentsOf: file))
    }

    // MARK: WebSockets

    /// FoundationNetworking cannot hand a WebSocket task to a `URLProtocol`: it first checks that its
    /// libcurl speaks WebSocket (most distributions' libcurl does not: the task fails with
    /// "WebSockets not supported by libcurl"), and a task's messages travel only through its own
    /// internal protocol class. So the task is made as usual (it fails on its own, or, with a
    /// WebSocket-capable libcurl, in ``DoppelURLProtocol`` with ``DoppelURLProtocol/webSocketProblem(for:)``) and the
    /// backend reports at once where WebSocket stubs are served.
    override func webSocketTask(with url: URL) -> URLSessionWebSocketTask {
      reportWebSocketTask(url)
      return super.webSocketTask(with: url)
    }

    // `webSocketTask(with:protocols:)` makes its task through `webSocketTask(with: URLRequest)`.

    override func webSocketTask(with request: URLRequest) -> URLSessionWebSocketTask {
      reportWebSocketTask(request.url)
      return super.webSocketTask(with: request)
    }

    private func reportWebSocketTask(_ url: URL?) {
      guard let route = (configuration.protocolClasses?.first as? DoppelURLProtocol.Type)?.routeID,
        let backend = BackendRegistry.shared.backend(route)
      else { return }
      backend.issueReporter.report(DoppelIssue(DoppelURLProtocol.webSocketProblem(for: url), location: nil))
    }

    // MARK: Downloads

    override func downloadTask(with url: URL) -> URLSessionDownloadTask {
      downloadTask(with: URLRequest(url: url))
    }

    override func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
      let delegate = UncheckedSendable(self.delegate as? URLSessionDownloadDelegate)
      let box = DownloadTaskBox()
      return makeDownload(request, box: box) { [unowned self] file, _, error in
        // Completion handlers run on the session's delegate queue, where delegate calls belong,
        // and the file exists until this returns.
        guard let outer = box.task, let downloadDelegate = delegate.value else { return }
        if let file { downloadDelegate.urlSession(self, downloadTask: outer, didFinishDownloadingTo: file) }
        downloadDelegate.urlSession(self, task: outer, didCompleteWithError: error)
      }
    }

    override func downloadTask(
      with url: URL, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDownloadTask {
      downloadTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    override func downloadTask(
      with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDownloadTask {
      makeDownload(request, box: DownloadTaskBox(), then: completionHandler)
    }

    /// A download task running as a data task: the body is written to a temporary file that exists
    /// while `then` runs and is removed afterwards.
    private func makeDownload(
      _ request: URLRequest, box: DownloadTaskBox,
      then: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionDownloadTask {
      let inner = super.dataTask(with: request) { data, response, error in
        guard error == nil, let data else {
          then(nil, response, error)
          return
        }
        let file = FileManager.default.temporaryDirectory
          .appendingPathComponent("Doppel-download-\(UUID().uuidString).tmp")
        do {
          try data.write(to: file)
        } catch {
          let message = "Doppel could not write the downloaded body to \(file.path): \(error.localizedDescription)"
          then(
            nil, response,
            URLError.described(.cannotCreateFile, message, url: request.url, userInfo: [NSUnderlyingErrorKey: error]))
          return
        }
        then(file, response, nil)
        try? FileManager.default.removeItem(at: file)
      }
      let task = DoppelDownloadTask(running: inner)
      box.task = task
      return task
    }
  }

  /// Lets the completion of a download reach the task object made after it.
  final class DownloadTaskBox: @unchecked Sendable {
    // Safe: written once before the task can be resumed, read after it completes.
    var task: DoppelDownloadTask?
  }

  /// A download task that runs a data task (see ``DoppelSession``).
  final class DoppelDownloadTask: URLSessionDownloadTask, @unchecked Sendable {
    // Safe: the only stored property is immutable; every call is forwarded to the thread-safe
    // data task.
    private let inner: URLSessionDataTask

    init(running inner: URLSessionDataTask) {
      self.inner = inner
      super.init()
    }

    override func resume() { inner.resume() }
    override func suspend() { inner.suspend() }
    override func cancel() { inner.cancel() }
    override func cancel(byProducingResumeData completionHandler: @escaping (Data?) -> Void) {
      inner.cancel()
      completionHandler(nil)
    }
    override var state: URLSessionTask.State { inner.state }
    override var taskIdentifier: Int { inner.taskIdentifier }
    override var originalRequest: URLRequest? { inner.originalRequest }
    override var currentRequest: URLRequest? { inner.currentRequest }
    override var response: URLResponse? { inner.response }
    override var error: (any Error)? { inner.error }
    override var countOfBytesReceived: Int64 { inner.countOfBytesReceived }
    override var countOfBytesExpectedToReceive: Int64 { inner.countOfBytesExpectedToReceive }
  }
#endif

extension Platform {
  /// Whether `URLSession.shared` is reached by putting the process-wide class first in its
  /// configuration's `protocolClasses` (Linux: `URLProtocol.registerClass` reaches it only if
  /// called before any session exists, and then only after the built-in HTTP handler), rather
  /// than by `URLProtocol.registerClass` (Apple platforms, where it is consulted first).
  var interceptsThroughSharedConfiguration: Bool { self == .corelibs }

  /// Whether `backend.session` is built from a shared prototype configuration whose cookie storage
  /// is reused once its session is gone: on Linux making `URLSessionConfiguration.ephemeral`
  /// costs about 80 µs (its URL cache looks up the cache directory). On Apple platforms a
  /// standalone `HTTPCookieStorage()` is not documented as a private store, so each session gets
  /// a fresh `.ephemeral` configuration.
  var reusesSessionStorages: Bool { self == .corelibs }

  /// A session for a backend. On Linux a ``DoppelSession``, which routes the task types
  /// FoundationNetworking cannot hand to a `URLProtocol` through ones it can; the subclass exists
  /// only there (Apple's `URLSession` initializers are class factories a subclass cannot call).
  func makeSession(
    configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?, delegateQueue: OperationQueue?
  ) -> URLSession {
    #if canImport(FoundationNetworking)
      DoppelSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    #else
      URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    #endif
  }
}
