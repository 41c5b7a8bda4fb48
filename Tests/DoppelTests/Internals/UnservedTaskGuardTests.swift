import Foundation
import Testing

@testable import Doppel

/// The Apple-platform defences against tasks URLSession does not hand to a backend's protocol,
/// driven on Linux with real task objects (on Linux a backend's session is a ``DoppelSession``
/// instead, tested in `WebSocketDoorTests` and `TaskTypeTests`).
@Suite struct UnservedTaskGuardTests {
  @Test func aWebSocketTaskIsReportedAndCancelledBeforeItStarts() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let guardian = UnservedTaskGuard(backend: backend)
    let session = URLSession(configuration: .ephemeral)
    defer { session.invalidateAndCancel() }

    // A loopback address whose port refuses: were the task not cancelled, it would still not
    // leave the machine.
    let port = try #require(RefusingPort.port)
    let socket = session.webSocketTask(with: try #require(URL(string: "ws://127.0.0.1:\(port)/chat")))
    guardian.urlSession(session, didCreateTask: socket)
    // Cancelled before it started: its first receive fails at once (Linux reports the cancelled
    // socket as .networkConnectionLost), and the task is over.
    socket.resume()
    await #expect(throws: URLError.self) { _ = try await socket.receive() }
    #expect(socket.state == .canceling || socket.state == .completed)
    #expect(
      issues.all.map(\.message) == [
        "A WebSocket task (ws://127.0.0.1:\(port)/chat) cannot be stubbed through a backend's URLSession: URLSession never passes WebSocket tasks to a URLProtocol (on Linux nor on Apple platforms). Serve the backend with the stub server (DoppelServer: withStubServer(backend) { server in … }), stub the endpoint with .webSocket(onConnect:on:), and open the task on a plain URLSession to ws://127.0.0.1:<port>/<path>."
      ])

    let data = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:\(port)/breeds")))
    guardian.urlSession(session, didCreateTask: data)
    #expect(data.state == .suspended)
    #expect(issues.all.count == 1)
  }

  @Test func theRefusingProxyRefusesOnLoopbackAtOnce() async throws {
    let port = try #require(RefusingPort.port)
    let proxy = try #require(UnservedTaskGuard.refusingProxy)
    #expect(proxy["HTTPSProxy"] as? String == "127.0.0.1")
    #expect(proxy["HTTPSPort"] as? Int == Int(port))
    let session = URLSession(configuration: .ephemeral)
    defer { session.invalidateAndCancel() }
    let error = await #expect(throws: URLError.self) {
      _ = try await session.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/")))
    }
    #expect(error?.code == .cannotConnectToHost)
  }

  @Test func onlyApplePlatformsNeedTheGuard() {
    #expect(Platform.apple.guardsUnservedTasks)
    #expect(!Platform.corelibs.guardsUnservedTasks)
  }

  // MARK: What only a Mac can settle (skipped on Linux)

  @Test(.enabled(if: Platform.current == .apple, "Apple's URLSession only"))
  func onApplePlatformsBackendSessionReportsAWebSocketTaskAsItIsMade() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let port = try #require(RefusingPort.port)
    let socket = backend.session.webSocketTask(with: try #require(URL(string: "ws://127.0.0.1:\(port)/chat")))
    socket.resume()
    await #expect(throws: (any Error).self) { _ = try await socket.receive() }
    #expect(issues.all.count == 1)
    #expect(
      issues.all.first?.message.hasPrefix("A WebSocket task (ws://127.0.0.1:\(port)/chat) cannot be stubbed") == true)
  }

  /// A session made with the caller's own delegate gets the guard in front of it: its WebSocket
  /// task is reported and cancelled as for `backend.session`, and the caller's delegate still
  /// gets its calls (`RedirectDelegateTests` shows the redirect ones on Apple platforms). Were the
  /// task to get past, the refusing proxy would meet it: `.invalid` never resolves, and a task
  /// that went direct would fail with `.cannotFindHost` after a DNS query.
  @Test(.enabled(if: Platform.current == .apple, "Apple's URLSession only"))
  func onApplePlatformsASessionWithItsOwnDelegateReportsAWebSocketTaskToo() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let session = backend.makeSession(delegate: RedirectDelegateTests.RedirectLog(follow: true))
    defer { session.invalidateAndCancel() }
    let socket = session.webSocketTask(with: try #require(URL(string: "ws://doppel.invalid/chat")))
    socket.resume()
    let error = await #expect(throws: URLError.self) { _ = try await socket.receive() }
    #expect(error?.code != .cannotFindHost)
    #expect(
      issues.all.map(\.message).first?.hasPrefix("A WebSocket task (ws://doppel.invalid/chat) cannot be stubbed")
        == true)
  }

  /// Without an Objective-C runtime to forward through, the caller's delegate is used as it is
  /// (Linux, whose sessions need no guard); without one, the guard alone.
  @Test func theDelegateForASessionIsTheGuardOrForwardsToTheCallers() {
    let backend = Backend(issueReporter: .ignore)
    #expect(UnservedTaskGuard.delegate(for: backend, forwardingTo: nil) is UnservedTaskGuard)
    let log = RedirectDelegateTests.RedirectLog(follow: true)
    let made = UnservedTaskGuard.delegate(for: backend, forwardingTo: log)
    #if canImport(ObjectiveC)
      #expect(
        made.responds(
          to: #selector(
            URLSessionTaskDelegate.urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:))))
      #expect(made !== log)
    #else
      #expect(made === log)
    #endif
  }

  /// URLSession's loader thread runs a run loop while it calls `startLoading`, so every answer
  /// that takes time is delivered there, never from the clock's task.
  @Test(.enabled(if: Platform.current == .apple, "Apple's URLSession only"))
  func onApplePlatformsDelayedAnswersAreDeliveredOnTheLoadingThread() async throws {
    let before = DoppelURLProtocol.deliveriesOffTheLoadingThread.withLock { $0 }
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.test/late"), .text("late").delayed(by: .milliseconds(20)))
    let (data, _) = try await backend.session.data(from: try #require(URL(string: "https://api.test/late")))
    #expect(String(decoding: data, as: UTF8.self) == "late")
    #expect(DoppelURLProtocol.deliveriesOffTheLoadingThread.withLock { $0 } == before)
  }
}
