import Doppel
import Foundation
import TestSupport
import Testing

/// Replacing every stub (how the stub server reloads its files) is one step: requests sent while
/// it happens meet the old stubs or the new ones, never none.
@Suite struct ReplaceStubsTests {
  @Test func requestsDuringAReplacementAlwaysFindAStub() async throws {
    let backend = quietBackend()
    backend.stub(.get("/a"), .text("old"))
    let fresh = quietBackend()
    for index in 0..<300 { fresh.stub(.get("/other/\(index)"), .ok) }
    fresh.stub(.get("/a"), .text("new"))
    let request = URLRequest(url: URL(string: "https://api.example.com/a")!)
    let failures = try await withThrowingTaskGroup(of: Int.self) { group in
      group.addTask {
        for _ in 0..<40 { backend.replaceStubs(with: fresh) }
        return 0
      }
      group.addTask {
        var failures = 0
        for _ in 0..<3_000 {
          do {
            let (data, _) = try await backend.respond(to: request)
            let text = String(decoding: data, as: UTF8.self)
            if text != "old" && text != "new" { failures += 1 }
          } catch {
            failures += 1
          }
        }
        return failures
      }
      return try await group.reduce(0, +)
    }
    #expect(failures == 0)
    #expect(backend.stubs.count == 301)
  }

  @Test func theNewStubsComeWithTheirStatesAndExpectations() async throws {
    let backend = quietBackend()
    let old = backend.stub(.get("/a"), .text("old"))
    let fresh = quietBackend()
    fresh.stub(.get("/a"), .text("after login")).requiresState("in").expect(times: 1)
    let handles = backend.replaceStubs(with: fresh)
    #expect(old.isRemoved)
    #expect(handles.count == 1)
    #expect(handles[0].requiredState == "in")
    #expect(handles[0].expectedCalls == 1...1)
  }
}
