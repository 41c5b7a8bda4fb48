import Foundation
import Testing

@testable import Doppel
@testable import DoppelCore
@testable import DoppelManifest
@testable import DoppelRecording
@_spi(DoppelInternals) @testable import DoppelToolkit

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
