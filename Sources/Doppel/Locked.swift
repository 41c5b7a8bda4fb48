import Foundation

/// A value guarded by a lock. `package` so the package's other modules share it.
///
/// `Mutex` from Synchronization would do, but it needs macOS 15 / iOS 18; this box keeps Doppel usable
/// on older Apple systems. Never store a bare closure as `State` (see swiftlang/swift#91348 in the
/// project notes): wrap closures in a struct.
package final class Locked<State>: @unchecked Sendable {
  // Safe: `state` is only read or written inside `withLock`, which holds `lock` for the whole access.
  private var state: State
  private let lock = NSLock()

  package init(_ state: State) { self.state = state }

  @inline(__always)
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

/// A weak reference that can cross concurrency domains.
struct WeakBox<Object: AnyObject & Sendable>: Sendable {
  weak var object: Object?
}
