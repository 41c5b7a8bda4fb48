import Foundation

/// A value guarded by a lock, shared by the package's modules.
///
/// Public only to the package's own modules, through `@_spi(DoppelInternals) import DoppelToolkit`:
/// Swift serializes the `@inlinable` body of a `package` member only when its type is public, and
/// without the body a caller in another module calls the unspecialized generic `withLock` (with its
/// closure boxed), which cost a request through the in-memory door about a tenth of its time. Its
/// members stay `package`.
///
/// `Mutex` from Synchronization would do, but it needs macOS 15 / iOS 18; this box keeps Doppel usable
/// on older Apple systems. Never store a bare closure as `State` (see swiftlang/swift#91348 in the
/// project notes): wrap closures in a struct.
@_spi(DoppelInternals) public struct Locked<State>: @unchecked Sendable {
  // Why `@unchecked` is safe: the state is only read or written inside `withLock`, which holds the
  // lock for the whole access. The struct holds nothing but a reference to that storage.
  @usableFromInline let storage: LockStorage<State>

  package init(_ state: State) { storage = LockStorage.make(state) }

  // `@inlinable`: callers in the package's other modules specialize it for their state and inline
  // it, as they did when every layer was one module (an unspecialized generic call and its
  // closure cost a request through the in-memory door about a tenth of its time).
  @inlinable
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try storage.withLock(body)
  }
}

/// A dictionary under a lock, for values worth building once and sharing: it holds at most
/// `limit` entries and starts over when full (a bound, not an eviction policy, for caches whose
/// keys usually number far fewer). Values are built outside the lock by the caller.
@_spi(DoppelInternals) public struct BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  @usableFromInline let entries: Locked<[Key: Value]>
  /// The most entries kept.
  @usableFromInline package let limit: Int

  package init(limit: Int) {
    entries = Locked([:])
    self.limit = limit
  }

  /// The value kept for `key`, if any.
  @inlinable
  package subscript(key: Key) -> Value? { entries.withLock { $0[key] } }

  /// Keeps `value` for `key`, first emptying the cache when it is full.
  @inlinable
  package func insert(_ value: Value, for key: Key) {
    entries.withLock { entries in
      if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
      entries[key] = value
    }
  }
}

/// A mutex alone, for state that lives elsewhere and that only code holding this lock touches (see
/// `StubHandle`). The counterpart of `Locked` without state: it never forms an `inout` access to an
/// empty value, which ThreadSanitizer would report as a race.
@_spi(DoppelInternals) public struct PlainLock: @unchecked Sendable {
  // Why `@unchecked` is safe: the struct holds nothing but a reference to the mutex's storage, and
  // the mutex is only used through `pthread_mutex_lock` and `pthread_mutex_unlock`.
  @usableFromInline let storage = LockStorage.make(())

  package init() {}

  @inlinable
  package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    try storage.withMutexLocked(body)
  }
}

/// The state and its mutex in one allocation (`NSLock` keeps its mutex in a second one), so taking
/// a lock touches one object instead of three.
@usableFromInline
final class LockStorage<State>: ManagedBuffer<State, pthread_mutex_t> {
  package static func make(_ state: State) -> LockStorage<State> {
    let buffer = create(minimumCapacity: 1) { _ in state }
    buffer.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
    }
    return unsafeDowncast(buffer, to: LockStorage<State>.self)
  }

  @inlinable
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    try withUnsafeMutablePointers { state, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&state.pointee)
    }
  }

  /// Runs `body` holding the mutex, without touching the state.
  @inlinable
  func withMutexLocked<Result>(_ body: () throws -> Result) rethrows -> Result {
    try withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body()
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

package struct WeakBox<Object: AnyObject & Sendable>: Sendable {
  package weak var object: Object?

  package init(object: Object?) { self.object = object }
}
