import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import TestSupport
import Testing

@Suite struct TaskTypeTests {
  private func uploadBackend() -> Backend {
    let backend = quietBackend()
    backend.stub(.post("/upload") && .body("cat picture")) { request in
      .text("got \(request.body?.count ?? 0) bytes", status: 201)
    }
    return backend
  }

  private var uploadRequest: URLRequest {
    var request = URLRequest(url: URL(string: "https://a.com/upload")!)
    request.httpMethod = "POST"
    return request
  }

  @Test func uploadFromDataAsync() async throws {
    let backend = uploadBackend()
    let (data, response) = try await backend.session.upload(for: uploadRequest, from: Data("cat picture".utf8))
    #expect(String(decoding: data, as: UTF8.self) == "got 11 bytes")
    #expect((response as? HTTPURLResponse)?.statusCode == 201)
    #expect(backend.lastRequest?.bodyText == "cat picture")
  }

  @Test func uploadFromAFileWithACompletionHandler() async throws {
    let backend = uploadBackend()
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-upload-\(UUID()).txt")
    try Data("cat picture".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let session = backend.session
    let request = uploadRequest
    let text: String = try await withCheckedThrowingContinuation { continuation in
      session.uploadTask(with: request, fromFile: file) { data, _, error in
        if let error { return continuation.resume(throwing: error) }
        continuation.resume(returning: String(decoding: data ?? Data(), as: UTF8.self))
      }.resume()
    }
    #expect(text == "got 11 bytes")
    #expect(backend.journal.last?.isMatched == true)
  }

  @Test func uploadFromAFileAsync() async throws {
    let backend = uploadBackend()
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("doppel-upload-\(UUID()).txt")
    try Data("cat picture".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let (data, _) = try await backend.session.upload(for: uploadRequest, fromFile: file)
    #expect(String(decoding: data, as: UTF8.self) == "got 11 bytes")
  }

  @Test func streamedUpload() async throws {
    let backend = uploadBackend()
    var request = uploadRequest
    request.httpBodyStream = InputStream(data: Data("cat picture".utf8))
    let delegate = ChunkDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    session.uploadTask(withStreamedRequest: request).resume()
    let error = await delegate.completion()
    #expect(error == nil)
    #expect(delegate.chunks == ["got 11 bytes"])
    #expect(backend.lastRequest?.bodyText == "cat picture")
  }

  /// A streamed upload whose body only the session's delegate would give (`needNewBodyStream`):
  /// the protocol never sees it, so Doppel fails the task loudly rather than answer a request
  /// without its body. On Apple platforms the same happens to any upload task whose body URLSession
  /// keeps from the protocol.
  @Test func anUploadWhoseBodyTheProtocolCannotSeeFailsWithTheFix() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    backend.stub(.post("/upload"), .status(201))
    let delegate = ChunkDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    session.uploadTask(withStreamedRequest: uploadRequest).resume()
    let error = await delegate.completion() as? URLError
    let message =
      "The upload task for POST https://a.com/upload carries a body URLSession did not hand to Doppel's URLProtocol, so Doppel failed it instead of answering a request without its body. Send the body on the request (request.httpBody or request.httpBodyStream) with data(for:) or dataTask(with:), or on Linux use a session the backend made (backend.session or backend.makeSession(...)), which puts upload bodies on the request."
    #expect(error?.code == .resourceUnavailable)
    #expect(error?.localizedDescription == message)
    #expect(issues.all.map(\.message) == [message])
    #expect(backend.requests.isEmpty)
  }

  @Test func downloadWithACompletionHandlerGivesARealFile() async throws {
    let backend = quietBackend()
    backend.stub(.get("/cat.png"), .data(Data([0x89, 0x50, 0x4E, 0x47]), contentType: "image/png"))
    let session = backend.session
    let (contents, existed, status): (Data, Bool, Int) = try await withCheckedThrowingContinuation { continuation in
      session.downloadTask(with: URL(string: "https://a.com/cat.png")!) { location, response, error in
        if let error { return continuation.resume(throwing: error) }
        guard let location else { return continuation.resume(throwing: URLError(.cannotCreateFile)) }
        let data = (try? Data(contentsOf: location)) ?? Data()
        continuation.resume(
          returning: (
            data, FileManager.default.fileExists(atPath: location.path), (response as? HTTPURLResponse)?.statusCode ?? 0
          ))
      }.resume()
    }
    #expect(contents == Data([0x89, 0x50, 0x4E, 0x47]))
    #expect(existed)
    #expect(status == 200)
  }

  #if canImport(FoundationNetworking)
    /// Async `download(for:)` is not overridable and crashes FoundationNetworking through a
    /// URLProtocol: Doppel fails it with an error that names the alternatives instead.
    @Test func asyncDownloadFailsClearlyOnLinux() async throws {
      let issues = IssueCollector()
      let backend = Backend(issueReporter: issues.reporter)
      backend.stub(.get("/report.csv"), .text("a,b\n1,2\n"))
      do {
        _ = try await backend.session.download(from: URL(string: "https://a.com/report.csv")!)
        Issue.record("expected a failure")
      } catch let error as URLError {
        #expect(error.code == .resourceUnavailable)
        #expect(
          error.localizedDescription
            == "FoundationNetworking on Linux cannot complete a download task through a URLProtocol (async download(for:) and download(from:) crash, and a delegate gets no file), so Doppel failed GET https://a.com/report.csv instead. Use downloadTask(with:completionHandler:) or a delegate on a session made by the backend (backend.session or backend.makeSession(...)), which Doppel routes through a data task, or data(for:) and write the file yourself."
        )
        // Reported as well, so a test that swallows the error still fails.
        #expect(issues.all.map(\.message) == [error.localizedDescription])
      }
    }
  #else
    @Test func downloadAsync() async throws {
      let backend = quietBackend()
      backend.stub(.get("/report.csv"), .text("a,b\n1,2\n"))
      let (location, _) = try await backend.session.download(from: URL(string: "https://a.com/report.csv")!)
      #expect(try String(contentsOf: location, encoding: .utf8) == "a,b\n1,2\n")
    }
  #endif

  @Test func downloadWithASessionDelegate() async throws {
    let backend = quietBackend()
    backend.stub(.get("/cat.png"), .data(Data(repeating: 7, count: 100)))
    let delegate = DownloadDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    let task = session.downloadTask(with: URL(string: "https://a.com/cat.png")!)
    task.resume()
    let outcome = await delegate.outcome()
    #expect(outcome.contents == Data(repeating: 7, count: 100))
    #expect(outcome.error == nil)
    #expect(outcome.sameTask(as: task))
  }

  @Test func aFailedDownloadReportsTheError() async throws {
    let backend = quietBackend()
    backend.stub(.get("/gone"), .error(.notConnectedToInternet))
    let session = backend.session
    let error: URLError? = await withCheckedContinuation { continuation in
      session.downloadTask(with: URL(string: "https://a.com/gone")!) { location, _, error in
        continuation.resume(returning: location == nil ? error as? URLError : nil)
      }.resume()
    }
    #expect(error?.code == .notConnectedToInternet)
  }

  @Test func aDataTaskWithAPerTaskDelegate() async throws {
    let backend = quietBackend()
    backend.stub(.get("/x"), .text("per-task"))
    let (data, _) = try await backend.session.data(
      for: URLRequest(url: URL(string: "https://a.com/x")!), delegate: ChunkDelegate())
    #expect(String(decoding: data, as: UTF8.self) == "per-task")
  }
}

/// A download delegate that reads the file while it exists.
final class DownloadDelegate: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
  // Safe: all mutable state is inside `Locked`.
  struct Outcome: @unchecked Sendable {
    var contents: Data?
    var error: String?
    var task: URLSessionTask?
    func sameTask(as other: URLSessionTask) -> Bool { task === other }
  }

  private let state = Locked<(outcome: Outcome, done: Bool, waiter: CheckedContinuation<Outcome, Never>?)>(
    (Outcome(), false, nil))

  func outcome() async -> Outcome {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state -> Outcome? in
        if state.done { return state.outcome }
        state.waiter = continuation
        return nil
      }
      if let done { continuation.resume(returning: done) }
    }
  }

  func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
    let data = try? Data(contentsOf: location)
    state.withLock { $0.outcome.contents = data }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    let waiter = state.withLock { state -> (CheckedContinuation<Outcome, Never>, Outcome)? in
      state.outcome.error = error.map { "\($0)" }
      state.outcome.task = task
      state.done = true
      defer { state.waiter = nil }
      return state.waiter.map { ($0, state.outcome) }
    }
    waiter.map { $0.0.resume(returning: $0.1) }
  }
}
