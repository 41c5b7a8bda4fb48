import Doppel
@_spi(DoppelInternals) import DoppelToolkit
import Foundation
import Testing

/// What a session delegate sees of a stubbed redirect, on each platform. On Apple platforms the
/// URLSession door hands the redirect to URLSession (`wasRedirectedTo`), so the delegate decides
/// and `currentRequest` follows, as with a real server. On Linux FoundationNetworking cannot take a
/// redirect from a `URLProtocol` (a fatal error), so Doppel follows it inside the engine: the
/// delegate is not asked and `currentRequest` stays the first request (README, "Platforms").
@Suite struct RedirectDelegateTests {
  final class RedirectLog: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // Safe: `asked` is only touched under `lock`.
    private let lock = NSLock()
    private var asked: [String] = []
    let follow: Bool

    init(follow: Bool) { self.follow = follow }

    var redirects: [String] { lock.withLock { asked } }

    func urlSession(
      _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
      newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
      lock.withLock { asked.append("\(response.statusCode) \(request.url?.path ?? "")") }
      completionHandler(follow ? request : nil)
    }
  }

  @Test func aFollowedRedirectIsSeenByTheDelegateOnlyOnApplePlatforms() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.test/old"), .redirect(to: "/new"))
    backend.stub(.get("https://api.test/new"), .text("moved here"))
    let log = RedirectLog(follow: true)
    let session = backend.makeSession(delegate: log)
    let url = try #require(URL(string: "https://api.test/old"))
    let box = Locked<URLSessionDataTask?>(nil)
    let body = await withCheckedContinuation { continuation in
      let task = session.dataTask(with: url) { data, _, _ in
        continuation.resume(returning: data.map { String(decoding: $0, as: UTF8.self) })
      }
      box.withLock { $0 = task }
      task.resume()
    }
    let task = box.withLock { $0 }

    #expect(body == "moved here")
    #expect(task?.response?.url?.path == "/new")
    if onCorelibsFoundation {
      #expect(log.redirects == [])
      #expect(task?.currentRequest?.url?.path == "/old")
    } else {
      #expect(log.redirects == ["302 /new"])
      #expect(task?.currentRequest?.url?.path == "/new")
    }
  }

  @Test func aDeclinedRedirectGivesTheRedirectItselfOnApplePlatforms() async throws {
    let backend = Backend(issueReporter: .ignore)
    backend.stub(.get("https://api.test/old"), .redirect(to: "/new"))
    backend.stub(.get("https://api.test/new"), .text("moved here"))
    let log = RedirectLog(follow: false)
    let session = backend.makeSession(delegate: log)
    let (data, response) = try await session.data(from: try #require(URL(string: "https://api.test/old")))
    let status = (response as? HTTPURLResponse)?.statusCode
    if onCorelibsFoundation {
      // Doppel followed it before URLSession could ask; to get the 302 itself on Linux, stub it
      // with `.notFollowed()` or set `backend.followsRedirects = false`.
      #expect(status == 200)
      #expect(String(decoding: data, as: UTF8.self) == "moved here")
    } else {
      // As from a real server: the delegate declined, so the 302 completes the task.
      #expect(status == 302)
      #expect(log.redirects == ["302 /new"])
    }
  }
}
