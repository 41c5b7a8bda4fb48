import Doppel
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
  @_spi(DoppelInternals) import DoppelToolkit

  /// WebSocket stubs through the URLSession door on Linux: FoundationNetworking never passes a
  /// WebSocket task to a URLProtocol, so a backend's session says at once where they are served.
  @Suite(.timeLimit(.minutes(1))) struct WebSocketDoorTests {
    final class IssueLog: @unchecked Sendable {
      // Why `@unchecked` is safe: `messages` is only touched while `lock` is held.
      private let lock = NSLock()
      private var stored: [String] = []
      var messages: [String] { lock.withLock { stored } }
      func append(_ message: String) { lock.withLock { stored.append(message) } }
    }

    @Test func aWebSocketTaskOnTheSessionPointsToTheStubServer() async throws {
      let issues = IssueLog()
      let backend = Backend(issueReporter: IssueReporter { issues.append($0.message) })
      backend.stub(.path("/chat"), .webSocket(onConnect: [.send(.text("hello"))]))
      let task = backend.session.webSocketTask(with: URL(string: "ws://api.example.com/chat")!)
      #expect(
        issues.messages == [
          "A WebSocket task (ws://api.example.com/chat) cannot be stubbed through a backend's URLSession: URLSession never passes WebSocket tasks to a URLProtocol (on Linux nor on Apple platforms). Serve the backend with the stub server (DoppelServer: withStubServer(backend) { server in … }), stub the endpoint with .webSocket(onConnect:on:), and open the task on a plain URLSession to ws://127.0.0.1:<port>/<path>."
        ])
      task.resume()
      // The task fails at once: "WebSockets not supported by libcurl" with a distribution's
      // libcurl, the message above with a WebSocket-capable one.
      await #expect(throws: URLError.self) { try await task.receive() }
      #expect(backend.requests.isEmpty)
    }

    @Test func everyWayToMakeTheTaskReportsIt() {
      let issues = IssueLog()
      let backend = Backend(issueReporter: IssueReporter { issues.append($0.message) })
      let url = URL(string: "ws://api.example.com/chat")!
      _ = backend.session.webSocketTask(with: url)
      _ = backend.session.webSocketTask(with: url, protocols: ["chat"])
      _ = backend.session.webSocketTask(with: URLRequest(url: url))
      #expect(issues.messages.count == 3)
    }
  }
#endif
