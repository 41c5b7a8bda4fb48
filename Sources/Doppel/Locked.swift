import Foundation

/// A value guarded by a lock. `package` so the package's other modules share it.
///
/// `Mutex` from Synchronization would do, but it needs macOS 15 / iOS 18; this box keeps Doppel usable
/// on older Apple systems. Never store a bare closure as `State` (see swiftlang/swift#91348 in the
/// project notes): wrap closures in a struct.
package struct Locked<State>: @unchecked Sendable {
  // Why `@unchecked` is safe: the state is only read or written inside `withLock`, which holds the
  // lock for the whole access. The struct holds nothing but a reference to that storage.
  private let storage: LockStorage<State>

  package init(_ state: State) { storage = LockStorage.make(state) }

  @inline(__always)
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try storage.withLock(body)
  }
}

/// The state and its mutex in one allocation (`NSLock` keeps its mutex in a second one), so taking
/// a lock touches one object instead of three.
final class LockStorage<State>: ManagedBuffer<State, pthread_mutex_t> {
  static func make(_ state: State) -> LockStorage<State> {
    let buffer = create(minimumCapacity: 1) { _ in state }
    buffer.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
    }
    return unsafeDowncast(buffer, to: LockStorage<State>.self)
  }

  @inline(__always)
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try withUnsafeMutablePointers { state, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&state.pointee)
    }
  }

  // `ManagedBuffer` destroys the header (the state) itself; the element (the mutex) is ours.
  deinit {
    withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_destroy(mutex)
      _ = mutex.deinitialize(count: 1)
    }
  }
}

struct WeakBox<Object: AnyObject & Sendable>: Sendable {
  weak var object: Object?
}
