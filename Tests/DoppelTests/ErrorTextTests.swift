import Doppel
import Foundation
import Testing

/// A failure Doppel makes prints as its message wherever it is printed or interpolated, on Linux
/// as on Apple platforms: never as `Error Domain=NSURLErrorDomain Code=… "(null)" UserInfo={…}`.
@Suite(.timeLimit(.minutes(2))) struct ErrorTextTests {
  private func failure(_ backend: Backend, _ request: URLRequest) async -> (any Error)? {
    do {
      _ = try await backend.session.data(for: request)
      return nil
    } catch {
      return error
    }
  }

  private func expectPrintsAsMessage(_ error: (any Error)?, _ message: String) {
    guard let error else {
      Issue.record("the request did not fail")
      return
    }
    #expect("\(error)" == message)
    #expect(String(describing: error) == message)
    #expect(error.localizedDescription == message)
  }

  @Test func anUnmatchedRequestPrintsAsItsReport() async {
    let backend = Backend(issueReporter: .ignore)
    let error = await failure(backend, URLRequest(url: URL(string: "https://a.com/x")!))
    expectPrintsAsMessage(
      error,
      """
      No stub matched GET https://a.com/x
      The backend has no stubs.
      Add a stub for this request; this one answers it (in Swift, or in a manifest):
        backend.stub(.get("https://a.com/x"), .status(200))
        {"request":"GET https://a.com/x","response":{"status":200}}
      """)
  }

  @Test func aGetWithABodyPrintsWhatURLSessionRefuses() async {
    let backend = Backend(issueReporter: .ignore)
    var request = URLRequest(url: URL(string: "https://a.com/x")!)
    request.httpBody = Data("a".utf8)
    expectPrintsAsMessage(
      await failure(backend, request),
      "GET https://a.com/x has a body, and URLSession refuses a GET with a body (URLError.dataLengthExceedsMaximum) without sending it. Send the data in the query, or use POST."
    )
  }

  @Test func aFaultAndADroppedConnectionPrintAsTheirMessages() async {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/reset"), .fault(.connectionReset))
    backend.stub(.get("/drop"), .text("abcdef").droppingConnection(afterBytes: 2))
    expectPrintsAsMessage(
      await failure(backend, URLRequest(url: URL(string: "https://a.com/reset")!)),
      "The connection was reset before a response arrived (Response.fault(.connectionReset)).")
    expectPrintsAsMessage(
      await failure(backend, URLRequest(url: URL(string: "https://a.com/drop")!)),
      "The network connection was lost.")
  }

  @Test func aRedirectLoopPrintsWhereToLook() async {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("/loop"), .redirect(to: "/loop"))
    expectPrintsAsMessage(
      await failure(backend, URLRequest(url: URL(string: "https://a.com/loop")!)),
      "GET https://a.com/loop redirected more than 16 times. Check the stubs' Location headers for a loop.")
  }

  @Test func aTimeoutPrintsAsURLSessionsMessage() async {
    let clock = ManualClock()
    let backend = Backend(issueReporter: .ignore, clock: clock)
    backend.stub(.get("/slow"), .text("late").delayed(by: .seconds(10)))
    var request = URLRequest(url: URL(string: "https://a.com/slow")!)
    request.timeoutInterval = 1
    let sent = request
    let load = Task { await failure(backend, sent) }
    await clock.waitForSleepers()
    clock.advance(by: .seconds(1))
    expectPrintsAsMessage(await load.value, "The request timed out.")
  }
}
