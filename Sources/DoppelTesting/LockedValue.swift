import Foundation

/// A value guarded by a lock, for the few pieces of shared state this module keeps.
///
/// `Mutex` from Synchronization would do, but it needs macOS 15 / iOS 18 and the package supports
/// older systems.
final class LockedValue<Value>: @unchecked Sendable {
  // Safe: `value` is only read or written inside `withLock`, which holds `lock` for the whole access.
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
