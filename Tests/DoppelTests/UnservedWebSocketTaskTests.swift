import Doppel
import Foundation
import Testing

/// On Apple platforms URLSession never hands a WebSocket task to a backend's protocol: a task made
/// on `backend.session`, or on a session made with the caller's own delegate, is reported, and fails
/// at once without leaving the machine (Linux's sessions are tested in `WebSocketDoorTests`).
@Suite(.timeLimit(.minutes(1))) struct UnservedWebSocketTaskTests {
  private static let message =
    "cannot be stubbed through a backend's URLSession: URLSession never passes WebSocket tasks to a URLProtocol (on Linux nor on Apple platforms). Serve the backend with the stub server (DoppelServer: withStubServer(backend) { server in … }), stub the endpoint with .webSocket(onConnect:on:), and open the task on a plain URLSession to ws://127.0.0.1:<port>/<path>."

  /// Were the task to get past, `.invalid` never resolves: a task that went direct would fail
  /// with `.cannotFindHost` after a DNS query.
  @Test(.enabled(if: !onCorelibsFoundation, "Apple's URLSession only"))
  func onApplePlatformsBackendSessionReportsAWebSocketTaskAsItIsMade() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let socket = backend.session.webSocketTask(with: try #require(URL(string: "ws://doppel.invalid/chat")))
    socket.resume()
    let error = await #expect(throws: URLError.self) { _ = try await socket.receive() }
    #expect(error?.code != .cannotFindHost)
    #expect(issues.all.map(\.message) == ["A WebSocket task (ws://doppel.invalid/chat) \(Self.message)"])
    #expect(backend.requests.isEmpty)
  }

  /// A session made with the caller's own delegate gets the same defence, and the caller's
  /// delegate still gets its calls (`RedirectDelegateTests` shows the redirect ones on Apple
  /// platforms).
  @Test(.enabled(if: !onCorelibsFoundation, "Apple's URLSession only"))
  func onApplePlatformsASessionWithItsOwnDelegateReportsAWebSocketTaskToo() async throws {
    let issues = IssueCollector()
    let backend = Backend(issueReporter: issues.reporter)
    let session = backend.makeSession(delegate: RedirectDelegateTests.RedirectLog(follow: true))
    defer { session.invalidateAndCancel() }
    let socket = session.webSocketTask(with: try #require(URL(string: "ws://doppel.invalid/chat")))
    socket.resume()
    let error = await #expect(throws: URLError.self) { _ = try await socket.receive() }
    #expect(error?.code != .cannotFindHost)
    #expect(issues.all.map(\.message) == ["A WebSocket task (ws://doppel.invalid/chat) \(Self.message)"])
  }
}
