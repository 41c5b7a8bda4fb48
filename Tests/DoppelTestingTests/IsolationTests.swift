import DoppelTesting
import Foundation
import Testing

/// The proof of isolation: hundreds of test cases run in parallel, each stubbing the same URLs
/// with bodies of its own and firing concurrent requests, and each sees only its own answers.
@Suite(.doppel { $0.stub(.get("https://api.example.com/shared"), .text("suite")) })
struct IsolationTests {
  static let requestsPerCase = 8

  @Test(.doppel, arguments: 0..<256)
  func everyResponseBelongsToItsOwnCase(number: Int) async throws {
    let backend = Backend.current
    let item = backend.stub(.get("https://api.example.com/item"), .text("item of case \(number)"))
    let users = backend.stub(.get("https://api.example.com/users/{id}")) { request in
      .text("user \(request.pathParameters["id"] ?? "?") of case \(number)")
    }
    #expect(backend.stubs.count == 3)

    let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
      for request in 0..<Self.requestsPerCase {
        group.addTask {
          let url =
            request.isMultiple(of: 2)
            ? "https://api.example.com/item" : "https://api.example.com/users/\(request)"
          return (request, try await Backend.current.session.text(url))
        }
      }
      group.addTask { (-1, try await Backend.current.session.text("https://api.example.com/shared")) }
      return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
    }

    for request in 0..<Self.requestsPerCase {
      let expected =
        request.isMultiple(of: 2) ? "item of case \(number)" : "user \(request) of case \(number)"
      #expect(bodies[request] == expected)
    }
    #expect(bodies[-1] == "suite")
    #expect(Backend.current === backend)
    #expect(backend.requests.count == Self.requestsPerCase + 1)
    #expect(backend.unmatchedRequests.isEmpty)
    #expect(item.callCount == Self.requestsPerCase / 2)
    #expect(users.callCount == Self.requestsPerCase / 2)
    #expect(backend.requests(matching: .path("/users/{id}")).count == Self.requestsPerCase / 2)
  }
}
