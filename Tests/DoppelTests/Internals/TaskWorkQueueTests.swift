import Foundation
import TestSupport
import Testing

@testable import Doppel

/// FoundationNetworking's internals (`FoundationNetworkingInternals`) still hold the task's work
/// queue that delayed answers hop onto on Linux: a compatibility check of the toolchain, since the
/// fallback (a slower hop) shows in no answer.
@Suite struct TaskWorkQueueTests {
  #if canImport(FoundationNetworking)
    /// Answers that take time reach URLSession through one `async` onto the task's work queue,
    /// read from FoundationNetworking's internals. If a FoundationNetworking hides that queue, Doppel
    /// falls back to the slower suspend/resume hop, and this test says so.
    @Test func theTasksWorkQueueIsFoundForTheHop() {
      let backend = quietBackend()
      let session = backend.makeSession()
      defer { session.invalidateAndCancel() }
      let first = session.dataTask(with: URL(string: "https://a.com/one")!)
      let second = session.dataTask(with: URL(string: "https://a.com/two")!)
      defer {
        first.cancel()
        second.cancel()
      }
      #expect(FoundationNetworkingInternals.workQueue(of: first) != nil)
      // Again, and for another task: read from the remembered position of the property.
      #expect(FoundationNetworkingInternals.workQueue(of: first) != nil)
      #expect(FoundationNetworkingInternals.workQueue(of: second) != nil)
      let queues = [first, second].map(FoundationNetworkingInternals.workQueue)
      #expect(queues[0] !== queues[1])
    }
  #endif
}
