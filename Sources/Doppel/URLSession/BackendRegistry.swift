/// Maps the small integer identity of each live backend to the backend, so that a `URLProtocol`
/// class (which cannot hold a reference) finds its backend. Entries are weak: a backend that is
/// gone is reported clearly instead of kept alive by its sessions.
final class BackendRegistry: Sendable {
  static let shared = BackendRegistry()

  private struct State {
    var next: UInt32 = 1
    var backends: [UInt32: WeakBox<Backend>] = [:]
  }

  private let state = Locked(State())

  func register() -> UInt32 {
    state.withLock { state in
      defer { state.next &+= 1 }
      return state.next
    }
  }

  func attach(_ backend: Backend) {
    state.withLock { $0.backends[backend.id] = WeakBox(object: backend) }
  }

  func unregister(_ id: UInt32) {
    state.withLock { _ = $0.backends.removeValue(forKey: id) }
  }

  func backend(_ id: UInt32) -> Backend? {
    state.withLock { $0.backends[id]?.object }
  }
}
