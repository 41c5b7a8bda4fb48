import Doppel
import Foundation
import TestSupport
import Testing

/// Every kind of URLSession task a backend's session serves.
@Suite struct URLSessionTaskTests {
  @Test func dataTaskWithACompletionHandler() async throws {
    let backend = quietBackend()
    backend.stub(.get("/breeds.json"), .text("[]"))
    let session = backend.session
    let (text, status): (String, Int) = try await withCheckedThrowingContinuation { continuation in
      session.dataTask(with: URL(string: "https://a.com/breeds.json")!) { data, response, error in
        if let error { return continuation.resume(throwing: error) }
        continuation.resume(
          returning: (String(decoding: data ?? Data(), as: UTF8.self), (response as? HTTPURLResponse)?.statusCode ?? 0))
      }.resume()
    }
    #expect(text == "[]")
    #expect(status == 200)
  }

  @Test func dataTaskWithASessionDelegate() async throws {
    let backend = quietBackend()
    backend.stub(.get("/breeds.json"), .text("hello delegate"))
    let delegate = RecordingDelegate()
    let session = backend.makeSession(delegate: delegate)
    defer { session.finishTasksAndInvalidate() }
    let outcome = await withCheckedContinuation { continuation in
      delegate.onComplete = { continuation.resume(returning: $0) }
      session.dataTask(with: URL(string: "https://a.com/breeds.json")!).resume()
    }
    #expect(outcome.status == 200)
    #expect(outcome.body == "hello delegate")
    #expect(outcome.error == nil)
  }

  @Test func cancellingWhileAHandlerRunsGivesCancelled() async throws {
    let backend = quietBackend()
    let (started, startedContinuation) = AsyncStream<Void>.makeStream()
    let (never, _) = AsyncStream<Void>.makeStream()
    backend.stub(.get("/slow")) { _ in
      startedContinuation.yield()
      for await _ in never {}
      return .text("too late")
    }
    let session = backend.session
    let task = Task { try await session.data(from: URL(string: "https://a.com/slow")!) }
    for await _ in started { break }
    task.cancel()
    do {
      _ = try await task.value
      Issue.record("expected cancellation")
    } catch let error as URLError {
      #expect(error.code == .cancelled)
    }
  }

  @Test func cancellingADataTaskBeforeItRuns() async throws {
    let backend = quietBackend()
    backend.stub(.get("/x"), .text("x"))
    let session = backend.session
    let error: URLError? = await withCheckedContinuation { continuation in
      let task = session.dataTask(with: URL(string: "https://a.com/x")!) { _, _, error in
        continuation.resume(returning: error as? URLError)
      }
      task.cancel()
      task.resume()
    }
    #expect(error?.code == .cancelled)
  }

  @Test func manyDeferredAnswersInFlightStayIntact() async throws {
    let backend = quietBackend()
    backend.stub(.get("/echo/{n}")) { request in .text(request.pathParameters["n"]!) }
    let session = backend.session
    try await withThrowingTaskGroup(of: (Int, String).self) { group in
      for n in 0..<300 {
        group.addTask {
          let (data, _) = try await session.data(from: URL(string: "https://a.com/echo/\(n)")!)
          return (n, String(decoding: data, as: UTF8.self))
        }
      }
      for try await (n, body) in group { #expect(body == String(n)) }
    }
  }
}

/// A session delegate that collects a data task's callbacks.
final class RecordingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  // Safe: the session calls the delegate on its serial delegate queue, and the test only reads the
  // result after completion.
  struct Outcome: Sendable {
    var status = 0
    var body = ""
    var error: String?
  }

  private var status = 0
  private var data = Data()
  var onComplete: (@Sendable (Outcome) -> Void)?

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    status = (response as? HTTPURLResponse)?.statusCode ?? 0
    completionHandler(.allow)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    self.data.append(data)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    onComplete?(Outcome(status: status, body: String(decoding: data, as: UTF8.self), error: error.map { "\($0)" }))
  }
}
